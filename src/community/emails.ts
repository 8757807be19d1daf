import escapeHtml from 'escape-html'

import type { DiscordFailureKind } from './discord'

/** To the admins, once per role: Discord refused a plan's role for a reason only they can fix. */
export const roleRefusedEmail = (productName: string, serverUrl: string, roleId: string, kind: DiscordFailureKind) => {
  const cause =
    kind === 'unknown_role'
      ? `The Discord server has no role ${roleId}: it was deleted, or a plan names the wrong ID.`
      : `Discord refused to give role ${roleId} (Missing Permissions): the bot's own role must sit above it in Server Settings → Roles, and the bot needs the Manage Roles permission.`
  const how =
    'Fix it in Discord (or correct the plan’s Discord role ID), then use Sync community roles on a customer’s page: the roles that failed are given again within the hour by themselves.'
  const link = `${serverUrl}/admin/collections/community_grants?where[state][equals]=failed`
  const lines = ['Hi,', cause, how]
  return {
    subject: `Discord refused a plan's role | ${productName}`,
    text: [...lines, '', `The failed roles: ${link}`, '', productName].join('\n'),
    html: `${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p><a href="${escapeHtml(link)}">The failed roles</a></p>
<p>${escapeHtml(productName)}</p>`,
  }
}
