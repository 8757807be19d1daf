import { prepareDatabase } from '../src/db/bootstrap'
import { withPayload } from './with-payload'

/** `npm run migrate`: apply the committed migrations (under the start-up lock), nothing else. */
await withPayload(async (payload, env) => {
  await prepareDatabase(payload, { priceIds: env.priceIds, seed: false })
  console.info('migrations are up to date')
})
