import type { Payload, PayloadRequest } from 'payload'

import { type ConfiguredPriceIds, definePlans, type PlanDefinition } from './catalog'

export type SeedResult = { created: string[]; updatedPriceIds: string[]; unchanged: string[] }

const toData = (plan: PlanDefinition) => ({
  ...plan,
  features: plan.features.map((text) => ({ text })),
})

/**
 * Make the configured plans exist. Idempotent: a plan that exists keeps what staff edited; only
 * its price IDs (the renewal's too) follow configuration, since PUBLIC_PRICE_ID_* is where they are managed (a switch
 * from test to live keys changes them). A configured value never overwrites with nothing.
 */
export const seedPlans = async (
  payload: Payload,
  priceIds: ConfiguredPriceIds,
  req?: Partial<PayloadRequest>,
): Promise<SeedResult> => {
  const result: SeedResult = { created: [], updatedPriceIds: [], unchanged: [] }
  for (const plan of definePlans(priceIds)) {
    const existing = (
      await payload.find({ collection: 'plans', where: { slug: { equals: plan.slug } }, limit: 1, depth: 0, req })
    ).docs[0]
    if (!existing) {
      await payload.create({ collection: 'plans', data: toData(plan), req })
      result.created.push(plan.slug)
      continue
    }
    const wanted = {
      monthly: plan.priceIds.monthly ?? existing.priceIds?.monthly ?? null,
      yearly: plan.priceIds.yearly ?? existing.priceIds?.yearly ?? null,
    }
    const renewalPriceId = plan.renewalPriceId ?? existing.renewalPriceId ?? null
    if (
      wanted.monthly !== (existing.priceIds?.monthly ?? null) ||
      wanted.yearly !== (existing.priceIds?.yearly ?? null) ||
      renewalPriceId !== (existing.renewalPriceId ?? null)
    ) {
      await payload.update({ collection: 'plans', id: existing.id, data: { priceIds: wanted, renewalPriceId }, req })
      result.updatedPriceIds.push(plan.slug)
    } else {
      result.unchanged.push(plan.slug)
    }
  }
  return result
}
