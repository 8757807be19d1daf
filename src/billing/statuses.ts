// The statuses live in licensing, whose license rule maps each; collections/UserSubscriptions.ts reads them here.
export { isSubscriptionStatus, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../licensing/subscription-statuses'
