import { prepareDatabase } from '../src/db/bootstrap'
import { withPayload } from './with-payload'

/** `npm run seed`: migrate, then create missing plans and take price IDs from configuration. */
await withPayload(async (payload, env) => {
  const { seeded: result } = await prepareDatabase(payload, { priceIds: env.priceIds })
  console.info(
    `plans created: ${result?.created.join(', ') || 'none'}; price IDs updated: ${result?.updatedPriceIds.join(', ') || 'none'}; unchanged: ${result?.unchanged.join(', ') || 'none'}`,
  )
})
