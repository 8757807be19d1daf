import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { z } from 'zod'

import { parseTrustedProxies } from '../http/client-address'
import { PRODUCT_NAME } from './product'
import { parseSigningKeys } from './signing-key'

/**
 * Every environment variable the service reads, declared once in `ENV_SCHEMA` with its type, default,
 * description, whether it is a secret and what production refuses. docs/ENVIRONMENT.md and
 * `.env.example` are generated from it (`npm run docs:env`, src/config/env-docs.ts).
 * NODE_ENV is the commands' (`npm start` sets it), not the operator's, so it is not in the schema.
 */

/** Where a variable is listed in the docs and in `.env.example`, in this order. */
export const ENV_SECTIONS = {
  core: { title: 'Core' },
  jobs: { title: 'Jobs' },
  email: { title: 'Email' },
  payment: {
    title: 'Payment processor (Stripe)',
    note: 'Unset in development: the local processor stand-in runs instead.',
  },
  plans: {
    title: 'Plans',
    note: "The processor's price IDs (`price_...`). In development the processor stand-in's prices are the defaults.",
  },
  licensing: { title: 'License certificates' },
  delivery: { title: 'Delivery: release archives and signed download links' },
  content: { title: 'Content: blog, changelog and their images' },
  repo: {
    title: 'Repository access (GitHub)',
    note: 'Unset in development: the local code-host stand-in runs instead.',
  },
  webhooks: { title: 'Outbound webhooks (your own systems)' },
  community: {
    title: 'Community: a Discord role as a plan benefit',
    note: "All four of the bot token, server id, client id and client secret, or none. Unset in development: the local Discord stand-in runs instead; unset in production: the feature is off and the dashboard says nothing of it. Register `<SERVER_URL>/api/community/discord/callback` as the application's redirect URI (docs/COMMUNITY.md).",
  },
  privacy: { title: 'Privacy: account deletion' },
  affiliates: {
    title: 'Affiliates: commissions for sales through a link',
    note: 'How the program runs and how it pays: docs/AFFILIATES.md.',
  },
  recovery: {
    title: 'Checkout recovery: the email after an abandoned checkout',
    note: 'What is sent, when, and to whom: docs/CHECKOUT_RECOVERY.md.',
  },
  oauth: {
    title: 'Sign-in with GitHub and Google (OAuth)',
    note: 'Unset in development: the local OAuth stand-in runs instead; unset in production: those buttons are not shown. Register `<SERVER_URL>/auth/callback` as the redirect URI.',
  },
} as const

type Source = Record<string, string | undefined>

type ProductionRule = {
  /** Why production needs the variable: its refusal reads `NAME is not set (required)`. */
  required: string
  /** Needed only when this holds (another variable of a group is set); always when absent. */
  when?: (source: Source) => boolean
  /** What production refuses in a set value: the rule in words, and the refusal (which never quotes a secret). */
  check?: { rule: string; problem: (value: string, source: Source) => string | undefined }
}

export type VariableMeta = {
  section: keyof typeof ENV_SECTIONS
  /** One line, a sentence. */
  description: string
  /** The default value, set by the typed helpers below; without one, `unset` says what happens. */
  fallback?: string
  /** What an unset variable means when it has no single default value. */
  unset?: string
  /** Never in a log line or a configuration error. */
  secret?: boolean
  production?: ProductionRule
  /** The value `.env.example` suggests; the default value otherwise, or nothing. */
  example?: string
}

type Doc = Omit<VariableMeta, 'fallback'>

const ENV_META = z.registry<VariableMeta>()

/** Unset and blank are alike: the default applies. Values are trimmed. */
const blank = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined

/** Unset stays undefined; `doc.unset` says what that means. */
const optional = (schema: z.ZodString | z.ZodURL, doc: Doc) =>
  z.preprocess(blank, schema.optional()).register(ENV_META, doc)

const text = (doc: Doc) => optional(z.string(), doc)

const textOr = (fallback: string, doc: Doc) =>
  z.preprocess(blank, z.string().default(fallback)).register(ENV_META, { ...doc, fallback })

const httpUrl = () => z.url({ protocol: /^https?$/, error: 'must be an absolute http:// or https:// URL' })

const url = (doc: Doc) => optional(httpUrl(), doc)

const urlOr = (fallback: string, doc: Doc) =>
  z.preprocess(blank, httpUrl().default(fallback)).register(ENV_META, { ...doc, fallback })

/** A whole number from 1 to `max`, written as Number() reads it. */
const integer = (fallback: number, doc: Doc, max = Number.MAX_SAFE_INTEGER, message = 'must be a positive integer') => {
  const error = { error: message }
  return z
    .preprocess(blank, z.coerce.number(error).int(error).min(1, error).max(max, error).default(fallback))
    .register(ENV_META, { ...doc, fallback: String(fallback) })
}

