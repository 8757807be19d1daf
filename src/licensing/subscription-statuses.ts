/** Every subscription status the processor sends; the license rule maps each explicitly. */
export const SUBSCRIPTION_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'canceled',
  'unpaid',
  'incomplete',
  'incomplete_expired',
  'paused',
] as const

export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number]

export const isSubscriptionStatus = (value: unknown): value is SubscriptionStatus =>
  typeof value === 'string' && (SUBSCRIPTION_STATUSES as readonly string[]).includes(value)
