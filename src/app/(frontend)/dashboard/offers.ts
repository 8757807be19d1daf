import type { Payload, PayloadRequest } from 'payload'

import { publishedReleases } from '../../../billing/license-credit'
import { quoteUpgrade } from '../../../billing/license-upgrades'
import { billingRuntimeOf, type ConfiguredBilling } from '../../../billing/runtime'
import { ServiceError } from '../../../http/errors'
import { windowOfLicense } from '../../../licensing/store'
import { renewalOpensSomething } from '../../../licensing/update-window'
import type { License, Plan, User } from '../../../payload-types'
import { formatMinorAmount } from '../../../plans/format'

/**
 * What a customer's licenses can change into, for the dashboard and the pricing table: the upgrades of
 * a one-time license to a higher one-time plan (each priced by src/billing/license-upgrades.ts, as its
 * checkout would charge) and the renewals of updates. The pages only offer; the server actions and the
 * webhook check everything again.
 */

export type UpgradeOffer = {
  licenseId: number
  /** The license's plan now. */
  fromName: string
  to: Pick<Plan, 'id' | 'slug' | 'name'>
  /** What the checkout charges, and what the license has already paid that counts, in minor units. */
  amount: number
  credit: number
  currency: string
}

/** An amount in minor units as the pricing table writes prices ("$100", "$99.50", "¥1,500"). */
export const formatMinor = (amount: number, currency: string): string => formatMinorAmount(amount, currency)

/** "Upgrade to Ultimate for $100": the button's words. */
export const upgradeLabel = (offer: UpgradeOffer): string =>
  offer.amount === 0
    ? `Upgrade to ${offer.to.name} at no cost`
    : `Upgrade to ${offer.to.name} for ${formatMinor(offer.amount, offer.currency)}`

/** The processor, or null when payments are not configured here (then nothing is offered). */
const configuredBilling = (payload: Payload): ConfiguredBilling | null => {
  try {
    return billingRuntimeOf(payload).require()
  } catch {
    return null
  }
}

export type Held = {
  license: Pick<License, 'id' | 'source' | 'status' | 'updatePolicy' | 'updatesMajor' | 'updatesUntil'>
  plan: Plan | null
}

/** quoteUpgrade's own first check: an active license bought with a one-time payment, of a paid one-time plan. */
const upgradable = ({ license, plan }: Held): boolean =>
  license.source === 'one_time_purchase' &&
  license.status === 'active' &&
  plan !== null &&
  !plan.isFree &&
  plan.billing === 'lifetime'

/** The one-time plans on sale above `current`, lowest first (`plans` in the pricing order). */
const targetsAbove = (current: Plan, plans: Plan[]): Plan[] =>
  plans.filter(
    (plan) =>
      plan.active !== false &&
      !plan.isFree &&
      plan.billing === 'lifetime' &&
      Boolean(plan.priceIds?.monthly) &&
      (plan.order ?? 0) > (current.order ?? 0),
  )

/**
 * Every upgrade the held licenses can have, quoted in parallel; a quote the service refuses, or that
 * fails, offers nothing. A plan the customer already holds an active license of is not offered. The
 * plans on sale (`plans`, in the pricing order) are read only when a license can be upgraded at all.
 */
export const upgradeOffers = async (
  req: PayloadRequest,
  user: User,
  held: Held[],
  plans: () => Promise<Plan[]>,
): Promise<UpgradeOffer[]> => {
  const eligible = held.filter(upgradable)
  if (eligible.length === 0) return []
  const billing = configuredBilling(req.payload)
  if (!billing) return []
  const holding = new Set(
    held.filter(({ license, plan }) => license.status === 'active' && plan).map(({ plan }) => plan!.id),
  )
  const onSale = (await plans()).filter((plan) => !holding.has(plan.id))
  const pairs = eligible.flatMap(({ license, plan }) =>
    targetsAbove(plan!, onSale).map((target) => ({ license, from: plan!, target })),
  )
  const offers = await Promise.all(
    pairs.map(async ({ license, from, target }): Promise<UpgradeOffer | null> => {
      try {
        const quote = await quoteUpgrade(req, billing, user, license.id, target.slug)
        return {
          licenseId: license.id,
          fromName: from.name,
          to: { id: target.id, slug: target.slug, name: target.name },
          amount: quote.amount,
          credit: quote.credit,
          currency: quote.currency,
        }
      } catch (error) {
        if (!(error instanceof ServiceError)) req.payload.logger.warn({ err: error }, 'upgrade quote failed')
        return null
      }
    }),
  )
  return offers.filter((offer): offer is UpgradeOffer => offer !== null)
}

/**
 * The licenses whose updates can be renewed now (startRenewal's rule): active, of a plan that sells
 * renewals, with a published stable release outside the window. One query, only when a plan sells renewals.
 */
export const renewableLicenses = async (req: PayloadRequest, held: Held[]): Promise<Set<number>> => {
  const candidates = held.filter(({ license, plan }) => license.status === 'active' && Boolean(plan?.renewalPriceId))
  if (candidates.length === 0 || !configuredBilling(req.payload)) return new Set()
  const releases = await publishedReleases(req, new Date())
  return new Set(
    candidates
      .filter(({ license }) => renewalOpensSomething(windowOfLicense(license), releases))
      .map(({ license }) => license.id),
  )
}