/** A whole number of days, 0 included, up to `max`. */
const days = (fallback: number, doc: Doc, max: number) => {
  const error = { error: `must be a whole number of days from 0 to ${max}` }
  return z
    .preprocess(blank, z.coerce.number(error).int(error).min(0, error).max(max, error).default(fallback))
    .register(ENV_META, { ...doc, fallback: String(fallback) })
}

const port = (fallback: number, doc: Doc) => integer(fallback, doc, 65535, 'must be a port number from 1 to 65535')

/** Strict, in any case: a typo must not silently turn a switch on or off. */
const flag = (fallback: boolean, doc: Doc) =>
  z
    .preprocess(
      blank,
      z.stringbool({ truthy: ['true'], falsy: ['false'], error: 'must be true or false' }).default(fallback),
    )
    .register(ENV_META, { ...doc, fallback: String(fallback) })

/**
 * The levels of src/log.ts's logger (pino's, and `silent`). The logger reads LOG_LEVEL itself, as it is
 * made before the configuration is read (to log a configuration error); here a typo stops the start.
 */
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const

const logLevel = (doc: Doc) =>
  z
    .preprocess(
      (value) => blank(value)?.toLowerCase(),
      z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    )
    .register(ENV_META, { ...doc, fallback: 'info' })

const trustedProxies = (doc: Doc) =>
  z
    .preprocess(blank, z.string().optional())
    .transform((value, context) => {
      try {
        return parseTrustedProxies(value)
      } catch (error) {
        context.addIssue((error as Error).message)
        return z.NEVER
      }
    })
    .register(ENV_META, doc)

const MIN_SECRET_LENGTH = 32

/** Ten years: a longer retention is keeping forever, and a cut-off that far back is still a valid date. */
const MAX_WEBHOOK_RETENTION_DAYS = 3650

const keyMode = (key: string | undefined) => /_(test|live)_/.exec(key ?? '')?.[1]

const REPO_REQUIRED = "the code host's token and the kit's repository; production never uses the stand-in"

/** The four settings the Discord community needs together: production refuses some without the others. */
const DISCORD_SETTINGS = [
  'DISCORD_BOT_TOKEN',
  'DISCORD_GUILD_ID',
  'DISCORD_CLIENT_ID',
  'DISCORD_CLIENT_SECRET',
] as const
const DISCORD_REQUIRED = {
  required:
    'the Discord community is half configured: set all four of DISCORD_BOT_TOKEN, DISCORD_GUILD_ID, DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET, or none',
  when: (source: Source) => DISCORD_SETTINGS.some((name) => blank(source[name]) !== undefined),
}

/** A Discord id (a snowflake): 17 to 20 digits. */
const SNOWFLAKE = /^\d{17,20}$/

