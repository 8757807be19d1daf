import type { Payload, TaskConfig } from 'payload'

import { relationId } from '../db/relations'
import { inTransaction, lockKey } from '../db/transaction'
import { syncLicense } from './sync'

const BATCH = 100

/**
 * Licenses whose validity ended with no event to say so (a renewal that never came, a past-due
 * subscription's grace period over) expire. Each one under its subscription's lock, the one the
 * webhook takes, and re-derived from its facts, so a renewal applied meanwhile wins. The status
 * change queues the repository access withdrawal (the licenses' afterChange hook).
 */
const expireLapsedLicenses = async (payload: Payload, graceDays: number, now = new Date()): Promise<number> => {
  const lapsed = await payload.find({
    collection: 'licenses',
    where: {
      and: [
        { status: { equals: 'active' } },
        { validUntil: { less_than_equal: now.toISOString() } },
        { or: [{ override: { not_equals: 'active' } }, { override: { exists: false } }] },
      ],
    },
    sort: 'validUntil',
    limit: BATCH,
    depth: 0,
    pagination: false,
  })
  let expired = 0
  for (const candidate of lapsed.docs) {
    const changed = await inTransaction(payload, async (req) => {
      const subscriptionId = relationId(candidate.subscription)
      if (subscriptionId !== null) {
        const subscription = await payload.findByID({
          collection: 'user_subscriptions',
          id: subscriptionId,
          depth: 0,
          req,
        })
        await lockKey(req, subscription.processorSubscriptionId)
        const fresh = await payload.findByID({ collection: 'user_subscriptions', id: subscriptionId, depth: 0, req })
        const { license, previousStatus } = await syncLicense(
          req,
          { collection: 'user_subscriptions', doc: fresh },
          graceDays,
          now,
        )
        return previousStatus === 'active' && license?.status !== 'active'
      }
      await lockKey(req, `license:${candidate.id}`)
      const license = await payload.findByID({ collection: 'licenses', id: candidate.id, depth: 0, req })
      const stillLapsed =
        license.status === 'active' &&
        license.override !== 'active' &&
        license.validUntil &&
        new Date(license.validUntil) <= now
      if (!stillLapsed) return false
      await payload.update({
        collection: 'licenses',
        id: license.id,
        data: { status: 'expired' },
        req,
        overrideAccess: true,
      })
      return true
    })
    if (changed) expired += 1
  }
  if (expired > 0) payload.logger.info({ msg: 'lapsed licenses expired', count: expired })
  return expired
}

/** Every minute (the jobs worker's schedule), licenses past their validity expire. */
export const expireLapsedLicensesTask = (graceDays: number): TaskConfig<'expireLapsedLicenses'> => ({
  slug: 'expireLapsedLicenses',
  label: 'Expire lapsed licenses',
  inputSchema: [],
  outputSchema: [{ name: 'expired', type: 'number' }],
  schedule: [{ cron: '* * * * *', queue: 'default' }],
  handler: async ({ req }) => ({ output: { expired: await expireLapsedLicenses(req.payload, graceDays) } }),
})
