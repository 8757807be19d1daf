import escapeHtml from 'escape-html'

import { formatMinorAmount } from '../plans/format'

export type RecoveryEmailFacts = {
  productName: string
  planName: string | null
  amount: number | null
  currency: string | null
  /** The service's own recovery link (`/checkout/recover/<id>?t=...`). */
  recoverUrl: string
  /** The page with the unsubscribe button, and the one-click URL mail clients post to (RFC 8058). */
  unsubscribePageUrl: string
  unsubscribeOneClickUrl: string
  linkExpiresAt: Date | null
}

const day = (date: Date) => new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(date)

/**
 * The one recovery email: what was left, the link back, and how to hear no more. `List-Unsubscribe`
 * and `List-Unsubscribe-Post` make it a one-click unsubscribe in mail clients (RFC 8058).
 */
export const recoveryEmail = (facts: RecoveryEmailFacts) => {
  const what = facts.planName ? `${facts.productName} ${facts.planName}` : facts.productName
  const price =
    facts.amount !== null && facts.currency
      ? ` (${formatMinorAmount(facts.amount, facts.currency, { keepZeros: true })})`
      : ''
  const lines = [
    'Hi,',
    `You started buying ${what}${price} but did not finish. Your checkout is saved: the link below reopens it with the details you entered.`,
    ...(facts.linkExpiresAt ? [`The link works until ${day(facts.linkExpiresAt)}.`] : []),
  ]
  const why = `You get this email because you agreed to hear from ${facts.productName} at checkout. This is the only reminder we send for this checkout.`
  return {
    subject: `Your ${what} checkout is saved | ${facts.productName}`,
    text: [
      ...lines,
      '',
      `Finish my purchase: ${facts.recoverUrl}`,
      '',
      why,
      `Unsubscribe: ${facts.unsubscribePageUrl}`,
      '',
      facts.productName,
    ].join('\n'),
    html: `${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p><a href="${escapeHtml(facts.recoverUrl)}">Finish my purchase</a></p>
<p>${escapeHtml(why)} <a href="${escapeHtml(facts.unsubscribePageUrl)}">Unsubscribe</a></p>
<p>${escapeHtml(facts.productName)}</p>`,
    headers: {
      'List-Unsubscribe': `<${facts.unsubscribeOneClickUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  }
}
