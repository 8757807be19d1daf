import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { postgresAdapter } from '@payloadcms/db-postgres'
import { lexicalEditor } from '@payloadcms/richtext-lexical'
import { revalidateTag } from 'next/cache'
import { buildConfig } from 'payload'

import { accountsPlugin } from './plugins/accounts'
import { affiliatesPlugin } from './plugins/affiliates'
import { billingPlugin } from './plugins/billing'
import { catalogPlugin } from './plugins/catalog'
import { communityPlugin } from './plugins/community'
import { contentPlugin } from './plugins/content'
import { deliveryPlugin } from './plugins/delivery'
import { jobsPlugin } from './plugins/jobs'
import { licensingPlugin } from './plugins/licensing'
import { privacyPlugin } from './plugins/privacy'
import { recoveryPlugin } from './plugins/recovery'
import { staffPlugin } from './plugins/staff'
import { supportPlugin } from './plugins/support'
import { teamsPlugin } from './plugins/teams'
import { webhooksPlugin } from './plugins/webhooks'
import { restrictPayloadCollections } from './src/access/payload-collections'
import { readEnv, resolvePayloadSecret } from './src/config/env'
import { PRODUCT_NAME } from './src/config/product'
import { lazySharp } from './src/content/sharp'
import { embeddedDatabaseUrl } from './src/db/embedded'
import { guardedPg } from './src/db/pool-errors'
import { EMBEDDED_DATABASE_NAME } from './src/db/resolve'
import { createEmailAdapter } from './src/email/adapter'
import { serviceErrorResponse } from './src/http/payload-errors'
import { isJobsWorker, JOBS_TURN_LIMIT, JOBS_TURN_SECONDS } from './src/jobs/worker'
import { logger } from './src/log'
import { WEBHOOKS_QUEUE } from './src/webhooks/events'

// Our 4xx ServiceErrors are named ClientError (src/http/errors.ts), a name Payload's type does not list.
const CLIENT_ERROR_LOGGING: Record<string, 'info'> = { ClientError: 'info' }

const dirname = path.dirname(fileURLToPath(import.meta.url))
const env = readEnv()
// Production start-up refuses to run without PAYLOAD_SECRET (server.ts); `next build` needs none.
const secret = env.payloadSecret ?? (env.isProduction ? '' : resolvePayloadSecret(env))