export const ENV_SCHEMA = z.object({
  DATABASE_URL: optional(z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' }), {
    section: 'core',
    description: 'PostgreSQL connection string (`postgres://user:password@host:5432/database`).',
    unset: 'embedded PostgreSQL in `<DATA_DIR>/postgres`',
    secret: true,
    production: { required: 'PostgreSQL connection string' },
  }),
  DATABASE_POOL_MAX: integer(10, {
    section: 'core',
    description:
      "Connections in each Payload instance's database pool: a server has two (Next's and the jobs worker's), `npm run jobs` one (docs/DEPLOYMENT.md).",
  }),
  EMBEDDED_POSTGRES_PORT: port(54329, {
    section: 'core',
    description: 'Port of the embedded development PostgreSQL (only when `DATABASE_URL` is unset).',
  }),
  PAYLOAD_SECRET: text({
    section: 'core',
    description:
      'Signs sessions, download links and OAuth state; at least 32 random characters (`openssl rand -hex 32`).',
    unset: 'generated into `<DATA_DIR>/payload-secret`',
    secret: true,
    production: {
      required: 'signs sessions; use at least 32 random characters',
      check: {
        rule: `at least ${MIN_SECRET_LENGTH} characters`,
        problem: (value) =>
          value.length < MIN_SECRET_LENGTH
            ? `PAYLOAD_SECRET is too short (${value.length} characters, need at least ${MIN_SECRET_LENGTH})`
            : undefined,
      },
    },
  }),
  SERVER_URL: url({
    section: 'core',
    description:
      'The public address of the service, without a trailing slash; also the CSRF and CORS allow-list and the host of every emailed link.',
    unset: '`http://localhost:<PORT>`',
    example: 'http://localhost:3000',
    production: { required: 'the public https:// address of the service' },
  }),
  PORT: port(3000, { section: 'core', description: 'Port the HTTP server listens on.' }),
  DATA_DIR: textOr('.data', {
    section: 'core',
    description: 'Folder of development state (embedded database, outbox, generated secrets), relative to the project.',
  }),
  LOG_LEVEL: logLevel({
    section: 'core',
    description: `Level of the service's logger (JSON lines in production): ${LOG_LEVELS.join(', ')}.`,
  }),
  MAX_BODY_BYTES: integer(1024 * 1024, {
    section: 'core',
    description: 'Largest request body in bytes, counted as it is read (chunked too): every route but staff uploads.',
  }),
  MAX_UPLOAD_BYTES: integer(512 * 1024 * 1024, {
    section: 'core',
    description:
      'Largest body of a staff upload in bytes (create or update in an upload collection such as releases, with an admin or support session).',
  }),
  TRUSTED_PROXIES: trustedProxies({
    section: 'core',
    description:
      'Proxies in front of the service, comma-separated addresses or CIDRs (`10.0.0.0/8`); only their `X-Forwarded-For` is believed.',
    unset: "no proxy trusted (the socket's peer is the client)",
  }),

  JOBS_WORKER: flag(true, {
    section: 'jobs',
    description:
      'Work the jobs queue (emails, scheduled upkeep) in the server process; `false` leaves it to a separate `npm run jobs` with the same environment (docs/DEPLOYMENT.md).',
  }),
  JOBS_RETRY_DELAY_MS: integer(30_000, {
    section: 'jobs',
    description:
      'First retry delay of a failed background job (emails), in milliseconds; it doubles on each further attempt.',
  }),

  WEBHOOK_ALLOW_PRIVATE: flag(false, {
    section: 'webhooks',
    description:
      'Let webhook endpoints use `http:` and loopback or private addresses (staging, tests). Off: `https:` on public addresses only. Link-local and cloud metadata addresses are refused either way (docs/WEBHOOKS.md).',
  }),
  WEBHOOK_TIMEOUT_MS: integer(10_000, {
    section: 'webhooks',
    description: 'How long a webhook receiver may take to answer, in milliseconds.',
  }),
  WEBHOOK_RETRY_BASE_MS: integer(10_000, {
    section: 'webhooks',
    description:
      'The wait before the second attempt of a failed webhook delivery, in milliseconds; it doubles on each further attempt, at most an hour, 10 attempts in all.',
  }),
  WEBHOOK_RETENTION_DAYS: integer(
    30,
    {
      section: 'webhooks',
      description:
        'Days a webhook event and its deliveries are kept (from 1 to 3650): an hourly job deletes older ones whose attempts are over; an event still being tried is never deleted (docs/WEBHOOKS.md).',
    },
    MAX_WEBHOOK_RETENTION_DAYS,
    `must be a whole number of days from 1 to ${MAX_WEBHOOK_RETENTION_DAYS}`,
  ),

  ACCOUNT_DELETION_GRACE_DAYS: days(
    14,
    {
      section: 'privacy',
      description:
        'Days between a request to delete an account and its erasure, during which the customer can cancel it (from 0 to 365; 0 erases within a minute, for staging and tests) (docs/PRIVACY.md).',
    },
    365,
  ),

  CHECKOUT_RECOVERY: flag(true, {
    section: 'recovery',
    description:
      "Plan checkouts ask the processor to keep an abandoned checkout recoverable for 30 days and to ask the buyer's consent to promotional email; one recovery email follows an expired checkout. false: neither (expired checkouts are still counted).",
  }),
  CHECKOUT_EXPIRES_HOURS: integer(
    23,
    {
      section: 'recovery',
      description:
        'Hours a plan checkout stays open before the processor expires it (from 1 to 23: the processor refuses 24 or more).',
    },
    23,
    'must be a whole number of hours from 1 to 23',
  ),
  RECOVERY_EMAIL_DELAY_MINUTES: integer(
    60,
    {
      section: 'recovery',
      description: 'Minutes between a checkout expiring and its recovery email (from 1 to 10080, a week).',
    },
    10_080,
    'must be a whole number of minutes from 1 to 10080',
  ),
  RECOVERY_EMAIL_MIN_INTERVAL_DAYS: days(
    7,
    {
      section: 'recovery',
      description:
        'An address that got a recovery email within this many days gets no other (from 0 to 365; 0: no such limit).',
    },
    365,
  ),

  AFFILIATE_COMMISSION_BPS: integer(
    3000,
    {
      section: 'affiliates',
      description:
        "A new affiliate's commission in basis points of each sale net of tax (3000 is 30%; from 1 to 10000). Admins change each affiliate's own rate in the admin.",
    },
    10_000,
    'must be a whole number of basis points from 1 to 10000',
  ),
  AFFILIATE_AUTO_APPROVE: flag(false, {
    section: 'affiliates',
    description:
      'Applications to the affiliate program are active at once (true), or wait for an admin to approve each one (false).',
  }),
  AFFILIATE_COOKIE_DAYS: integer(
    30,
    {
      section: 'affiliates',
      description: "Days a referral link's visit counts towards a sale (from 1 to 365; the last link clicked wins).",
    },
    365,
    'must be a whole number of days from 1 to 365',
  ),
  AFFILIATE_HOLD_DAYS: days(
    30,
    {
      section: 'affiliates',
      description:
        'Days a commission stays pending after its payment, so a refund can undo it before it is paid out (from 0 to 365).',
    },
    365,
  ),
  AFFILIATE_RECURRING_MONTHS: integer(
    12,
    {
      section: 'affiliates',
      description:
        "Months of a subscription's invoices that earn its affiliate a commission, from its start (from 1 to 120).",
    },
    120,
    'must be a whole number of months from 1 to 120',
  ),

  DISCORD_BOT_TOKEN: text({
    section: 'community',
    description:
      "The Discord bot's token (Bot page of the application); the bot needs Manage Roles and Create Instant Invite, and its role above every role a plan grants.",
    unset: 'Discord stand-in in development; the feature off in production',
    secret: true,
    production: DISCORD_REQUIRED,
  }),
  DISCORD_GUILD_ID: optional(z.string().regex(SNOWFLAKE, { error: 'must be a Discord server id (17 to 20 digits)' }), {
    section: 'community',
    description: 'The id of the Discord server (guild) buyers join.',
    unset: 'Discord stand-in in development; the feature off in production',
    production: DISCORD_REQUIRED,
  }),
  DISCORD_CLIENT_ID: text({
    section: 'community',
    description: "The Discord application's client id (OAuth2 page).",
    unset: 'Discord stand-in in development; the feature off in production',
    production: DISCORD_REQUIRED,
  }),
  DISCORD_CLIENT_SECRET: text({
    section: 'community',
    description: "The Discord application's client secret.",
    unset: 'Discord stand-in in development; the feature off in production',
    secret: true,
    production: DISCORD_REQUIRED,
  }),
  DISCORD_API_URL: urlOr('https://discord.com/api/v10', {
    section: 'community',
    description: "Discord's API, with its version (a stand-in, a staging double); honoured in every mode.",
    example: '',
  }),
  DISCORD_AUTHORIZE_URL: urlOr('https://discord.com/oauth2/authorize', {
    section: 'community',
    description: "Discord's OAuth2 authorization page.",
    example: '',
  }),
  DISCORD_KICK_ON_REVOKE: flag(false, {
    section: 'community',
    description:
      'Also remove from the server a member whose last plan role was taken back (the role alone is taken back otherwise).',
  }),
  COMMUNITY_SYNC_MINUTES: integer(
    60,
    {
      section: 'community',
      description:
        'How often each linked Discord account is checked against Discord, in minutes (a role removed by hand comes back; one nobody is entitled to goes); from 1 to 10080.',
    },
    10_080,
    'must be a whole number of minutes from 1 to 10080',
  ),
  DISCORD_TIMEOUT_MS: integer(10_000, {
    section: 'community',
    description: 'Timeout of one Discord request, in milliseconds.',
  }),
  DISCORD_STANDIN_PORT: port(12114, {
    section: 'community',
    description: 'Port of the development Discord stand-in (only when `DISCORD_BOT_TOKEN` is unset).',
  }),

  SMTP_URL: text({
    section: 'email',
    description:
      'SMTP server (`smtps://user:pass@smtp.example.com:465`), through a pool of up to 5 connections unless the URL sets `pool` (`?pool=false`, `?maxConnections=10`).',
    unset: 'file outbox, `<DATA_DIR>/outbox/*.eml`',
    secret: true,
    production: { required: 'email delivery; production never writes to the file outbox' },
  }),
  EMAIL_FROM: textOr('no-reply@localhost', {
    section: 'email',
    description: 'Sender address of every email.',
    example: 'no-reply@example.com',
  }),
  EMAIL_FROM_NAME: textOr(PRODUCT_NAME, { section: 'email', description: 'Sender name of every email.' }),

  PAYMENT_SECRET_KEY: text({
    section: 'payment',
    description: 'Server-side secret key (`sk_test_...` or `sk_live_...`); never sent to a browser or a log.',
    unset: 'processor stand-in',
    secret: true,
    production: {
      required: 'processor secret key, sk_live_... or sk_test_...',
      check: {
        rule: '`sk_test_`, `sk_live_` or a restricted `rk_` key',
        problem: (value) =>
          /^(sk|rk)_(test|live)_/.test(value)
            ? undefined
            : 'PAYMENT_SECRET_KEY is not a secret key (sk_test_/sk_live_/rk_...)',
      },
    },
  }),
  PAYMENT_WEBHOOK_SECRET: text({
    section: 'payment',
    description: 'Webhook signing secret (`whsec_...`); several, comma-separated, while rolling it.',
    unset: "processor stand-in's",
    secret: true,
    production: { required: 'webhook signing secret, whsec_...' },
  }),
  PUBLIC_PAYMENT_PUBLISHABLE_KEY: text({
    section: 'payment',
    description: 'Publishable key (`pk_test_...` or `pk_live_...`), the only processor key a browser may see.',
    unset: "processor stand-in's",
    production: {
      required: 'pk_live_... or pk_test_...',
      check: {
        rule: '`pk_test_` or `pk_live_`, the same mode as `PAYMENT_SECRET_KEY`',
        problem: (value, source) => {
          if (!/^pk_(test|live)_/.test(value)) return 'PUBLIC_PAYMENT_PUBLISHABLE_KEY is not a publishable key (pk_...)'
          const secretMode = keyMode(blank(source.PAYMENT_SECRET_KEY))
          return secretMode && secretMode !== keyMode(value)
            ? 'PAYMENT_SECRET_KEY and PUBLIC_PAYMENT_PUBLISHABLE_KEY are of different modes (test and live keys must not be mixed)'
            : undefined
        },
      },
    },
  }),
  PAYMENT_API_URL: url({
    section: 'payment',
    description: 'Another API base URL for the processor SDK (a stand-in, a staging double); honoured in every mode.',
    unset: "the processor's own",
  }),
  PAYMENT_TIMEOUT_MS: integer(10_000, {
    section: 'payment',
    description: 'Timeout of one processor request, in milliseconds.',
  }),
  PAYMENT_AUTOMATIC_TAX: flag(false, {
    section: 'payment',
    description:
      'Checkout computes sales tax and VAT (`automatic_tax`): turn on Stripe Tax in the processor\'s dashboard and register where you collect tax first (docs/BILLING.md, "Tax and invoices").',
  }),
  PAYMENT_TAX_ID_COLLECTION: flag(true, {
    section: 'payment',
    description:
      'Checkout lets business buyers enter their company name and tax ID (such as a VAT number), printed on their invoice (`tax_id_collection`).',
  }),
  PAYMENT_INVOICES: flag(true, {
    section: 'payment',
    description:
      'Every one-time purchase gets an invoice from the processor (`invoice_creation`), linked in the dashboard and the license email; subscriptions always have one.',
  }),
  SUBSCRIPTION_GRACE_DAYS: integer(7, {
    section: 'payment',
    description: 'Days a `past_due` subscription keeps its license after the paid period ended.',
  }),
  PROCESSOR_STANDIN_PORT: port(12111, {
    section: 'payment',
    description: 'Port of the development processor stand-in (only when `PAYMENT_SECRET_KEY` is unset).',
  }),

  PUBLIC_PRICE_ID_STANDARD_LIFETIME: text({
    section: 'plans',
    description: 'One-time price of the standard plan.',
    unset: 'none',
  }),
  PUBLIC_PRICE_ID_ULTIMATE_LIFETIME: text({
    section: 'plans',
    description: 'One-time price of the ultimate plan.',
    unset: 'none',
  }),
  PUBLIC_PRICE_ID_PRO_MONTHLY: text({
    section: 'plans',
    description:
      'Monthly price of the optional recurring pro plan, which exists only when it or the yearly price is set.',
    unset: 'none',
  }),
  PUBLIC_PRICE_ID_PRO_YEARLY: text({
    section: 'plans',
    description: 'Yearly price of the optional recurring pro plan.',
    unset: 'none',
  }),
  PUBLIC_PRICE_ID_STANDARD_RENEWAL: text({
    section: 'plans',
    description:
      "One-time price that renews a standard license's updates to the newest major version (docs/LICENSING.md).",
    unset: 'no renewals',
  }),
  PUBLIC_PRICE_ID_ULTIMATE_RENEWAL: text({
    section: 'plans',
    description: "One-time price that renews an ultimate license's updates, when its plan limits them.",
    unset: 'no renewals',
  }),

  LICENSE_SIGNING_KEY: text({
    section: 'licensing',
    description:
      'Signs the license certificates apps verify offline: one or more Ed25519 private keys, as PKCS#8 PEM blocks one after another (newlines may be written `\\n`), a private JWK or a JWK Set `{"keys": [...]}`; the first signs and all are published at `/api/licenses/public-key`, so a key is rotated without a simultaneous restart (docs/LICENSING.md); create one with `openssl genpkey -algorithm ed25519`.',
    unset: 'generated into `<DATA_DIR>/license-signing-key.pem`',
    secret: true,
    production: {
      required: 'one or more Ed25519 private keys, PKCS#8 PEM or JWK; the first signs license certificates',
      check: {
        rule: 'one or more distinct Ed25519 private keys',
        problem: (value) => {
          try {
            parseSigningKeys(value)
            return undefined
          } catch (error) {
            // The parser's message names the variable, never its value.
            return (error as Error).message
          }
        },
      },
    },
  }),

  S3_BUCKET: text({
    section: 'delivery',
    description: 'S3 bucket for release archives, template archives and images.',
    unset: 'local disk',
  }),
  S3_REGION: textOr('us-east-1', { section: 'delivery', description: 'Region of that bucket.' }),
  S3_ENDPOINT: url({
    section: 'delivery',
    description: 'Endpoint of an S3-compatible store (MinIO, s3rver).',
    unset: "AWS's",
  }),
  S3_ACCESS_KEY_ID: text({
    section: 'delivery',
    description: 'Access key id for the bucket.',
    unset: "the AWS SDK's credential chain",
  }),
  S3_SECRET_ACCESS_KEY: text({
    section: 'delivery',
    description: 'Secret access key for the bucket.',
    unset: "the AWS SDK's credential chain",
    secret: true,
  }),
  RELEASES_DIR: text({
    section: 'delivery',
    description: 'Local folder of release archives when `S3_BUCKET` is unset; never served publicly.',
    unset: '`<DATA_DIR>/releases`',
  }),
  TEMPLATES_DIR: text({
    section: 'delivery',
    description:
      'Local folder of template archives when `S3_BUCKET` is unset (with S3 they go to the bucket under `templates/`); never served publicly.',
    unset: '`<DATA_DIR>/templates`',
  }),
  DOWNLOAD_URL_TTL_SECONDS: integer(
    300,
    { section: 'delivery', description: 'Lifetime of a download link, in seconds (at most 3600).' },
    3600,
    'must be a whole number of seconds from 1 to 3600',
  ),

  MEDIA_DIR: textOr('media', {
    section: 'content',
    description:
      'Local folder of uploaded images (blog covers) when `S3_BUCKET` is unset (with S3 they go to the bucket under `media/`); served publicly.',
  }),
  CONTENT_DIR: textOr('src/content', {
    section: 'content',
    description: 'Folder of the MDX sources, with `blog/` and `changelog/` inside.',
  }),
  CONTENT_IMPORT_ON_START: flag(true, {
    section: 'content',
    description:
      'Import the MDX sources at start-up, after migrations and under the start-up lock; `false` leaves it to `npm run content:import`.',
  }),

  REPO_ACCESS_TOKEN: text({
    section: 'repo',
    description:
      'Token allowed to manage collaborators of the kit repository (fine-grained: Administration read and write).',
    unset: 'code-host stand-in',
    secret: true,
    production: { required: REPO_REQUIRED },
  }),
  REPO_OWNER: text({
    section: 'repo',
    description: 'Owner (user or organisation) of the kit repository.',
    unset: "code-host stand-in's",
    production: { required: REPO_REQUIRED },
  }),
  REPO_NAME: text({
    section: 'repo',
    description: 'Name of the kit repository.',
    unset: "code-host stand-in's",
    production: { required: REPO_REQUIRED },
  }),
  REPO_API_URL: url({
    section: 'repo',
    description: 'Another API base URL for @octokit/rest (a stand-in, GitHub Enterprise); honoured in every mode.',
    unset: "GitHub's",
  }),
  REPO_TIMEOUT_MS: integer(10_000, {
    section: 'repo',
    description: 'Timeout of one code-host request, in milliseconds.',
  }),
  CODE_HOST_STANDIN_PORT: port(12112, {
    section: 'repo',
    description: 'Port of the development code-host stand-in (only when `REPO_ACCESS_TOKEN` is unset).',
  }),

  OAUTH_GITHUB_CLIENT_ID: text({
    section: 'oauth',
    description: "Client id of the GitHub OAuth app; the GitHub button needs it and the app's secret.",
    unset: 'OAuth stand-in',
  }),
  OAUTH_GITHUB_CLIENT_SECRET: text({
    section: 'oauth',
    description: 'Client secret of the GitHub OAuth app.',
    unset: 'OAuth stand-in',
    secret: true,
  }),
  OAUTH_GOOGLE_CLIENT_ID: text({
    section: 'oauth',
    description: "Client id of the Google OAuth client; the Google button needs it and the client's secret.",
    unset: 'OAuth stand-in',
  }),
  OAUTH_GOOGLE_CLIENT_SECRET: text({
    section: 'oauth',
    description: 'Client secret of the Google OAuth client.',
    unset: 'OAuth stand-in',
    secret: true,
  }),
  OAUTH_GITHUB_AUTHORIZE_URL: urlOr('https://github.com/login/oauth/authorize', {
    section: 'oauth',
    description: "GitHub's authorization endpoint (a stand-in, a staging double).",
    example: '',
  }),
  OAUTH_GITHUB_TOKEN_URL: urlOr('https://github.com/login/oauth/access_token', {
    section: 'oauth',
    description: "GitHub's token endpoint.",
    example: '',
  }),
  OAUTH_GITHUB_API_URL: urlOr('https://api.github.com', {
    section: 'oauth',
    description: "GitHub's API, for the signed-in user's profile and emails.",
    example: '',
  }),
  OAUTH_GOOGLE_AUTHORIZE_URL: urlOr('https://accounts.google.com/o/oauth2/v2/auth', {
    section: 'oauth',
    description: "Google's authorization endpoint.",
    example: '',
  }),
  OAUTH_GOOGLE_TOKEN_URL: urlOr('https://oauth2.googleapis.com/token', {
    section: 'oauth',
    description: "Google's token endpoint.",
    example: '',
  }),
  OAUTH_GOOGLE_ISSUER: urlOr('https://accounts.google.com', {
    section: 'oauth',
    description: "Issuer (`iss`) of Google's ID tokens.",
    example: '',
  }),
  OAUTH_GOOGLE_JWKS_URL: urlOr('https://www.googleapis.com/oauth2/v3/certs', {
    section: 'oauth',
    description: "Keys that sign Google's ID tokens.",
    example: '',
  }),
  OAUTH_STANDIN_PORT: port(12113, {
    section: 'oauth',
    description: 'Port of the development OAuth stand-in (only when no OAuth client id is set).',
  }),
})

