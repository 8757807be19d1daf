import { unstable_cache } from 'next/cache'

import { ERROR_SENTENCES } from '../../../http/error-sentences'
import type { Plan } from '../../../payload-types'
import { PLANS_TAG } from '../../../plans/revalidate'
import { currentUser, getPayloadClient } from '../../_lib/session'

/** The human sentence for each code a failed checkout comes back with: the service's own, said about checkout. */
export const CHECKOUT_ERRORS: Record<string, string> = {
  ...ERROR_SENTENCES,
  rate_limited: 'Too many checkout attempts from here. Please wait a few minutes and try again.',
}

/**
 * The active plans in order, as anyone may read them, in Next's cache under PLANS_TAG: a changed plan
 * expires it at once on the instance that saved it (the collection's hooks, src/plans/revalidate.ts),
 * and `revalidate: 60` bounds how stale another instance's copy may be. A checkout always reads the
 * plan from the database, never from here.
 */
const activePlans = unstable_cache(
  async (): Promise<Plan[]> => {
    const { docs } = await (await getPayloadClient()).find({
      collection: 'plans',
      where: { active: { equals: true } },
      sort: 'order',
      limit: 20,
      depth: 0,
      pagination: false,
      overrideAccess: false,
    })
    return docs
  },
  ['catalog:plans:active'],
  { tags: [PLANS_TAG], revalidate: 60 },
)

/** What a pricing table needs: the active plans in order, and which of them the visitor already owns. */
export const loadPricing = async (): Promise<{ plans: Plan[]; ownedPlanIds: Set<number>; signedIn: boolean }> => {
  const [user, plans] = await Promise.all([currentUser(), activePlans()])
  const payload = await getPayloadClient()
  const ownedPlanIds = new Set<number>()
  if (user) {
    const { docs: licenses } = await payload.find({
      collection: 'licenses',
      where: { and: [{ user: { equals: user.id } }, { status: { equals: 'active' } }] },
      select: { plan: true },
      limit: 50,
      depth: 0,
      pagination: false,
      overrideAccess: true,
    })
    for (const license of licenses) ownedPlanIds.add(typeof license.plan === 'object' ? license.plan.id : license.plan)
  }
  return { plans, ownedPlanIds, signedIn: user !== null }
}
