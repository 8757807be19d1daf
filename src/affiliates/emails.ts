import escapeHtml from 'escape-html'

/** To a new affiliate, once, when an admin approves them (or at once with AFFILIATE_AUTO_APPROVE). */
export const affiliateApprovedEmail = (productName: string, link: string, dashboardUrl: string) => {
  const lines = [
    'Hi,',
    `You are now an affiliate of ${productName}. Share your link: each sale made through it within 30 days of the visit earns you a commission.`,
    'Commissions are held for the refund period, then paid out to your payout email. Your dashboard shows your visits, sales and commissions.',
  ]
  return {
    subject: `You are an affiliate of ${productName}`,
    text: [...lines, '', `Your link: ${link}`, `Your dashboard: ${dashboardUrl}`, '', productName].join('\n'),
    html: `${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p>Your link: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>
<p><a href="${escapeHtml(dashboardUrl)}">Your dashboard</a></p>
<p>${escapeHtml(productName)}</p>`,
  }
}
