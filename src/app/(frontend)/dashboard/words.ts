import type { License, UserSubscription } from '../../../payload-types'

/** A license's status, said to its owner: what it means and what to do. */
export const LICENSE_STATUS_WORDS: Record<License['status'], { label: string; explanation: string }> = {
  active: { label: 'Active', explanation: 'Downloads and updates are open to you.' },
  suspended: {
    label: 'Suspended',
    explanation: 'A payment for it is disputed. It becomes active again if the dispute is resolved in your favour.',
  },
  revoked: {
    label: 'Revoked',
    explanation: 'Its payment was refunded or charged back, or support revoked it. Contact support if you think this is a mistake.',
  },
  expired: { label: 'Expired', explanation: 'The subscription behind it has ended. Subscribe again to download new releases.' },
}

export const SUBSCRIPTION_STATUS_WORDS: Record<UserSubscription['status'], string> = {
  active: 'Active',
  trialing: 'On trial',
  past_due: 'Payment overdue: update your card in the billing portal',
  unpaid: 'Unpaid: update your card in the billing portal',
  canceled: 'Canceled',
  incomplete: 'Waiting for the first payment',
  incomplete_expired: 'Never started (the first payment failed)',
  paused: 'Paused',
}

/** Errors the dashboard's forms come back with, as sentences. */
export const DASHBOARD_ERRORS: Record<string, string> = {
  license_required: 'Downloading the kit needs an active license.',
  version_not_allowed: 'Your license does not include that version.',
  version_not_found: 'No release is available yet.',
  invalid_username: 'That username does not exist on the code host.',
  username_taken: 'That username already has access through another account.',
  username_being_removed: 'That username is being removed from the repository; try again in a minute.',
  rate_limited: 'Too many attempts; please try again in a few minutes.',
  code_host_unavailable: 'The code host is not reachable right now; please try again.',
  plan_required: 'Repository access comes with the Ultimate license.',
}

export const formatDate = (value: string | null | undefined): string =>
  value ? new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }).format(new Date(value)) : ''

/** Amounts are in the currency's minor unit (cents). */
export const formatAmount = (cents: number, currency: string): string =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100)
