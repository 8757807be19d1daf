import { generatePayloadCookie, type Payload } from 'payload'

import { sameSitePath } from '../http/paths'
import { issueSession } from './issue-session'
import { signInWithMagicLink } from './magic-link'

export type CallbackResult = {
  /** Absolute URL on SERVER_URL (never built from the request's Host). */
  location: string
  /** Payload's session cookie, when the exchange signed someone in. */
  cookie?: string
}

type CallbackHandler = (payload: Payload, params: URLSearchParams) => Promise<CallbackResult | null>

const extraHandlers: CallbackHandler[] = []

/** Other sign-in methods (OAuth, recovery) plug their exchange in here. */
export const registerCallbackHandler = (handler: CallbackHandler) => {
  extraHandlers.push(handler)
}

export const failure = (serverUrl: string, code: string): CallbackResult => ({ location: `${serverUrl}/sign-in?error=${encodeURIComponent(code)}` })

/** Where to land after signing in: `next` when it is a same-site relative path, the dashboard otherwise. */
export const landing = (serverUrl: string, ...candidates: (string | null | undefined)[]) => {
  for (const candidate of candidates) {
    const path = sameSitePath(candidate, serverUrl)
    if (path) return `${serverUrl}${path}`
  }
  return `${serverUrl}/dashboard`
}

export const sessionCookie = async (payload: Payload, userId: number, options: { endOtherSessions?: boolean } = {}) => {
  const { token } = await issueSession(payload, userId, options)
  return generatePayloadCookie({
    collectionAuthConfig: payload.collections.users.config.auth,
    cookiePrefix: payload.config.cookiePrefix,
    token,
  }) as string
}

/**
 * /auth/callback: exchange a magic-link token (or, through registered handlers, an OAuth code or a
 * recovery token) for Payload's session cookie, then redirect. Anything missing, replayed or
 * mismatched lands on /sign-in?error=<code> without a session.
 */
export const handleAuthCallback = async (payload: Payload, params: URLSearchParams): Promise<CallbackResult> => {
  const serverUrl = payload.config.serverURL
  if (params.get('type') === 'magiclink') {
    const signedIn = await signInWithMagicLink(payload, params.get('token') ?? '')
    if (!signedIn) return failure(serverUrl, 'invalid_link')
    return { location: landing(serverUrl, params.get('next'), signedIn.next), cookie: await sessionCookie(payload, signedIn.user.id) }
  }
  for (const handler of extraHandlers) {
    const result = await handler(payload, params)
    if (result) return result
  }
  return failure(serverUrl, 'invalid_request')
}