export type EnvName = keyof typeof ENV_SCHEMA.shape

/** Every variable with its metadata, in declaration order. */
export const envVariables = (): Array<VariableMeta & { name: EnvName }> =>
  Object.entries(ENV_SCHEMA.shape).map(([name, schema]) => ({ name: name as EnvName, ...ENV_META.get(schema)! }))

/** One problem per malformed variable, naming it; a secret's value is never quoted. */
const describeIssues = (issues: z.core.$ZodIssue[], source: Source): string => {
  const secret = new Set(
    envVariables()
      .filter((variable) => variable.secret)
      .map((variable) => variable.name as string),
  )
  const problems = new Map<string, string>()
  for (const issue of issues) {
    const name = String(issue.path[0])
    if (problems.has(name)) continue
    // Messages from a variable's own parser (TRUSTED_PROXIES) already name it and its bad entry.
    if (issue.message.startsWith(name)) problems.set(name, issue.message)
    else
      problems.set(name, `${name} ${issue.message}${secret.has(name) ? '' : `, got ${JSON.stringify(source[name])}`}`)
  }
  return [...problems.values()].join('; ')
}

/** The configuration, read once per call; throws one message naming every malformed variable. */
export const readEnv = (source: Source = process.env) => {
  const parsed = ENV_SCHEMA.safeParse(source)
  if (!parsed.success) throw new Error(describeIssues(parsed.error.issues, source))
  const values = parsed.data
  // Every relative path (data dir, media, migrations) hangs off the project root.
  const rootDir = process.cwd()
  const dataDir = path.resolve(rootDir, values.DATA_DIR)
  return {
    isProduction: source.NODE_ENV === 'production',
    rootDir,
    dataDir,
    databaseUrl: values.DATABASE_URL,
    databasePoolMax: values.DATABASE_POOL_MAX,
    payloadSecret: values.PAYLOAD_SECRET,
    serverUrl: (values.SERVER_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, ''),
    port: values.PORT,
    smtpUrl: values.SMTP_URL,
    emailFrom: values.EMAIL_FROM,
    emailFromName: values.EMAIL_FROM_NAME,
    embeddedPostgresPort: values.EMBEDDED_POSTGRES_PORT,
    maxBodyBytes: values.MAX_BODY_BYTES,
    maxUploadBytes: values.MAX_UPLOAD_BYTES,
    trustedProxies: values.TRUSTED_PROXIES,
    payment: {
      automaticTax: values.PAYMENT_AUTOMATIC_TAX,
      taxIdCollection: values.PAYMENT_TAX_ID_COLLECTION,
      invoices: values.PAYMENT_INVOICES,
      secretKey: values.PAYMENT_SECRET_KEY,
      webhookSecret: values.PAYMENT_WEBHOOK_SECRET,
      publishableKey: values.PUBLIC_PAYMENT_PUBLISHABLE_KEY,
      apiUrl: values.PAYMENT_API_URL,
      timeoutMs: values.PAYMENT_TIMEOUT_MS,
    },
    subscriptionGraceDays: values.SUBSCRIPTION_GRACE_DAYS,
    licenseSigningKey: values.LICENSE_SIGNING_KEY,
    jobsRetryDelayMs: values.JOBS_RETRY_DELAY_MS,
    jobsWorker: values.JOBS_WORKER,
    webhooks: {
      allowPrivate: values.WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: values.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: values.WEBHOOK_RETRY_BASE_MS,
      retentionDays: values.WEBHOOK_RETENTION_DAYS,
    },
    accountDeletionGraceDays: values.ACCOUNT_DELETION_GRACE_DAYS,
    affiliates: {
      commissionBps: values.AFFILIATE_COMMISSION_BPS,
      autoApprove: values.AFFILIATE_AUTO_APPROVE,
      cookieDays: values.AFFILIATE_COOKIE_DAYS,
      holdDays: values.AFFILIATE_HOLD_DAYS,
      recurringMonths: values.AFFILIATE_RECURRING_MONTHS,
    },
    recovery: {
      enabled: values.CHECKOUT_RECOVERY,
      checkoutExpiresHours: values.CHECKOUT_EXPIRES_HOURS,
      emailDelayMinutes: values.RECOVERY_EMAIL_DELAY_MINUTES,
      minIntervalDays: values.RECOVERY_EMAIL_MIN_INTERVAL_DAYS,
    },
    discord: {
      botToken: values.DISCORD_BOT_TOKEN,
      guildId: values.DISCORD_GUILD_ID,
      clientId: values.DISCORD_CLIENT_ID,
      clientSecret: values.DISCORD_CLIENT_SECRET,
      apiUrl: values.DISCORD_API_URL,
      authorizeUrl: values.DISCORD_AUTHORIZE_URL,
      kickOnRevoke: values.DISCORD_KICK_ON_REVOKE,
      syncMinutes: values.COMMUNITY_SYNC_MINUTES,
      timeoutMs: values.DISCORD_TIMEOUT_MS,
    },
    releasesDir: path.resolve(rootDir, values.RELEASES_DIR ?? path.join(dataDir, 'releases')),
    templatesDir: path.resolve(rootDir, values.TEMPLATES_DIR ?? path.join(dataDir, 'templates')),
    mediaDir: path.resolve(rootDir, values.MEDIA_DIR),
    contentDir: path.resolve(rootDir, values.CONTENT_DIR),
    contentImportOnStart: values.CONTENT_IMPORT_ON_START,
    downloadUrlTtlSeconds: values.DOWNLOAD_URL_TTL_SECONDS,
    s3: {
      bucket: values.S3_BUCKET,
      region: values.S3_REGION,
      endpoint: values.S3_ENDPOINT,
      accessKeyId: values.S3_ACCESS_KEY_ID,
      secretAccessKey: values.S3_SECRET_ACCESS_KEY,
    },
    oauth: {
      github: {
        clientId: values.OAUTH_GITHUB_CLIENT_ID,
        clientSecret: values.OAUTH_GITHUB_CLIENT_SECRET,
        authorizeUrl: values.OAUTH_GITHUB_AUTHORIZE_URL,
        tokenUrl: values.OAUTH_GITHUB_TOKEN_URL,
        apiUrl: values.OAUTH_GITHUB_API_URL,
      },
      google: {
        clientId: values.OAUTH_GOOGLE_CLIENT_ID,
        clientSecret: values.OAUTH_GOOGLE_CLIENT_SECRET,
        authorizeUrl: values.OAUTH_GOOGLE_AUTHORIZE_URL,
        tokenUrl: values.OAUTH_GOOGLE_TOKEN_URL,
        issuer: values.OAUTH_GOOGLE_ISSUER,
        jwksUrl: values.OAUTH_GOOGLE_JWKS_URL,
      },
    },
    repo: {
      token: values.REPO_ACCESS_TOKEN,
      owner: values.REPO_OWNER,
      name: values.REPO_NAME,
      apiUrl: values.REPO_API_URL,
      timeoutMs: values.REPO_TIMEOUT_MS,
    },
    priceIds: {
      standardLifetime: values.PUBLIC_PRICE_ID_STANDARD_LIFETIME ?? null,
      ultimateLifetime: values.PUBLIC_PRICE_ID_ULTIMATE_LIFETIME ?? null,
      proMonthly: values.PUBLIC_PRICE_ID_PRO_MONTHLY ?? null,
      proYearly: values.PUBLIC_PRICE_ID_PRO_YEARLY ?? null,
      standardRenewal: values.PUBLIC_PRICE_ID_STANDARD_RENEWAL ?? null,
      ultimateRenewal: values.PUBLIC_PRICE_ID_ULTIMATE_RENEWAL ?? null,
    },
    standInPorts: {
      processor: values.PROCESSOR_STANDIN_PORT,
      codeHost: values.CODE_HOST_STANDIN_PORT,
      oauth: values.OAUTH_STANDIN_PORT,
      discord: values.DISCORD_STANDIN_PORT,
    },
  }
}

