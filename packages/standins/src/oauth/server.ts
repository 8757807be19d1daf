import http from 'node:http'

import express, { type NextFunction, type Request, type Response } from 'express'

import { DEFAULT_ACCOUNTS } from './accounts'
import { approvedRedirect, deniedRedirect, readAuthorizationRequest } from './authorization'
import { consentPages } from './consent-page'
import type { OAuthHost } from './context'
import { endpointsAt, PROVIDERS } from './endpoints'
import { githubApi } from './github-api'
import { googleOidc } from './google-oidc'
import { createSigningKey } from './id-token'
import { tokenEndpoints } from './token-endpoint'
import type { OAuthProvider, OAuthStandIn, OAuthStandInOptions } from './types'
import { listenLocally } from '../common/listen'

/** Body parsers report a malformed request with its 4xx status; anything else is a bug in the stand-in. */
const statusOf = (error: unknown): number =>
  typeof error === 'object' &&
  error !== null &&
  'status' in error &&
  typeof error.status === 'number' &&
  error.status < 500
    ? error.status
    : 500

const buildApp = (host: OAuthHost, log: (line: string) => void): express.Express => {
  const app = express()
  app.disable('x-powered-by')
  app.use((req, res, next) => {
    const { method, path } = req
    host.state.requests.push({ method, path })
    res.on('finish', () => log(`${method} ${path} -> ${res.statusCode}`))
    next()
  })
  app.use(consentPages(host))
  app.use(tokenEndpoints(host))
  app.use(githubApi(host))
  app.use(googleOidc(host))
  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' })
  })
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(error)
      return
    }
    const status = statusOf(error)
    if (status === 500) {
      log(
        `${req.method} ${req.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      )
    }
    res.status(status).json({ error: status === 500 ? 'server_error' : 'invalid_request' })
  })
  return app
}

/** Which provider's authorization endpoint a URL the service redirected to points at. */
const providerAuthorizing = (host: OAuthHost, url: URL): OAuthProvider | undefined => {
  const endpoint = `${url.origin}${url.pathname}`
  return PROVIDERS.find((provider) => host.endpoints[provider].authorize === endpoint)
}

/**
 * A GitHub and Google sign-in stand-in on 127.0.0.1 for tests and offline development: the service's
 * OAuth client runs the authorization code flow (PKCE S256, state, and Google's nonce) against
 * `endpoints`, and a test approves with `approve` where a person would click through the consent page.
 */
export const startOAuthStandIn = async (options: OAuthStandInOptions): Promise<OAuthStandIn> => {
  const log = options.log ?? (() => undefined)
  const signingKey = await createSigningKey()
  const server = http.createServer()
  const port = await listenLocally(server, options.port ?? 0)
  const url = `http://127.0.0.1:${port}`
  const host: OAuthHost = {
    url,
    endpoints: endpointsAt(url),
    clients: { github: options.github, google: options.google },
    accounts: { github: { ...DEFAULT_ACCOUNTS.github }, google: { ...DEFAULT_ACCOUNTS.google } },
    signingKey,
    state: { codes: new Map(), tokens: new Map(), requests: [] },
    now: options.now ?? (() => new Date()),
  }
  server.on('request', buildApp(host, log))
  log(`OAuth stand-in listening on ${url}`)

  return {
    url,
    port,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    },
    setAccount: (provider, account) => {
      host.accounts[provider] = { ...account }
    },
    endpoints: host.endpoints,
    // A promise whatever happens: a refusal below is a rejection, as from the real provider's page.
    approve: (authorizationUrl, approveOptions) =>
      Promise.resolve().then(() => {
        const requested = new URL(authorizationUrl)
        const provider = providerAuthorizing(host, requested)
        if (!provider) throw new Error(`${authorizationUrl} is not an authorization endpoint of this stand-in`)
        const request = readAuthorizationRequest(host, provider, requested.searchParams)
        return approveOptions?.deny ? deniedRedirect(request) : approvedRedirect(host, request)
      }),
    state: host.state,
  }
}
