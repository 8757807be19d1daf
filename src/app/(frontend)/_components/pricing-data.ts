import { ERROR_SENTENCES } from '../../../http/error-sentences'
import type { Plan } from '../../../payload-types'
import { currentUser, getPayloadClient } from '../../_lib/session'

/** The human sentence for each code a failed checkout comes back with: the service's own, said about checkout. */
export const CHECKOUT_ERRORS: Record<string, string> = {
  ...ERROR_SENTENCES,
  rate_limited: 'Too many checkout attempts from here. Please wait a few minutes and try again.',
}

/** What a pricing table needs: the active plans in order, and which of them the visitor already owns. */
export const loadPricing = async (): Promise<{ plans: Plan[]; ownedPlanIds: Set<number>; signedIn: boolean }> => {
  const payload = await getPayloadClient()
  const user = await currentUser()
  const { docs: plans } = await payload.find({
    collection: 'plans',
    where: { active: { equals: true } },
    sort: 'order',
    limit: 20,
    depth: 0,
    pagination: false,
    overrideAccess: false,
  })
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
