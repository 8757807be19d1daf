import type { Migration, Payload } from 'payload'

import { migrations } from '../../migrations'
import type { ConfiguredPriceIds } from '../plans/catalog'
import { seedPlans, type SeedResult } from '../plans/seed'

/** Any constant works; it only has to be the same for every instance of this service. */
const BOOTSTRAP_LOCK_KEY = 7_301_943_112

/**
 * Run `work` while holding the start-up lock, a PostgreSQL advisory lock: instances that start
 * together (and command-line tasks such as the content import) take turns.
 */
export const withBootstrapLock = async <T>(payload: Payload, work: () => Promise<T>): Promise<T> => {
  const client = await payload.db.pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [BOOTSTRAP_LOCK_KEY])
    return await work()
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [BOOTSTRAP_LOCK_KEY]).catch(() => undefined)
    client.release()
  }
}

export type PreparedDatabase<Content> = { seeded: SeedResult | null; content: Content | null }

/**
 * Bring a database up to date under the start-up lock, so each step runs once however many
 * instances start together: apply the committed migrations, seed the plans, then run the caller's
 * content step when given (the MDX import: scripts/prepare-database.ts passes it, so db/ knows no
 * content). A failing content step does not stop the start: it is skipped and `onError` says why
 * (`npm run content:import` fails on invalid sources).
 */
export const prepareDatabase = async <Content = never>(
  payload: Payload,
  options: {
    priceIds: ConfiguredPriceIds
    seed?: boolean
    content?: { run: () => Promise<Content>; onError: (error: Error) => void }
  },
): Promise<PreparedDatabase<Content>> =>
  withBootstrapLock(payload, async () => {
    // The generated index types its entries with the adapter's argument types; Payload's are wider.
    await payload.db.migrate({ migrations: migrations as unknown as Migration[] })
    const seeded = options.seed === false ? null : await seedPlans(payload, options.priceIds)
    let content: Content | null = null
    if (options.content) {
      try {
        content = await options.content.run()
      } catch (error) {
        options.content.onError(error as Error)
      }
    }
    return { seeded, content }
  })

// Kept here too for the callers that prepare and close a database in one place.
export { closePayload } from './close'
