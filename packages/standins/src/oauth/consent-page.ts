import escapeHtml from 'escape-html'
import express, { type Request, type Response } from 'express'

import { loginOf } from './accounts'
import {
  approvedRedirect,
  deniedRedirect,
  InvalidAuthorizationRequest,
  readAuthorizationRequest,
  type AuthorizationRequest,
} from './authorization'
import type { OAuthHost } from './context'
import { PATHS, PROVIDERS } from './endpoints'
import type { OAuthAccount, OAuthProvider } from './types'

const PROVIDER_NAMES: Record<OAuthProvider, string> = { github: 'GitHub', google: 'Google' }

const STYLE = `
  body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328; }
  .banner { background: #fff8c5; border: 1px solid #d4a72c; padding: .5rem 1rem; font-size: .9rem; }
  .error { background: #ffebe9; border: 1px solid #cf222e; padding: .5rem 1rem; }
  dt { font-weight: 600; } dd { margin: 0 0 .5rem; }
  button { margin-right: .5rem; padding: .4rem 1.2rem; }
`

/** Every page says it is the stand-in, so nobody mistakes it for the provider's. */
const page = (provider: OAuthProvider, title: string, body: string): string => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} · OAuth stand-in</title><style>${STYLE}</style></head>
<body>
<p class="banner">OAuth stand-in: nothing here reaches ${PROVIDER_NAMES[provider]}.</p>
${body}
</body>
</html>
`

const accountDetails = (provider: OAuthProvider, account: OAuthAccount): string => {
  const rows: [string, string][] = [
    ['Name', account.name ?? '(none)'],
    ['Email', `${account.email}${account.emailVerified ? '' : ' (unverified)'}`],
    ['Id', account.id],
  ]
  if (provider === 'github') rows.unshift(['Login', loginOf(account)])
  return rows.map(([term, value]) => `<dt>${term}</dt><dd>${escapeHtml(value)}</dd>`).join('\n')
}

/** The form posts the authorization request back with the decision, so approving needs no server-side session. */
const consentPage = (host: OAuthHost, request: AuthorizationRequest, params: URLSearchParams): string => {
  const provider = request.provider
  const hiddenFields = [...params]
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n')
  return page(
    provider,
    `Authorize ${request.clientId}`,
    `<h1>Authorize ${escapeHtml(request.clientId)}</h1>
<p>Sign in with ${PROVIDER_NAMES[provider]} as:</p>
<dl>
${accountDetails(provider, host.accounts[provider])}
</dl>
<p>Scopes: ${escapeHtml(request.scopes.join(' ') || '(none)')}</p>
<p>You will be sent back to ${escapeHtml(request.redirectUri)}.</p>
<form method="post" action="${PATHS[provider].authorize}">
${hiddenFields}
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  )
}

const errorPage = (provider: OAuthProvider, message: string): string =>
  page(provider, 'Error', `<h1>Error 400: invalid_request</h1>\n<p class="error">${escapeHtml(message)}</p>`)

const sendHtml = (res: Response, status: number, body: string): void => {
  res.status(status).type('html').send(body)
}

/** A 400 page for a request the provider rejects; anything else is the stand-in's own failure. */
const withValidRequest = (
  host: OAuthHost,
  provider: OAuthProvider,
  params: URLSearchParams,
  res: Response,
  then: (request: AuthorizationRequest) => void,
): void => {
  let request: AuthorizationRequest
  try {
    request = readAuthorizationRequest(host, provider, params)
  } catch (error) {
    if (!(error instanceof InvalidAuthorizationRequest)) throw error
    sendHtml(res, 400, errorPage(provider, error.message))
    return
  }
  then(request)
}

/** Each provider's authorization endpoint: the consent page, and the decision it posts back. */
export const consentPages = (host: OAuthHost): express.Router => {
  const router = express.Router()
  const readForm = express.text({ type: 'application/x-www-form-urlencoded' })

  for (const provider of PROVIDERS) {
    router.get(PATHS[provider].authorize, (req: Request, res) => {
      const params = new URL(req.originalUrl, host.url).searchParams
      withValidRequest(host, provider, params, res, (request) => sendHtml(res, 200, consentPage(host, request, params)))
    })

    router.post(PATHS[provider].authorize, readForm, (req: Request, res) => {
      const params = new URLSearchParams(typeof req.body === 'string' ? req.body : '')
      // Only the Approve button approves; Deny, or a form without a decision, denies.
      const decision = params.get('decision')
      params.delete('decision')
      withValidRequest(host, provider, params, res, (request) =>
        res.redirect(302, decision === 'approve' ? approvedRedirect(host, request) : deniedRedirect(request)),
      )
    })
  }

  return router
}
