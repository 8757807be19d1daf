import escapeHtml from 'escape-html'

export type LicenseEmailInput = {
  productName: string
  planName: string
  licenseKey: string
  dashboardUrl: string
  recipientName?: string | null
  /** The processor's hosted invoice of the purchase, when there is one. */
  invoiceUrl?: string | null
}

/** The email that delivers a license key after a purchase, in plain text and HTML. */
export const licenseEmail = (input: LicenseEmailInput) => {
  const greeting = input.recipientName ? `Hi ${input.recipientName},` : 'Hi,'
  const subject = `Your ${input.productName} ${input.planName} license`
  const text = [
    greeting,
    '',
    `Thank you for buying ${input.productName} ${input.planName}. Your license key:`,
    '',
    `    ${input.licenseKey}`,
    '',
    `Download the kit and manage your license in your dashboard: ${input.dashboardUrl}`,
    '',
    ...(input.invoiceUrl ? [`Your invoice: ${input.invoiceUrl}`, ''] : []),
    `If you bought without an account, sign up with this email address to see the purchase there.`,
    '',
    `${input.productName}`,
  ].join('\n')
  const html = `<p>${escapeHtml(greeting)}</p>
<p>Thank you for buying ${escapeHtml(input.productName)} ${escapeHtml(input.planName)}. Your license key:</p>
<p style="font-family:monospace;font-size:18px;letter-spacing:1px"><strong>${escapeHtml(input.licenseKey)}</strong></p>
<p><a href="${escapeHtml(input.dashboardUrl)}">Download the kit and manage your license in your dashboard</a>.</p>
${input.invoiceUrl ? `<p><a href="${escapeHtml(input.invoiceUrl)}">Your invoice</a></p>\n` : ''}<p>If you bought without an account, sign up with this email address to see the purchase there.</p>
<p>${escapeHtml(input.productName)}</p>`
  return { subject, text, html }
}
