/**
 * The express host for Next.js + Payload: `npm run dev` (development) and `npm start` (production,
 * after `npm run build`). It owns what Next does not: production start-up checks, the embedded
 * development database, migrations and plan seeding before the first request, /healthz and
 * /readyz, request body limits, compression and graceful shutdown.
 */
import fs from 'node:fs'
import path from 'node:path'

import { resolvePayloadSecret } from './src/config/env'
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
  // Not in the production bundle: `npm run build:server` defines NODE_ENV as production, so esbuild
  // drops this branch and the stand-ins with it (production refuses to start without the real services).
  if (process.env.NODE_ENV !== 'production') {
    const { startDevelopmentStandIns } = await import('./src/process/development-standins')
    closers.push(...(await startDevelopmentStandIns(env, log)))
  }

  // Migrations, plans and content in a child process: this process never loads the Payload config
  // itself; its one Payload instance is the one Next's routes make (src/instrumentation.ts). Next starts
  // meanwhile (development compiles the instrumentation), and the instrumentation waits for the child.
  log('applying migrations, seeding plans and importing content')
  const { runChild } = await import('./src/process/child')
  const preparing = runChild('prepare-database')
  closers.push({ name: 'database preparation', close: preparing.stop })
  // Awaited below with Next's start; a signal meanwhile returns before that, and its rejection is no failure.
  preparing.done.catch(() => undefined)
  const { publishDatabasePreparation, publishedService } = await import('./src/process/service')
  publishDatabasePreparation(preparing.done)

  if (dev) {
    // PATCH: turbopack-snapshot-delay
    // Turbopack writes its cache (.next/dev/cache, what makes the next start fast) about 2 s after it goes
    // idle: on two cores that was while the admin's first page rendered, after its compile. 15 s later
    // it is written after that page instead (a stop before then keeps no cache of this run).
    process.env.TURBO_ENGINE_SNAPSHOT_IDLE_TIMEOUT_MILLIS ??= '15000'
  }
  const { default: next } = await import('next')
  const { createReadinessCheck } = await import('./src/db/readiness')
  const { createHost, RESTORABLE_PAGES } = await import('./src/server/host')
  const { staffSessionCheck } = await import('./src/http/staff-session')
  const { JOBS_TURN_SECONDS } = await import('./src/jobs/worker')
  const { DIRECT_PATHS } = await import('./src/server/direct')
  const { recordReferralVisit } = await import('./src/affiliates/attribution')
  const { runtimeOf } = await import('./src/config/runtime')
  const { islandsAsset } = await import('./src/server/script-free')
  if (shuttingDown) return
  log(`starting Next.js (${dev ? 'development' : 'production'})`)
  const nextApp = next({ dev, dir: env.rootDir, port: env.port, customServer: true })
  await Promise.all([preparing.done, nextApp.prepare()])
  if (shuttingDown) return
  closers.push({ name: 'next', close: () => nextApp.close() })
  // PATCH: instrumentation-start
  // src/instrumentation.ts makes the Payload instance and starts the jobs worker. Next's development
  // server runs it in prepare(); its production server only on the first request, so ask for it now
  // (the module Next itself uses for it, which runs register() once per process).
  if (!dev) {
    const { ensureInstrumentationRegistered } =
      await import('next/dist/server/lib/router-utils/instrumentation-globals.external.js')
    await ensureInstrumentationRegistered(env.rootDir, '.next')
  }
  const service = publishedService()
  if (!service) throw new Error('Next started without src/instrumentation.ts publishing the service')
  const sanitized = service.payload.config
  if (service.jobsWorker) log(`this process works the jobs queue every ${JOBS_TURN_SECONDS} s`)
  else log('JOBS_WORKER=false: this process does not work the jobs queue (npm run jobs does)')

  const readiness = createReadinessCheck(database.url)
  closers.push({ name: 'readiness pool', close: readiness.close })
  // After the HTTP server has drained: the jobs under way finish (at most 20 s), then the pool closes.
  const { stopJobsWorker } = await import('./src/jobs/lifecycle')
  closers.push({ name: 'payload', close: () => stopJobsWorker(service.payload, { log }) })

  // The public pages' script: built now in development (its sources change as they are edited), by
  // `npm run build:server` for production.
  const islands = islandsAsset(
    dev
      ? await (await import('./scripts/build-islands.mjs')).buildIslands(env.rootDir)
      : await fs.promises.readFile(path.join(env.rootDir, 'dist', 'islands', 'islands.js')),
  )
  const host = createHost({
    handle: nextApp.getRequestHandler(),
    checkDatabase: readiness.check,
    maxBodyBytes: env.maxBodyBytes,
    maxUploadBytes: env.maxUploadBytes,
    // Payload's upload collections (releases, ...): create and update, by staff only, get the upload limit.
    uploads: {
      paths: sanitized.collections
        .filter((collection) => collection.upload)
        .map((collection) => `${sanitized.routes.api}/${collection.slug}`),
      isStaff: staffSessionCheck(sanitized.secret, `${sanitized.cookiePrefix}-token`),
    },
    trustedProxies: env.trustedProxies,
    restorablePages: RESTORABLE_PAGES,
    islands,
    pageCache: {},
    referralVisit: (visit) => recordReferralVisit(service.payload, runtimeOf(service.payload, 'affiliates'), visit),
    // Development's assets change as they are edited: Next serves them itself there.
    ...(dev ? {} : { staticAssets: { urlPath: '/_next/static', dir: path.join(env.rootDir, '.next', 'static') } }),
    // Production: the machine-to-machine hot paths go to Payload's request handling without Next's route
    // layer. Development sends them through Next, whose routes reload the config when it changes.
    ...(dev ? {} : { direct: { paths: DIRECT_PATHS, handle: service.handle, origin: env.serverUrl } }),
  })
  if (dev) {
    const upgrade = nextApp.getUpgradeHandler()
    host.server.on('upgrade', (request, socket, head) => void upgrade(request, socket, head))
  }
  await host.listen(env.port)
  closers.push({ name: 'http server', close: host.close })
  log(`server ready on ${env.serverUrl} (admin: ${env.serverUrl}/admin)`)
}

main().catch((error: unknown) => {
  // A signal during start-up stops what was starting (the database preparation, say): not a failure.
  if (shuttingDown) return
  if (error instanceof Error && error.name === 'EmbeddedPostgresError') fail(`start-up failed: ${error.message}`)
  fail('start-up failed', error)
})