export type ServiceEnv = ReturnType<typeof readEnv>

/**
 * What keeps a production process from starting, one line per problem, naming the variable: each
 * variable's production rule in ENV_SCHEMA. Production never falls back to an embedded database, a
 * generated secret, the file outbox or a stand-in.
 */
export const productionProblems = (source: Source = process.env): string[] =>
  envVariables().flatMap(({ name, production }) => {
    if (!production) return []
    const value = blank(source[name])
    if (value === undefined && production.when && !production.when(source)) return []
    const problem =
      value === undefined ? `${name} is not set (${production.required})` : production.check?.problem(value, source)
    return problem ? [problem] : []
  })

/**
 * The secret that signs sessions. Development without PAYLOAD_SECRET gets a random one that is
 * persisted in the data dir, so sessions survive restarts; production must set it.
 */
export const resolvePayloadSecret = (env: ServiceEnv): string => {
  if (env.payloadSecret) return env.payloadSecret
  if (env.isProduction) throw new Error('PAYLOAD_SECRET is not set')
  const file = path.join(env.dataDir, 'payload-secret')
  try {
    const existing = fs.readFileSync(file, 'utf8').trim()
    if (existing.length >= MIN_SECRET_LENGTH) return existing
  } catch {
    // first start: fall through and create it
  }
  const generated = crypto.randomBytes(32).toString('hex')
  fs.mkdirSync(env.dataDir, { recursive: true })
  fs.writeFileSync(file, `${generated}\n`, { mode: 0o600 })
  return generated
}
