/**
 * The server's start-up preparation, run by server.ts as a child process before Next starts: apply the
 * migrations, seed the plans and import the MDX content (the step it hands to prepareDatabase), under
 * the start-up lock (src/db/bootstrap.ts).
 * A child of its own so that the server process never loads this Payload config and its importer: the
 * one Payload instance of the server is the one Next's routes use (src/instrumentation.ts). It takes
 * the server's environment (DATABASE_URL and PAYLOAD_SECRET already resolved); exit 0 when the database
 * is ready, 1 otherwise.
 */
import { prepareProcess } from '../src/process/prepare'
import { withoutStartupTypes } from '../src/process/startup-types'

const { dev, env, logger, log, fail } = await prepareProcess('prepare')

const main = async () => {
  // PATCH: esm-tla-deadlock
  // One at a time: concurrent dynamic imports can deadlock Node's ESM loader (docs/STARTUP.md).
  const { default: config } = await import('../payload.config')
  const { getPayload } = await import('payload')
  const { prepareDatabase, closePayload } = await import('../src/db/bootstrap')
  const { describeImport, importContent } = await import('../src/content/import')
  // Development generates no types here: the server's own instance does that (src/process/startup-types.ts).
  const payload = await getPayload({ config: dev ? withoutStartupTypes(config) : config, key: 'prepare' })
  try {
    const { seeded, content } = await prepareDatabase(payload, {
      priceIds: env.priceIds,
      content: env.contentImportOnStart
        ? {
            run: () => importContent(payload, { root: env.contentDir }),
            onError: (error) => logger.error({ err: error }, 'content import skipped'),
          }
        : undefined,
    })
    if (seeded?.created.length) log(`seeded plans: ${seeded.created.join(', ')}`)
    if (seeded?.updatedPriceIds.length)
      log(`price IDs updated from configuration: ${seeded.updatedPriceIds.join(', ')}`)
    if (content) for (const line of describeImport(content)) log(`content: ${line}`)
  } finally {
    await closePayload(payload)
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => fail('preparing the database failed', error),
)
