import crypto from 'node:crypto'
import fs from 'node:fs'
import type net from 'node:net'
import path from 'node:path'

import { parseTrustedProxies } from '../http/client-address'
import { parseSigningKey } from '../licensing/certificates'
import { PRODUCT_NAME } from './product'

/**
 * Every environment variable the service reads, in one place. `.env.example` documents each one.
 * Development falls back to embedded defaults; production refuses to start without its secrets
 * (see `productionProblems`).
 */
export type ServiceEnv = {
  isProduction: boolean
  /** Project root: every relative path (data dir, media, migrations) hangs off it. */
  rootDir: string
  /** Where development state lives: embedded database, outbox, generated secret. */
  dataDir: string
  /** pino level for Payload's logger: trace, debug, info, warn, error, fatal or silent. */
  logLevel: string
  databaseUrl: string | undefined
  /** Connections in each Payload instance's pool (a server has two: Next's and the jobs worker's). */
  databasePoolMax: number
  payloadSecret: string | undefined
  serverUrl: string
  port: number
  smtpUrl: string | undefined
  emailFrom: string
  emailFromName: string
  embeddedPostgresPort: number
  /** Largest request body (bytes actually read): JSON endpoints, the webhook, every other route. */
  maxBodyBytes: number
  /** Largest body on staff upload routes (Payload's upload collections) with a staff session. */
  maxUploadBytes: number
  /** Proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES); empty: the socket's peer is the client. */
  trustedProxies: net.BlockList
  payment: {
    secretKey: string | undefined
    webhookSecret: string | undefined
    publishableKey: string | undefined
    /** Another API base URL for the processor SDK (stand-in, staging double). */
    apiUrl: string | undefined
    /** How long one processor request may take before it counts as failed. */
    timeoutMs: number
  }
  /** Days a past_due subscription keeps its license after the period ended. */
  subscriptionGraceDays: number
  /** Signs license certificates: Ed25519, PKCS#8 PEM or private JWK. Unset in development: generated into the data dir. */
  licenseSigningKey: string | undefined
  /** First retry delay of background jobs (emails); doubles on each further attempt. */
  jobsRetryDelayMs: number
  /** Whether the server works the jobs queue itself (JOBS_WORKER); false leaves it to `npm run jobs`. */
  jobsWorker: boolean
  /** Where release archives live when S3 is not configured: outside every publicly served folder. */
  releasesDir: string
  /** Where template archives live when S3 is not configured: outside every publicly served folder. */
  templatesDir: string
  /** The MDX sources of the blog and the changelog (blog/, changelog/ inside). */
  contentDir: string
  /** Import them at start-up (after migrations, under the start-up lock). */
  contentImportOnStart: boolean
  /** Where uploaded images (blog covers, ...) live when S3 is not configured; served publicly by Payload. */
  mediaDir: string
  downloadUrlTtlSeconds: number
  s3: {
    bucket: string | undefined
    region: string
    endpoint: string | undefined
    accessKeyId: string | undefined
    secretAccessKey: string | undefined
  }
  oauth: {
    github: { clientId?: string; clientSecret?: string; authorizeUrl: string; tokenUrl: string; apiUrl: string }
    google: { clientId?: string; clientSecret?: string; authorizeUrl: string; tokenUrl: string; issuer: string; jwksUrl: string }
  }
  repo: {
    token: string | undefined
    owner: string | undefined
    name: string | undefined
    apiUrl: string | undefined
    timeoutMs: number
  }
  priceIds: {
    standardLifetime: string | null
    ultimateLifetime: string | null
    proMonthly: string | null
    proYearly: string | null
  }
}

type Source = Record<string, string | undefined>

const blank = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed ? trimmed : undefined
}

const intOr = (value: string | undefined, fallback: number, name: string): number => {
  if (blank(value) === undefined) return fallback
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed <= 0) {
    throw new Error(`${name} must be a positive integer, got "${value}"`)
  }
  return parsed
}

const booleanOr = (value: string | undefined, fallback: boolean, name: string): boolean => {
  const given = blank(value)?.toLowerCase()
  if (given === undefined) return fallback
  if (given === 'true' || given === 'false') return given === 'true'
  throw new Error(`${name} must be true or false, got "${value}"`)
}

