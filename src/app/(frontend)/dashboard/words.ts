import type { License, SupportRequest, Template, UserSubscription } from '../../../payload-types'
import { formatMinorAmount } from '../../../plans/format'

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

/** A support request's status, said to the customer who filed it. */
export const SUPPORT_STATUS_WORDS: Record<SupportRequest['status'], string> = {
  open: 'Open: support answers by email',
  answered: 'Answered: the reply is below and in your email',
  closed: 'Closed: open a new request if you need more help',
}

export const TEMPLATE_CATEGORY_WORDS: Record<Template['category'], string> = {
  dashboard: 'Dashboard',
  marketing: 'Marketing pages',
  auth: 'Sign-in and sign-up',
  billing: 'Billing',
  email: 'Email',
}

export const formatDate = (value: string | null | undefined): string =>
  value ? new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }).format(new Date(value)) : ''

/** Amounts are in the currency's minor unit (cents, or none for yen): "$149.00", "¥1,500". */
export const formatAmount = (amount: number, currency: string): string => formatMinorAmount(amount, currency, { keepZeros: true })
