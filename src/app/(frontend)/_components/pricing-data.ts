import { unstable_cache } from 'next/cache'
import { createLocalReq } from 'payload'

import { relationId } from '../../../db/relations'
import { ERROR_SENTENCES } from '../../../http/error-sentences'
import type { Plan } from '../../../payload-types'
import { PLANS_TAG } from '../../../plans/revalidate'
import { currentUser, getPayloadClient } from '../../_lib/session'
import { type UpgradeOffer, upgradeOffers } from '../dashboard/offers'

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
export const activePlans = unstable_cache(
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

/**
 * What a pricing table needs: the active plans in order, which of them the visitor already owns, and
 * for a visitor with a one-time license below a higher one-time plan, that plan's upgrade (by plan id;
 * the cheapest when several licenses could make it), priced as its checkout would charge.
 */
export const loadPricing = async (): Promise<{ plans: Plan[]; ownedPlanIds: Set<number>; signedIn: boolean; upgrades: Map<number, UpgradeOffer> }> => {
  const [user, plans] = await Promise.all([currentUser(), activePlans()])
  const payload = await getPayloadClient()
  const ownedPlanIds = new Set<number>()
  const upgrades = new Map<number, UpgradeOffer>()
  if (user) {
    const { docs: licenses } = await payload.find({
      collection: 'licenses',
      where: { and: [{ user: { equals: user.id } }, { status: { equals: 'active' } }] },
      select: { plan: true, source: true, status: true, updatePolicy: true, updatesMajor: true, updatesUntil: true },
      limit: 50,
      depth: 0,
      pagination: false,
      overrideAccess: true,
    })
    for (const license of licenses) ownedPlanIds.add(typeof license.plan === 'object' ? license.plan.id : license.plan)
    // The license's plan from the plans on sale: a license of a retired plan is offered its upgrades on the dashboard.
    const held = licenses.map((license) => ({ license, plan: plans.find((plan) => plan.id === relationId(license.plan)) ?? null }))
    if (held.some(({ license }) => license.source === 'one_time_purchase')) {
      const req = await createLocalReq({ user: { ...user, collection: 'users' } }, payload)
      for (const offer of await upgradeOffers(req, user, held, async () => plans)) {
        const known = upgrades.get(offer.to.id)
        if (!known || offer.amount < known.amount) upgrades.set(offer.to.id, offer)
      }
    }
  }
  return { plans, ownedPlanIds, signedIn: user !== null, upgrades }
}
