import { currentUser, getPayloadClient } from '../../../auth/session'
import type { Plan } from '../../../payload-types'

/** The human sentence for each code a failed checkout comes back with. */
export const CHECKOUT_ERRORS: Record<string, string> = {
  unknown_price: 'That plan is not for sale right now.',
  processor_mode_mismatch: 'That plan is misconfigured (test and live prices mixed). Please tell us.',
  processor_unavailable: 'The payment processor is not reachable right now. Please try again in a minute.',
  processor_not_configured: 'Payments are not configured on this server.',
  invalid_request: 'Something was wrong with that request. Please try again.',
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
