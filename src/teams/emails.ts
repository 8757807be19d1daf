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
  const text = [
    'Hi,',
    '',
    lead,
    '',
    how,
    input.claimUrl,
    '',
    'If you did not expect this, ignore this email.',
    '',
    input.productName,
  ].join('\n')
  const html = `<p>Hi,</p>
<p>${escapeHtml(lead)}</p>
<p>${escapeHtml(how)}</p>
<p><a href="${escapeHtml(input.claimUrl)}">Claim your seat</a></p>
<p>If you did not expect this, ignore this email.</p>
<p>${escapeHtml(input.productName)}</p>`
  return { subject, text, html }
}

export type SeatsEndedInput = {
  productName: string
  planName: string
  /** The seats the license covers now, the owner's included. */
  seats: number
  ended: { email: string; joined: boolean }[]
  dashboardUrl: string
}

/** To the owner: the paid quantity dropped below the seats in use, so these seats ended. */
export const seatsEndedEmail = (input: SeatsEndedInput) => {
  const count = input.ended.length
  const subject = `${count === 1 ? 'A seat' : `${count} seats`} of your ${input.productName} ${input.planName} license ended`
  const lead = `Your ${input.planName} subscription now pays for ${input.seats} ${input.seats === 1 ? 'person' : 'people'}, yourself included, which is fewer than the seats you had given. So the newest ${count === 1 ? 'seat' : `${count} seats`} ended, and ${count === 1 ? 'this person no longer has' : 'these people no longer have'} access:`
  const lines = input.ended.map(
    (seat) => `${seat.email} (${seat.joined ? 'had joined' : 'invited, had not joined yet'})`,
  )
  const back =
    'To give a seat back, raise the quantity in the billing portal, then give the seat again from your dashboard:'
  const text = [
    'Hi,',
    '',
    lead,
    '',
    ...lines.map((line) => `- ${line}`),
    '',
    back,
    input.dashboardUrl,
    '',
    input.productName,
  ].join('\n')
  const html = `<p>Hi,</p>
<p>${escapeHtml(lead)}</p>
<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>
<p>${escapeHtml(back)}</p>
<p><a href="${escapeHtml(input.dashboardUrl)}">Your dashboard</a></p>
<p>${escapeHtml(input.productName)}</p>`
  return { subject, text, html }
}
