import type { FeatureKey } from '../plans/features'

/** The feature key that makes a customer's requests high priority (and opens the dashboard's form). */
export const SUPPORT_FEATURE: FeatureKey = 'support'
