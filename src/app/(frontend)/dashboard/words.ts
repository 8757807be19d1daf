import type { License, SupportRequest, Template, UserSubscription } from '../../../payload-types'
import { formatMinorAmount } from '../../../plans/format'
import type { ManagedLicense } from './data'

/** A license's status, said to its owner: what it means and what to do. */
export const LICENSE_STATUS_WORDS: Record<License['status'], { label: string; explanation: string }> = {
  active: { label: 'Active', explanation: 'Downloads and updates are open to you.' },
  suspended: {
    label: 'Suspended',
    explanation: 'A payment for it is disputed. It becomes active again if the dispute is resolved in your favour.',
  },
  revoked: {
    label: 'Revoked',
    explanation:
      'Its payment was refunded or charged back, or support revoked it. Contact support if you think this is a mistake.',
  },
  expired: {
    label: 'Expired',
    explanation: 'The subscription behind it has ended. Subscribe again to download new releases.',
  },
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
export const formatAmount = (amount: number, currency: string): string =>
  formatMinorAmount(amount, currency, { keepZeros: true })

/** "Dec 4, 2026, 3:40 PM UTC": when a claim link stops working (the day alone hides a link that ends this afternoon). */
export const formatDateTime = (value: string | null | undefined): string =>
  value
    ? new Intl.DateTimeFormat('en-US', {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZone: 'UTC',
        timeZoneName: 'short',
      }).format(new Date(value))
    : ''

/** "about 5 hours", "about 20 minutes": how long until a refused action may be tried again. */
export const waitInWords = (seconds: number): string => {
  const minutes = Math.max(1, Math.ceil(seconds / 60))
  if (minutes < 60) return minutes === 1 ? 'a minute' : `about ${minutes} minutes`
  const hours = Math.ceil(minutes / 60)
  return hours === 1 ? 'about an hour' : `about ${hours} hours`
}

/** The Team form's own refusal (the action checks the address before the service sees it); the service's codes are in src/http/error-sentences.ts. */
export const INVALID_EMAIL = 'invalid_email'
export const INVALID_EMAIL_SENTENCE = 'Enter the email address of the person you want to add.'

/** What happened when a team invitation's link was opened (`/dashboard?seat=`): one sentence each. */
export const SEAT_CLAIM_WORDS: Record<string, { sentence: string; ok: boolean }> = {
  claimed: { sentence: 'You joined the team: the license’s downloads and features are yours now.', ok: true },
  already_member: {
    sentence: 'You are on this team already: the license’s downloads and features are yours.',
    ok: true,
  },
  wrong_account: {
    sentence:
      'This invitation was sent to another email address. Sign out and sign in with that address, then open the link again to claim it.',
    ok: false,
  },
  invalid_link: {
    sentence: 'This invitation link was used, revoked or has expired. Ask the license owner for a new one.',
    ok: false,
  },
  unverified: {
    sentence:
      'Confirm your email address first (the link is in the email we sent when you signed up), then open the invitation again.',
    ok: false,
  },
  own_license: {
    sentence: 'This invitation is for a seat on your own license: as its owner you have its features already.',
    ok: false,
  },
  license_inactive: {
    sentence:
      'The license behind this invitation is not active right now, so its seat cannot be claimed. Ask the license owner.',
    ok: false,
  },
}

/** "Team: your Ultimate license ending in 7F3K" when the owner has several licenses to tell apart. */
export const licenseHeading = (title: string, license: ManagedLicense, several: boolean) =>
  several ? `${title}: your ${license.planName} license ending in ${license.keyEnd}` : title
