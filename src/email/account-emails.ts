const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char)

const message = (productName: string, subject: string, lines: string[], action: { label: string; url: string }) => ({
  subject: `${subject} | ${productName}`,
  text: [...lines, '', `${action.label}: ${action.url}`, '', `If you did not ask for this, ignore this email.`, '', productName].join('\n'),
  html: `${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>
<p>If you did not ask for this, ignore this email.</p>
<p>${escapeHtml(productName)}</p>`,
})

export const magicLinkEmail = (productName: string, url: string) =>
  message(productName, 'Your sign-in link', ['Use this link to sign in. It works once, within 10 minutes.'], { label: 'Sign in', url })
