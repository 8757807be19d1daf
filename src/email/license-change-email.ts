import escapeHtml from 'escape-html'

export type LicenseChangeEmailInput = {
  productName: string
  kind: 'upgrade' | 'renewal'
  planName: string
  /** What the license's updates now cover, in words ("every release", "releases up to 3.x"). */
  updates: string
  dashboardUrl: string
  recipientName?: string | null
}

/**
 * The email after a paid upgrade or renewal. It names no license key: the key did not change, and
 * the dashboard shows it to its owner.
 */
export const licenseChangeEmail = (input: LicenseChangeEmailInput) => {
  const greeting = input.recipientName ? `Hi ${input.recipientName},` : 'Hi,'
  const subject =
    input.kind === 'upgrade'
      ? `Your ${input.productName} license is now ${input.planName}`
      : `Your ${input.productName} updates are renewed`
  const lead =
    input.kind === 'upgrade'
      ? `Your license is now ${input.productName} ${input.planName}, with the same license key. It includes ${input.updates}.`
      : `Thank you for renewing. Your ${input.productName} ${input.planName} license now includes ${input.updates}, with the same license key.`
  const text = [
    greeting,
    '',
    lead,
    '',
    `Download the kit and manage your license in your dashboard: ${input.dashboardUrl}`,
    '',
    input.productName,
  ].join('\n')
  const html = `<p>${escapeHtml(greeting)}</p>
<p>${escapeHtml(lead)}</p>
<p><a href="${escapeHtml(input.dashboardUrl)}">Download the kit and manage your license in your dashboard</a>.</p>
<p>${escapeHtml(input.productName)}</p>`
  return { subject, text, html }
}