// Payload's own collections (jobs, migrations, locks, preferences) get explicit access once sanitizing added them.
export default buildConfig({
  serverURL: env.serverUrl,
  secret,
  admin: {
    user: 'users',
    // No Gravatar: the admin works offline and does not leak staff emails to a third party.
    avatar: 'default',
    importMap: { baseDir: path.resolve(dirname, 'src') },
    meta: { titleSuffix: ` | ${PRODUCT_NAME}` },
  },
  db: postgresAdapter({
    // Each instance's pool logs a lost connection (a database restart) instead of crashing the process.
    pg: guardedPg,
    pool: {
      connectionString: env.databaseUrl ?? embeddedDatabaseUrl(env.embeddedPostgresPort, EMBEDDED_DATABASE_NAME),
      max: env.databasePoolMax,
    },
    // Every database, development included, is shaped by the committed migrations only.
    push: false,
    migrationDir: path.resolve(dirname, 'migrations'),
    // Tables the service owns outside Payload's schema (created by hand-written migrations).
    tablesFilter: ['!rate_limits'],
    // `npm run generate:db-schema` writes the drizzle tables raw SQL is written against (docs/DATABASE.md).
    generateSchemaOutputFile: path.resolve(dirname, 'src/db/schema.generated.ts'),
  }),
  editor: lexicalEditor(),
  // Resizes uploaded images (blog covers) into the media collection's sizes; sharp loads on first use.
  sharp: lazySharp,
  email: createEmailAdapter(env),
  cors: [env.serverUrl],
  csrf: [env.serverUrl],
  telemetry: false,
  hooks: { afterError: [serviceErrorResponse] },
  upload: { limits: { fileSize: env.maxUploadBytes } },
  // The process's logger (src/log.ts): JSON in production, each line inside a request carrying its id.
  logger: logger.child({ name: 'payload' }),
  // A wrong password, a locked account or any 4xx ServiceError is the client's mistake, not an error of the service.
  loggingLevels: {
    AuthenticationError: 'info',
    LockedAuth: 'info',
    UnverifiedEmail: 'info',
    APIError: 'warn',
    ...CLIENT_ERROR_LOGGING,
  },
  jobs: {
    // The process's jobs worker works the queue every 2 seconds, up to 20 jobs a turn (10 a second): a
    // sign-in link arrives within seconds, and a burst of purchases' license emails drains in minutes.
    // An idle turn is one claim query. Tests run the queue explicitly.
    // Webhook deliveries have their own queue and turn: a receiver slow to answer (up to its 10 s
    // timeout) never holds up the emails.
    autoRun: [
      { cron: `*/${JOBS_TURN_SECONDS} * * * * *`, queue: 'default', limit: JOBS_TURN_LIMIT },
      {
        cron: `*/${JOBS_TURN_SECONDS} * * * * *`,
        queue: WEBHOOKS_QUEUE,
        limit: JOBS_TURN_LIMIT,
        disableScheduling: true,
      },
    ],
    shouldAutoRun: (payload) => process.env.NODE_ENV !== 'test' && isJobsWorker(payload),
    access: {
      run: ({ req }) => Boolean(req.user?.roles?.includes('admin')),
      queue: () => false,
      cancel: ({ req }) => Boolean(req.user?.roles?.includes('admin')),
    },
  },
  typescript: { outputFile: path.resolve(dirname, 'src/payload-types.ts') },
  plugins: [
    accountsPlugin({
      secureCookies: env.isProduction,
      maxLoginAttempts: 5,
      lockTimeMs: 15 * 60 * 1000,
      serverUrl: env.serverUrl,
      productName: PRODUCT_NAME,
      retryDelayMs: env.jobsRetryDelayMs,
      oauth: {
        serverUrl: env.serverUrl,
        secret,
        secureCookies: env.isProduction,
        ...(env.oauth.github.clientId && env.oauth.github.clientSecret
          ? {
              github: {
                ...env.oauth.github,
                clientId: env.oauth.github.clientId,
                clientSecret: env.oauth.github.clientSecret,
              },
            }
          : {}),
        ...(env.oauth.google.clientId && env.oauth.google.clientSecret
          ? {
              google: {
                ...env.oauth.google,
                clientId: env.oauth.google.clientId,
                clientSecret: env.oauth.google.clientSecret,
              },
            }
          : {}),
      },
    }),
    // A changed plan expires the pricing table's cached plans (as contentPlugin's revalidate below).
    catalogPlugin({ revalidate: (tag) => revalidateTag(tag, { expire: 0 }) }),
    licensingPlugin({
      productName: PRODUCT_NAME,
      serverUrl: env.serverUrl,
      retryDelayMs: env.jobsRetryDelayMs,
      graceDays: env.subscriptionGraceDays,
      signingKey: {
        configured: env.licenseSigningKey,
        generatedFile: path.join(env.dataDir, 'license-signing-key.pem'),
        isProduction: env.isProduction,
        issuer: env.serverUrl,
      },
    }),
    deliveryPlugin({
      serverUrl: env.serverUrl,
      secret,
      releasesDir: env.releasesDir,
      templatesDir: env.templatesDir,
      downloadUrlTtlSeconds: env.downloadUrlTtlSeconds,
      s3: env.s3.bucket ? { ...env.s3, bucket: env.s3.bucket } : null,
      codeHost:
        env.repo.token && env.repo.owner && env.repo.name
          ? {
              token: env.repo.token,
              owner: env.repo.owner,
              repo: env.repo.name,
              apiUrl: env.repo.apiUrl,
              timeoutMs: env.repo.timeoutMs,
            }
          : null,
      retryDelayMs: env.jobsRetryDelayMs,
    }),
    billingPlugin({
      secretKey: env.payment.secretKey,
      webhookSecret: env.payment.webhookSecret,
      apiUrl: env.payment.apiUrl,
      timeoutMs: env.payment.timeoutMs,
      serverUrl: env.serverUrl,
      graceDays: env.subscriptionGraceDays,
      taxes: {
        automaticTax: env.payment.automaticTax,
        taxIdCollection: env.payment.taxIdCollection,
        invoices: env.payment.invoices,
      },
      recovery: env.recovery,
      productName: PRODUCT_NAME,
      retryDelayMs: env.jobsRetryDelayMs,
    }),
    // After billing: it hooks the payments collection, and the webhook records the referred sales.
    affiliatesPlugin({
      settings: env.affiliates,
      serverUrl: env.serverUrl,
      productName: PRODUCT_NAME,
      retryDelayMs: env.jobsRetryDelayMs,
    }),
    // After billing: the billing webhook records the expired checkouts this plugin emails about.
    recoveryPlugin({
      settings: env.recovery,
      serverUrl: env.serverUrl,
      productName: PRODUCT_NAME,
      retryDelayMs: env.jobsRetryDelayMs,
    }),
    contentPlugin({
      serverUrl: env.serverUrl,
      productName: PRODUCT_NAME,
      mediaDir: env.mediaDir,
      s3: env.s3.bucket ? { ...env.s3, bucket: env.s3.bucket } : null,
      // Expire Next's cache of the site's pages (only inside Next's request handling; elsewhere this
      // throws and src/content/revalidate.ts logs it): the content domain itself never imports Next.
      revalidate: (tag) => revalidateTag(tag, { expire: 0 }),
    }),
    supportPlugin({ productName: PRODUCT_NAME, serverUrl: env.serverUrl, retryDelayMs: env.jobsRetryDelayMs }),
    // After licensing: its endpoints sit on the licenses collection.
    teamsPlugin({ productName: PRODUCT_NAME, serverUrl: env.serverUrl }),
    // After licensing: it hooks the licenses collection.
    communityPlugin({
      discord: env.discord,
      serverUrl: env.serverUrl,
      productName: PRODUCT_NAME,
      secret,
      retryDelayMs: env.jobsRetryDelayMs,
    }),
    // After delivery: its support actions use the code host.
    staffPlugin(),
    // After billing and delivery: the erasure deletes the processor's customer and withdraws repository access.
    privacyPlugin({ graceDays: env.accountDeletionGraceDays, serverUrl: env.serverUrl, productName: PRODUCT_NAME }),
    // After billing, licensing and teams: it hooks their collections.
    webhooksPlugin({ ...env.webhooks, productName: PRODUCT_NAME, serverUrl: env.serverUrl }),
    jobsPlugin(),
  ],
}).then(restrictPayloadCollections)
