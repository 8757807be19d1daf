import escapeHtml from 'escape-html'

export type SupportReplyEmailInput = {
  productName: string
  requestId: number
  subject: string
  reply: string
  /** Where the customer signs in to follow up. */
  accountUrl: string
  recipientName?: string | null
}

/** A support answer, in plain text and HTML: the reply itself, quoted in full, and where to follow up. */
export const supportReplyEmail = (input: SupportReplyEmailInput) => {
  const greeting = input.recipientName ? `Hi ${input.recipientName},` : 'Hi,'
  const subject = `Re: ${input.subject} [#${input.requestId}]`
  const text = [
    greeting,
    '',
    `${input.productName} support answered your request "${input.subject}":`,
    '',
    ...input.reply.split('\n').map((line) => `> ${line}`),
    '',
    `To follow up, sign in and add a message to request #${input.requestId}: ${input.accountUrl}`,
    '',
    `${input.productName} support`,
  ].join('\n')
  const html = `<p>${escapeHtml(greeting)}</p>
<p>${escapeHtml(input.productName)} support answered your request &ldquo;${escapeHtml(input.subject)}&rdquo;:</p>
<blockquote style="white-space:pre-wrap;border-left:3px solid #ccc;margin:0;padding-left:12px">${escapeHtml(input.reply)}</blockquote>
<p>To follow up, <a href="${escapeHtml(input.accountUrl)}">sign in</a> and add a message to request #${input.requestId}.</p>
<p>${escapeHtml(input.productName)} support</p>`
  return { subject, text, html }
}
