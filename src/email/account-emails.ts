import escapeHtml from 'escape-html'

const IGNORE = 'If you did not ask for this, ignore this email.'

const message = (
  productName: string,
  subject: string,
  lines: string[],
  action: { label: string; url: string },
  footer = IGNORE,
) => ({
  subject: `${subject} | ${productName}`,
  text: [...lines, '', `${action.label}: ${action.url}`, '', footer, '', productName].join('\n'),
  html: `${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>
<p>${escapeHtml(footer)}</p>
<p>${escapeHtml(productName)}</p>`,
})

export const magicLinkEmail = (productName: string, url: string) =>
  message(productName, 'Your sign-in link', ['Use this link to sign in. It works once, within 10 minutes.'], {
    label: 'Sign in',
    url,
  })

export const verifyEmail = (productName: string, url: string) =>
  message(
    productName,
    'Confirm your email address',
    ['Welcome! Confirm your email address to finish creating your account.'],
    { label: 'Confirm my email', url },
  )

export const existingAccountEmail = (productName: string, signInUrl: string) =>
  message(
    productName,
    'You already have an account',
    [
      'Someone (probably you) tried to create an account with this email address, but you already have one.',
      'Sign in with your password, with a sign-in link, or reset your password from the sign-in page.',
    ],
    { label: 'Sign in', url: signInUrl },
  )

export const passwordResetEmail = (productName: string, url: string) =>
  message(
    productName,
    'Reset your password',
    ['Use this link to choose a new password. It works once, within an hour.'],
    { label: 'Reset my password', url },
  )

export const emailChangeEmail = (productName: string, currentEmail: string, url: string) =>
  message(
    productName,
    'Confirm your new email address',
    [
      `The account ${currentEmail} asked to use this address as its email from now on.`,
      'Confirm only if that account is yours: the address then signs in to it, and purchases made with this address move to it. The link works once, within 24 hours.',
    ],
    { label: 'Confirm my new email', url },
  )

export const emailChangeNotice = (productName: string, newEmail: string, resetUrl: string) =>
  message(
    productName,
    'Your email address is being changed',
    [
      `Someone signed in to your account asked to change its email address to ${newEmail}. Nothing changes until a link sent to that address is opened.`,
      'If this was not you, reset your password now: that signs every other device out.',
    ],
    { label: 'Reset my password', url: resetUrl },
  )

/** The day an account is erased, as the emails say it (UTC, so it reads the same in any inbox). */
const erasureDay = (at: Date) =>
  at.toLocaleString('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC'

export const deletionScheduledEmail = (
  productName: string,
  options: { scheduledFor: Date; cancelUrl: string; byStaff: boolean },
) =>
  message(
    productName,
    'Your account will be deleted',
    [
      options.byStaff
        ? `At your request, our team asked for your ${productName} account to be deleted.`
        : `You asked for your ${productName} account to be deleted.`,
      `On ${erasureDay(options.scheduledFor)} we erase your profile, sign-in methods, API keys, installations, support messages and download history, end your licenses and team seats, and withdraw your repository access. Payments, invoices and their amounts are kept, as tax law requires, on the erased account.`,
      'Until then everything keeps working, and you can cancel: the link below works once, without signing in.',
    ],
    { label: 'Keep my account', url: options.cancelUrl },
    'If you did not ask for this, open the link above to keep your account, then change your password.',
  )

export const deletionStoppedEmail = (productName: string, dashboardUrl: string) =>
  message(
    productName,
    'Your account was not deleted',
    [
      `Your ${productName} account was due to be deleted today, but it has a subscription that renews, so we kept it and did not charge or change anything.`,
      'To delete the account, cancel the subscription in the billing portal first, then ask again from your dashboard.',
    ],
    { label: 'Open my dashboard', url: dashboardUrl },
    'Nothing else changed.',
  )
