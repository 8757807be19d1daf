import escapeHtml from 'escape-html'
import express, { type Request, type Response } from 'express'

import { acceptInvitationOf, isExpired, isOwner } from './collaboration'
import type { CodeHost } from './context'
import { timestamp } from './objects'

const STYLE = `
  body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328; }
  .banner { background: #fff8c5; border: 1px solid #d4a72c; padding: .5rem 1rem; font-size: .9rem; }
  .error { background: #ffebe9; border: 1px solid #cf222e; padding: .5rem 1rem; }
  table { width: 100%; border-collapse: collapse; } td, th { padding: .4rem; border-bottom: 1px solid #d0d7de; text-align: left; }
  form { margin: 0; }
`

const invitationRows = (host: CodeHost): string =>
  [...host.state.invitations.values()]
    .map((invitation) => {
      const login = escapeHtml(invitation.login)
      const action = isExpired(host, invitation)
        ? 'expired'
        : `<form method="post" action="/_standin/accept"><input type="hidden" name="login" value="${login}"><button>Accept as ${login}</button></form>`
      return `<tr><td>${login}</td><td>${invitation.permissions}</td><td>${timestamp(invitation.createdAt)}</td><td>${action}</td></tr>`
    })
    .join('\n')

const collaboratorItems = (host: CodeHost): string =>
  [
    `<li>${escapeHtml(host.owner.login)} (owner)</li>`,
    ...[...host.state.collaborators].map((login) => `<li>${escapeHtml(login)}</li>`),
  ].join('\n')

/** The repository's invitations and collaborators; it says it is the stand-in, so nobody mistakes it for GitHub. */
const overview = (host: CodeHost, error?: string): string => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(`${host.owner.login}/${host.repo}`)} · code host stand-in</title><style>${STYLE}</style></head>
<body>
<p class="banner">Code host stand-in: nothing here reaches GitHub.</p>
${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}
<h1>${escapeHtml(`${host.owner.login}/${host.repo}`)}</h1>
<h2>Pending invitations</h2>
<table>
<tr><th>Login</th><th>Permission</th><th>Created</th><th></th></tr>
${invitationRows(host)}
</table>
<h2>Collaborators</h2>
<ul>
${collaboratorItems(host)}
</ul>
</body>
</html>
`

const send = (res: Response, status: number, body: string): void => {
  res.status(status).type('html').send(body)
}

/**
 * The page where a developer accepts an invitation in the browser during offline development, served
 * at `/` and at the invitations' `html_url`, which is what a service shows its customers.
 */
export const pages = (host: CodeHost): express.Router => {
  const router = express.Router()

  router.get('/', (_req, res) => send(res, 200, overview(host)))

  router.get('/:owner/:repo/invitations', (req: Request, res, next) => {
    if (!isOwner(host, String(req.params.owner)) || String(req.params.repo).toLowerCase() !== host.repo.toLowerCase()) {
      next()
      return
    }
    send(res, 200, overview(host))
  })

  router.post(
    '/_standin/accept',
    express.urlencoded({ extended: false }),
    (req: Request<object, unknown, { login?: unknown } | undefined>, res) => {
      const login = typeof req.body?.login === 'string' ? req.body.login : ''
      if (!acceptInvitationOf(host, login)) {
        send(res, 404, overview(host, `${login || 'Nobody'} has no pending invitation to accept.`))
        return
      }
      res.redirect(303, '/')
    },
  )

  return router
}
