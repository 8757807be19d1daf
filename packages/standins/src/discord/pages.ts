import escapeHtml from 'escape-html'
import express, { type Request, type Response } from 'express'

import {
  approvedRedirect,
  deniedRedirect,
  InvalidAuthorizationRequest,
  readAuthorizationRequest,
  type AuthorizationRequest,
} from './authorization'
import type { DiscordHost } from './context'
import { botCanManage } from './guild'

const STYLE = `
  body { font-family: system-ui, sans-serif; max-width: 34rem; margin: 3rem auto; padding: 0 1rem; color: #313338; }
  .banner { background: #fff8c5; border: 1px solid #d4a72c; padding: .5rem 1rem; font-size: .9rem; }
  .error { background: #ffebe9; border: 1px solid #cf222e; padding: .5rem 1rem; }
  table { width: 100%; border-collapse: collapse; } td, th { padding: .3rem; border-bottom: 1px solid #d0d7de; text-align: left; }
  button { margin-right: .5rem; padding: .4rem 1.2rem; } select { padding: .3rem; }
`

/** Every page says it is the stand-in, so nobody mistakes it for Discord's. */
const page = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} · Discord stand-in</title><style>${STYLE}</style></head>
<body>
<p class="banner">Discord stand-in: nothing here reaches Discord.</p>
${body}
</body>
</html>
`

/** What Discord's consent screen says each scope lets the application do. */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  identify: 'Access your username, avatar, and banner',
  email: 'Access your email address',
  guilds: 'Know what servers you’re in',
  'guilds.join': 'Join servers for you',
  'guilds.members.read': 'Read your member info (nickname, avatar, roles, etc.) for servers you belong to',
  connections: 'Access your third-party connections',
}

const signInChoices = (host: DiscordHost): string =>
  [...host.users.values()]
    .filter((user) => !user.bot)
    .map(
      (user) =>
        `<option value="${escapeHtml(user.id)}">${escapeHtml(user.globalName ?? user.username)} (@${escapeHtml(user.username)})</option>`,
    )
    .join('\n')

/** The form posts the authorization request back with the choices, so approving needs no server-side session. */
const consentPage = (host: DiscordHost, request: AuthorizationRequest, params: URLSearchParams): string => {
  const hiddenFields = [...params]
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n')
  const scopes = request.scopes.map((scope) => `<li>${escapeHtml(SCOPE_DESCRIPTIONS[scope] ?? scope)}</li>`).join('\n')
  return page(
    `Authorize ${host.app.name}`,
    `<h1>Authorize ${escapeHtml(host.app.name)}</h1>
<p>An external application wants to access your Discord account. This will allow ${escapeHtml(host.app.name)} to:</p>
<ul>
${scopes}
</ul>
<p>Once you authorize, you will be redirected outside of Discord to ${escapeHtml(request.redirectUri)}.</p>
<form method="post" action="/oauth2/authorize">
${hiddenFields}
<p><label>Signed in as <select name="user_id">
${signInChoices(host)}
</select></label></p>
<button type="submit" name="decision" value="cancel">Cancel</button>
<button type="submit" name="decision" value="authorize">Authorize</button>
</form>`,
  )
}

const errorPage = (message: string): string =>
  page('Error', `<h1>Something went wrong</h1>\n<p class="error">${escapeHtml(message)}</p>`)

const roleRows = (host: DiscordHost): string =>
  [...host.roles.values()]
    .sort((a, b) => b.position - a.position)
    .map((role) => {
      const note = role.managed
        ? 'the bot’s own'
        : role.id === host.guildId
          ? ''
          : botCanManage(host, role)
            ? 'bot manages'
            : 'above the bot'
      return `<tr><td>${escapeHtml(role.name)}</td><td>${role.id}</td><td>${role.position}</td><td>${note}</td></tr>`
    })
    .join('\n')

const memberRows = (host: DiscordHost): string =>
  [...host.users.values()]
    .map((user) => {
      const member = host.members.get(user.id)
      const roles = member
        ? member.roles.map((id) => escapeHtml(host.roles.get(id)?.name ?? id)).join(', ')
        : 'not a member'
      return `<tr><td>${escapeHtml(user.username)}</td><td>${user.id}</td><td>${roles}</td></tr>`
    })
    .join('\n')

/** The guild at a glance during development: its roles, and who holds which. */
const overview = (host: DiscordHost): string =>
  page(
    'Guild',
    `<h1>Guild ${host.guildId}</h1>
<h2>Roles</h2>
<table><tr><th>Name</th><th>Id</th><th>Position</th><th></th></tr>
${roleRows(host)}
</table>
<h2>Users</h2>
<table><tr><th>Username</th><th>Id</th><th>Roles</th></tr>
${memberRows(host)}
</table>`,
  )

const sendHtml = (res: Response, status: number, body: string): void => {
  res.status(status).type('html').send(body)
}

/** A 400 page for a request Discord refuses to show a consent page for; it never redirects. */
const withValidRequest = (
  host: DiscordHost,
  params: URLSearchParams,
  res: Response,
  then: (request: AuthorizationRequest) => void,
): void => {
  try {
    then(readAuthorizationRequest(host, params))
  } catch (error) {
    if (!(error instanceof InvalidAuthorizationRequest)) throw error
    sendHtml(res, 400, errorPage(error.message))
  }
}

/** Discord's authorization endpoint (the consent page and the choice it posts back) and an overview page. */
export const pages = (host: DiscordHost): express.Router => {
  const router = express.Router()
  const readForm = express.text({ type: 'application/x-www-form-urlencoded' })

  router.get('/', (_req, res) => sendHtml(res, 200, overview(host)))

  router.get('/oauth2/authorize', (req: Request, res) => {
    const params = new URL(req.originalUrl, host.url).searchParams
    withValidRequest(host, params, res, (request) => sendHtml(res, 200, consentPage(host, request, params)))
  })

  router.post('/oauth2/authorize', readForm, (req: Request, res) => {
    const params = new URLSearchParams(typeof req.body === 'string' ? req.body : '')
    // Only the Authorize button approves; Cancel, or a form without a decision, denies.
    const decision = params.get('decision')
    const userId = params.get('user_id') ?? ''
    params.delete('decision')
    params.delete('user_id')
    withValidRequest(host, params, res, (request) =>
      res.redirect(302, decision === 'authorize' ? approvedRedirect(host, request, userId) : deniedRedirect(request)),
    )
  })

  return router
}
