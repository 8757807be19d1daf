import { unstable_cache } from 'next/cache'
import { createLocalReq } from 'payload'

import { relationId } from '../../../db/relations'
import type { Plan } from '../../../payload-types'
import { PLANS_TAG } from '../../../plans/revalidate'
import { currentUser, getPayloadClient } from '../../_lib/session'
import { formatMinor, type UpgradeOffer, upgradeLabel, upgradeOffers } from '../dashboard/offers'

/**
 * The active plans in order, as anyone may read them, in Next's cache under PLANS_TAG: a changed plan
 * expires it at once on the instance that saved it (the collection's hooks, src/plans/revalidate.ts),
 * and `revalidate: 60` bounds how stale another instance's copy may be. A checkout always reads the
 * plan from the database, never from here.
 */
export const activePlans = unstable_cache(
  async (): Promise<Plan[]> => {
    const { docs } = await (
      await getPayloadClient()
    ).find({
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

/** A signed-in visitor's upgrade of a one-time license to a higher plan, as the pricing island shows it. */
type VisitorUpgrade = { planId: number; licenseId: number; toSlug: string; label: string; note: string | null }
export type VisitorPricingState = { signedIn: boolean; ownedPlanIds: number[]; upgrades: VisitorUpgrade[] }

/**
 * The signed-in visitor's side of a pricing table (GET /pricing/visitor): which plans they hold an
 * active license of, and for a one-time license below a higher one-time plan, that plan's upgrade (by
 * plan; the cheapest when several licenses could make it), priced as its checkout would charge.
 */
export const loadVisitorPricing = async (): Promise<VisitorPricingState> => {
  const user = await currentUser()
  if (!user) return { signedIn: false, ownedPlanIds: [], upgrades: [] }
  const [plans, payload] = await Promise.all([activePlans(), getPayloadClient()])
  const { docs: licenses } = await payload.find({
    collection: 'licenses',
    where: { and: [{ user: { equals: user.id } }, { status: { equals: 'active' } }] },
    select: {
      plan: true,
      source: true,
      status: true,
      updatePolicy: true,
      updatesMajor: true,
      updatesUntil: true,
      seats: true,
    },
    limit: 50,
    depth: 0,
    pagination: false,
    overrideAccess: true,
  })
  const ownedPlanIds = new Set<number>(licenses.map((license) => relationId(license.plan)!).filter((id) => id !== null))
  const upgrades = new Map<number, UpgradeOffer>()
  // The license's plan from the plans on sale: a license of a retired plan is offered its upgrades on the dashboard.
  const held = licenses.map((license) => ({
    license,
    plan: plans.find((plan) => plan.id === relationId(license.plan)) ?? null,
  }))
  if (held.some(({ license }) => license.source === 'one_time_purchase')) {
    const req = await createLocalReq({ user: { ...user, collection: 'users' } }, payload)
    for (const offer of await upgradeOffers(req, user, held, () => Promise.resolve(plans))) {
      const known = upgrades.get(offer.to.id)
      if (!known || offer.amount < known.amount) upgrades.set(offer.to.id, offer)
    }
  }
  return {
    signedIn: true,
    ownedPlanIds: [...ownedPlanIds],
    upgrades: [...upgrades.values()].map((offer) => ({
      planId: offer.to.id,
      licenseId: offer.licenseId,
      toSlug: offer.to.slug,
      label: upgradeLabel(offer),
      note:
        offer.credit > 0
          ? `The ${formatMinor(offer.credit, offer.currency)} paid for your ${offer.fromName} license counts towards it.`
          : null,
    })),
  }
}
