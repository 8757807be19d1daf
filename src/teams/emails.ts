import escapeHtml from 'escape-html'

export type SeatInvitationInput = {
  productName: string
  planName: string
  /** Who assigned the seat (the license's owner), so the member knows the email is expected. */
  ownerEmail: string
  claimUrl: string
  expiresAt: string
}

/**
 * The claim link's email. The link signs no one in: it works only for a signed-in account with this
 * address, so forwarding it gives nobody else the seat.
 */
export const seatInvitationEmail = (input: SeatInvitationInput) => {
  const until = new Date(input.expiresAt).toUTCString()
  const subject = `You have a seat on a ${input.productName} ${input.planName} license`
  const lead = `${input.ownerEmail} gave you a seat on their ${input.productName} ${input.planName} license: downloads, templates and everything else the plan includes, with your own account.`
  const how = `Claim it with this link, signed in with this email address (or create an account with it first). The link works once, until ${until}.`
  const text = ['Hi,', '', lead, '', how, input.claimUrl, '', 'If you did not expect this, ignore this email.', '', input.productName].join('\n')
  const html = `<p>Hi,</p>
<p>${escapeHtml(lead)}</p>
<p>${escapeHtml(how)}</p>
<p><a href="${escapeHtml(input.claimUrl)}">Claim your seat</a></p>
<p>If you did not expect this, ignore this email.</p>
<p>${escapeHtml(input.productName)}</p>`
  return { subject, text, html }
}
