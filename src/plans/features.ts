/**
 * The feature keys: the one list that plans, entitlement checks and access rules share.
 * Adding a key here adds it to the plans' `featureAccess` options (and needs a migration).
 */
export const FEATURE_KEYS = ['basic', 'templates', 'support', 'api', 'analytics', 'custom_domain', 'advanced'] as const

export type FeatureKey = (typeof FEATURE_KEYS)[number]

export const FEATURE_LABELS: Record<FeatureKey, string> = {
  basic: 'Basic app access',
  templates: 'Template library',
  support: 'Priority support',
  api: 'API access',
  analytics: 'Advanced analytics',
  custom_domain: 'Custom domain support',
  advanced: 'Subscriber-only features',
}

export const isFeatureKey = (value: unknown): value is FeatureKey =>
  typeof value === 'string' && (FEATURE_KEYS as readonly string[]).includes(value)
