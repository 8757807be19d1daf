import type { OptionObject } from 'payload'

import { FEATURE_KEYS, FEATURE_LABELS } from '../src/plans/features'

/**
 * Select options with a label staff read: the value is stored data (and an API's vocabulary), so it
 * never changes; the label says what it means. `labels` names every value, or the compiler says which is missing.
 */
export const labelled = <V extends string>(values: readonly V[], labels: Record<V, string>): OptionObject[] =>
  values.map((value) => ({ label: labels[value], value }))

const DISPUTE_STATUSES = ['none', 'open', 'won', 'lost'] as const

/** A chargeback's state, on purchases, payments and subscriptions alike. */
export const disputeOptions = labelled(DISPUTE_STATUSES, {
  none: 'No chargeback',
  open: 'Chargeback open',
  won: 'Chargeback won',
  lost: 'Chargeback lost',
})

/** Feature keys as plans grant them and premium posts require them: the key stays visible, it is what the code checks. */
export const featureOptions = labelled(
  FEATURE_KEYS,
  Object.fromEntries(FEATURE_KEYS.map((key) => [key, `${FEATURE_LABELS[key]} (${key})`])) as Record<
    (typeof FEATURE_KEYS)[number],
    string
  >,
)

/** The admin's navigation groups, in the words support uses. */
export const GROUPS = {
  customers: 'Customers',
  sales: 'Sales',
  licenses: 'Licenses',
  delivery: 'Delivery',
  support: 'Support',
  integrations: 'Integrations',
  content: 'Content',
  system: 'System',
} as const
