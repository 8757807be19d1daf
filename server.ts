/**
 * The express host for Next.js + Payload: `npm run dev` (development) and `npm start` (production,
 * after `npm run build`). It owns what Next does not: production start-up checks, the embedded
 * development database, migrations and plan seeding before the first request, /healthz and
 * /readyz, request body limits and graceful shutdown.
 */
import { readEnv, resolvePayloadSecret } from './src/config/env'
import { prepareProcess } from './src/process/prepare'

const { dev, env, logger: serverLog, log, fail } = await prepareProcess('server')

type Closer = () => Promise<unknown>
const closers: { name: string; close: Closer }[] = []
let shuttingDown = false

const shutdown = async (signal: string) => {
  if (shuttingDown) return
  shuttingDown = true
  log(`${signal} received: shutting down`)
  // Reverse start order: stop taking requests first, stop the database last.
  for (const { name, close } of closers.reverse()) {
    try {
      await close()
    } catch (error) {
      serverLog.error({ err: error }, `closing ${name} failed`)
    }
  }
  log('server stopped')
  process.exit(0)
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal))

const main = async () => {
  const { resolveDatabase } = await import('./src/db/resolve')
  const database = await resolveDatabase(env, log)
  if (database.embedded) {
    log(`no DATABASE_URL: using the embedded PostgreSQL at ${database.url.replace(/:[^:@/]+@/, ':***@')}`)
    if (!database.embedded.reused) closers.push({ name: 'embedded database', close: database.embedded.stop })
  }
  process.env.PAYLOAD_SECRET ??= resolvePayloadSecret(env)
  if (!env.smtpUrl) log(`no SMTP_URL: emails are written to ${env.dataDir}/outbox`)
  if (!env.payment.secretKey) {
    const { startDevelopmentProcessor } = await import('./src/standins/development')
    const standIn = await startDevelopmentProcessor(env)
    closers.push({ name: 'processor stand-in', close: standIn.close })
    log(`no PAYMENT_SECRET_KEY: checkout runs on the local processor stand-in at ${standIn.url} (no real payments)`)
  }
  if (!env.isProduction && !env.oauth.github.clientId && !env.oauth.google.clientId) {
    const { startDevelopmentOAuth } = await import('./src/standins/development')
    const standIn = await startDevelopmentOAuth(env)
    closers.push({ name: 'oauth stand-in', close: standIn.close })
    log(`no OAuth client credentials: GitHub and Google sign-in use the local OAuth stand-in at ${standIn.url}`)
  }
  if (!env.repo.token) {
    const { startDevelopmentCodeHost } = await import('./src/standins/development')
    const standIn = await startDevelopmentCodeHost(env)
    closers.push({ name: 'code host stand-in', close: standIn.close })
    log(`no REPO_ACCESS_TOKEN: repository invitations go to the local code-host stand-in at ${standIn.url} (accept them there)`)
  }

  // Load the config only now: it reads DATABASE_URL and PAYLOAD_SECRET.
  log('loading the Payload config')
  // One at a time: concurrent dynamic imports of modules that share dependencies can deadlock Node's
  // ESM loader (the import never settles; seen here as a silent exit or a hang in 1 start of 4).
  const { default: config } = await import('./payload.config')
  const { getPayload } = await import('payload')
  const { prepareDatabase, closePayload } = await import('./src/db/bootstrap')
  // A short-lived instance for migrations and seeding; Next's route handlers boot their own.
  log('connecting to the database')
  const bootstrap = await getPayload({ config, key: 'bootstrap' })
  log('applying migrations, seeding plans and importing content')
  try {
    const { describeImport } = await import('./src/content/import')
    const { seeded, content } = await prepareDatabase(bootstrap, {
      // Read again: the development stand-in may have supplied price IDs.
      priceIds: readEnv().priceIds,
      content: env.contentImportOnStart
        ? { root: env.contentDir, onError: (error) => serverLog.error({ err: error }, 'content import skipped') }
        : undefined,
    })
    if (seeded?.created.length) log(`seeded plans: ${seeded.created.join(', ')}`)
    if (seeded?.updatedPriceIds.length) log(`price IDs updated from configuration: ${seeded.updatedPriceIds.join(', ')}`)
    if (content) for (const line of describeImport(content)) log(`content: ${line}`)
  } finally {
    await closePayload(bootstrap)
  }
  if (shuttingDown) return

  // The jobs worker (license emails): its own Payload instance whose cron works the queue, unless
  // JOBS_WORKER=false leaves the queue to a separate `npm run jobs` process (scripts/jobs.ts).
  if (env.jobsWorker) {
    const worker = await getPayload({ config, key: 'jobs', cron: true })
    const { markJobsWorker } = await import('./src/jobs/worker')
    const { stopJobsWorker } = await import('./src/jobs/lifecycle')
    markJobsWorker(worker)
    // Its turn under way finishes first (at most 20 s), then its pool closes.
    closers.push({ name: 'jobs worker', close: () => stopJobsWorker(worker, { log }) })
  } else log('JOBS_WORKER=false: this process does not work the jobs queue (npm run jobs does)')

  const { default: next } = await import('next')
  const { createReadinessCheck } = await import('./src/db/readiness')
  const { createHost } = await import('./src/server/host')
  const { staffSessionCheck } = await import('./src/http/staff-session')
  const sanitized = await config
  log(`starting Next.js (${dev ? 'development' : 'production'})`)
  const nextApp = next({ dev, dir: env.rootDir, port: env.port, customServer: true })
  await nextApp.prepare()
  closers.push({ name: 'next', close: () => nextApp.close() })

  const readiness = createReadinessCheck(database.url)
  closers.push({ name: 'readiness pool', close: readiness.close })
  closers.push({
    name: 'payload',
    close: async () => {
      // The instance Next's route handlers created through getPayload() (Payload caches it globally).
      const cache = (globalThis as { _payload?: Map<string, { payload: Parameters<typeof closePayload>[0] | null }> })
        ._payload
      const payload = cache?.get('default')?.payload
      if (payload) await closePayload(payload)
    },
  })

  const host = createHost({
    handle: nextApp.getRequestHandler(),
    checkDatabase: readiness.check,
    maxBodyBytes: env.maxBodyBytes,
    maxUploadBytes: env.maxUploadBytes,
    // Payload's upload collections (releases, ...): create and update, by staff only, get the upload limit.
    uploads: {
      paths: sanitized.collections.filter((collection) => collection.upload).map((collection) => `${sanitized.routes.api}/${collection.slug}`),
      isStaff: staffSessionCheck(sanitized.secret, `${sanitized.cookiePrefix}-token`),
    },
    trustedProxies: env.trustedProxies,
  })
  if (dev) host.server.on('upgrade', nextApp.getUpgradeHandler())
  await host.listen(env.port)
  closers.push({ name: 'http server', close: host.close })
  log(`server ready on ${env.serverUrl} (admin: ${env.serverUrl}/admin)`)
}

main().catch((error: unknown) => {
  if (error instanceof Error && error.name === 'EmbeddedPostgresError') fail(`start-up failed: ${error.message}`)
  fail('start-up failed', error)
})