export const readEnv = (source: Source = process.env): ServiceEnv => {
  const rootDir = process.cwd()
  const dataDir = path.resolve(rootDir, blank(source.DATA_DIR) ?? '.data')
  const port = intOr(source.PORT, 3000, 'PORT')
  return {
    isProduction: source.NODE_ENV === 'production',
    rootDir,
    dataDir,
    logLevel: blank(source.LOG_LEVEL) ?? 'info',
    databaseUrl: blank(source.DATABASE_URL),
    databasePoolMax: intOr(source.DATABASE_POOL_MAX, 10, 'DATABASE_POOL_MAX'),
    payloadSecret: blank(source.PAYLOAD_SECRET),
    serverUrl: (blank(source.SERVER_URL) ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    port,
    smtpUrl: blank(source.SMTP_URL),
    emailFrom: blank(source.EMAIL_FROM) ?? 'no-reply@localhost',
    emailFromName: blank(source.EMAIL_FROM_NAME) ?? PRODUCT_NAME,
    embeddedPostgresPort: intOr(source.EMBEDDED_POSTGRES_PORT, 54329, 'EMBEDDED_POSTGRES_PORT'),
    maxBodyBytes: intOr(source.MAX_BODY_BYTES, 1024 * 1024, 'MAX_BODY_BYTES'),
    maxUploadBytes: intOr(source.MAX_UPLOAD_BYTES, 512 * 1024 * 1024, 'MAX_UPLOAD_BYTES'),
    trustedProxies: parseTrustedProxies(source.TRUSTED_PROXIES),
    payment: {
      secretKey: blank(source.PAYMENT_SECRET_KEY),
      webhookSecret: blank(source.PAYMENT_WEBHOOK_SECRET),
      publishableKey: blank(source.PUBLIC_PAYMENT_PUBLISHABLE_KEY),
      apiUrl: blank(source.PAYMENT_API_URL),
      timeoutMs: intOr(source.PAYMENT_TIMEOUT_MS, 10_000, 'PAYMENT_TIMEOUT_MS'),
    },
    subscriptionGraceDays: intOr(source.SUBSCRIPTION_GRACE_DAYS, 7, 'SUBSCRIPTION_GRACE_DAYS'),
    licenseSigningKey: blank(source.LICENSE_SIGNING_KEY),
    jobsRetryDelayMs: intOr(source.JOBS_RETRY_DELAY_MS, 30_000, 'JOBS_RETRY_DELAY_MS'),
    jobsWorker: booleanOr(source.JOBS_WORKER, true, 'JOBS_WORKER'),
    releasesDir: path.resolve(rootDir, blank(source.RELEASES_DIR) ?? path.join(dataDir, 'releases')),
    templatesDir: path.resolve(rootDir, blank(source.TEMPLATES_DIR) ?? path.join(dataDir, 'templates')),
    mediaDir: path.resolve(rootDir, blank(source.MEDIA_DIR) ?? 'media'),
    contentDir: path.resolve(rootDir, blank(source.CONTENT_DIR) ?? 'src/content'),
    contentImportOnStart: blank(source.CONTENT_IMPORT_ON_START) !== 'false',
    downloadUrlTtlSeconds: Math.min(intOr(source.DOWNLOAD_URL_TTL_SECONDS, 300, 'DOWNLOAD_URL_TTL_SECONDS'), 3600),
    s3: {
      bucket: blank(source.S3_BUCKET),
      region: blank(source.S3_REGION) ?? 'us-east-1',
      endpoint: blank(source.S3_ENDPOINT),
      accessKeyId: blank(source.S3_ACCESS_KEY_ID),
      secretAccessKey: blank(source.S3_SECRET_ACCESS_KEY),
    },
    oauth: {
      github: {
        clientId: blank(source.OAUTH_GITHUB_CLIENT_ID),
        clientSecret: blank(source.OAUTH_GITHUB_CLIENT_SECRET),
        authorizeUrl: blank(source.OAUTH_GITHUB_AUTHORIZE_URL) ?? 'https://github.com/login/oauth/authorize',
        tokenUrl: blank(source.OAUTH_GITHUB_TOKEN_URL) ?? 'https://github.com/login/oauth/access_token',
        apiUrl: blank(source.OAUTH_GITHUB_API_URL) ?? 'https://api.github.com',
      },
      google: {
        clientId: blank(source.OAUTH_GOOGLE_CLIENT_ID),
        clientSecret: blank(source.OAUTH_GOOGLE_CLIENT_SECRET),
        authorizeUrl: blank(source.OAUTH_GOOGLE_AUTHORIZE_URL) ?? 'https://accounts.google.com/o/oauth2/v2/auth',
        tokenUrl: blank(source.OAUTH_GOOGLE_TOKEN_URL) ?? 'https://oauth2.googleapis.com/token',
        issuer: blank(source.OAUTH_GOOGLE_ISSUER) ?? 'https://accounts.google.com',
        jwksUrl: blank(source.OAUTH_GOOGLE_JWKS_URL) ?? 'https://www.googleapis.com/oauth2/v3/certs',
      },
    },
    repo: {
      token: blank(source.REPO_ACCESS_TOKEN),
      owner: blank(source.REPO_OWNER),
      name: blank(source.REPO_NAME),
      apiUrl: blank(source.REPO_API_URL),
      timeoutMs: intOr(source.REPO_TIMEOUT_MS, 10_000, 'REPO_TIMEOUT_MS'),
    },
    priceIds: {
      standardLifetime: blank(source.PUBLIC_PRICE_ID_STANDARD_LIFETIME) ?? null,
      ultimateLifetime: blank(source.PUBLIC_PRICE_ID_ULTIMATE_LIFETIME) ?? null,
      proMonthly: blank(source.PUBLIC_PRICE_ID_PRO_MONTHLY) ?? null,
      proYearly: blank(source.PUBLIC_PRICE_ID_PRO_YEARLY) ?? null,
    },
  }
}

/** The minimum entropy we accept for the secret that signs sessions. */
const MIN_SECRET_LENGTH = 32

/**
 * What keeps a production process from starting, one line per variable, naming it.
 * Production never falls back to an embedded database, a generated secret or the file outbox.
 */
export const productionProblems = (source: Source = process.env): string[] => {
  const problems: string[] = []
  const secret = blank(source.PAYLOAD_SECRET)
  if (!secret) problems.push('PAYLOAD_SECRET is not set (signs sessions; use at least 32 random characters)')
  else if (secret.length < MIN_SECRET_LENGTH)
    problems.push(`PAYLOAD_SECRET is too short (${secret.length} characters, need at least ${MIN_SECRET_LENGTH})`)
  if (!blank(source.DATABASE_URL)) problems.push('DATABASE_URL is not set (PostgreSQL connection string)')
  const serverUrl = blank(source.SERVER_URL)
  if (!serverUrl) problems.push('SERVER_URL is not set (the public https:// address of the service)')
  else if (!/^https?:\/\/[^/]+/.test(serverUrl)) problems.push(`SERVER_URL is not an absolute URL: "${serverUrl}"`)
  if (!blank(source.SMTP_URL)) problems.push('SMTP_URL is not set (email delivery; production never writes to the file outbox)')
  const secretKey = blank(source.PAYMENT_SECRET_KEY)
  const publishableKey = blank(source.PUBLIC_PAYMENT_PUBLISHABLE_KEY)
  if (!secretKey) problems.push('PAYMENT_SECRET_KEY is not set (processor secret key, sk_live_... or sk_test_...)')
  else if (!/^(sk|rk)_(test|live)_/.test(secretKey)) problems.push('PAYMENT_SECRET_KEY is not a secret key (sk_test_/sk_live_/rk_...)')
  if (!blank(source.PAYMENT_WEBHOOK_SECRET)) problems.push('PAYMENT_WEBHOOK_SECRET is not set (webhook signing secret, whsec_...)')
  if (!publishableKey) problems.push('PUBLIC_PAYMENT_PUBLISHABLE_KEY is not set (pk_live_... or pk_test_...)')
  else if (!/^pk_(test|live)_/.test(publishableKey)) problems.push('PUBLIC_PAYMENT_PUBLISHABLE_KEY is not a publishable key (pk_...)')
  const mode = (key: string | undefined) => /_(test|live)_/.exec(key ?? '')?.[1]
  if (secretKey && publishableKey && mode(secretKey) && mode(publishableKey) && mode(secretKey) !== mode(publishableKey)) {
    problems.push('PAYMENT_SECRET_KEY and PUBLIC_PAYMENT_PUBLISHABLE_KEY are of different modes (test and live keys must not be mixed)')
  }
  const signingKey = blank(source.LICENSE_SIGNING_KEY)
  if (!signingKey) problems.push('LICENSE_SIGNING_KEY is not set (Ed25519 private key, PKCS#8 PEM or JWK, that signs license certificates)')
  else {
    try {
      parseSigningKey(signingKey)
    } catch (error) {
      // The parser's message names the variable, never its value.
      problems.push((error as Error).message)
    }
  }
  for (const name of ['REPO_ACCESS_TOKEN', 'REPO_OWNER', 'REPO_NAME'] as const) {
    if (!blank(source[name])) problems.push(`${name} is not set (the code host's token and the kit's repository; production never uses the stand-in)`)
  }
  return problems
}

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
