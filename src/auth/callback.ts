import { generatePayloadCookie, type Payload } from 'payload'

import { sameSitePath } from '../http/paths'
import { ServiceError } from '../http/errors'
import { confirmEmailChange } from './email-change'
import { issueSession } from './issue-session'
import { signInWithMagicLink } from './magic-link'
import { clearStateCookie, finishOAuth, STATE_COOKIE } from './oauth'
import { isRecoveryTokenValid, recoveryCookie } from './recovery'
import { confirmEmail, SIGN_UP_COOKIE, signUpCookie } from './sign-up'
import { runtimeOf } from '../config/runtime'

export type CallbackResult = {
  /** Absolute URL on SERVER_URL (never built from the request's Host). */
  location: string
  /** Payload's session cookie, when the exchange signed someone in. */
  cookie?: string
  /** Other cookies to set or clear (the OAuth state). */
  extraCookies?: string[]
}

export type CallbackRequest = { params: URLSearchParams; cookies: Map<string, string> }

const failure = (serverUrl: string, code: string): CallbackResult => ({
  location: `${serverUrl}/sign-in?error=${encodeURIComponent(code)}`,
})

/** Where to land after signing in: `next` when it is a same-site relative path, the dashboard otherwise. */
export const landing = (serverUrl: string, ...candidates: (string | null | undefined)[]) => {
  for (const candidate of candidates) {
    const path = sameSitePath(candidate, serverUrl)
    if (path) return `${serverUrl}${path}`
  }
  return `${serverUrl}/dashboard`
}

const sessionCookie = async (payload: Payload, userId: number, options: { endOtherSessions?: boolean } = {}) => {
  const { token } = await issueSession(payload, userId, options)
  return generatePayloadCookie({
    collectionAuthConfig: payload.collections.users.config.auth,
    cookiePrefix: payload.config.cookiePrefix,
    returnCookieAsObject: false,
    token,
  })
}

/**
 * /auth/callback: exchange a magic-link, confirmation or email-change token (or an OAuth code, or a
 * recovery token) for Payload's session cookie, then redirect. Anything missing, replayed or
 * mismatched lands on /sign-in?error=<code> without a session.
 */
export const handleAuthCallback = async (
  payload: Payload,
  { params, cookies }: CallbackRequest,
): Promise<CallbackResult> => {
  const serverUrl = payload.config.serverURL
  const type = params.get('type')
  if (type === 'magiclink') {
    const signedIn = await signInWithMagicLink(payload, params.get('token') ?? '')
    if (!signedIn) return failure(serverUrl, 'invalid_link')
    return {
      location: landing(serverUrl, params.get('next'), signedIn.next),
      cookie: await sessionCookie(payload, signedIn.user.id),
    }
  }
  if (type === 'verify') {
    const confirmed = await confirmEmail(payload, params.get('token') ?? '', cookies.get(SIGN_UP_COOKIE))
    const clear = [signUpCookie(serverUrl, null)]
    if (!confirmed) return { ...failure(serverUrl, 'invalid_link'), extraCookies: clear }
    if (confirmed.recoveryToken) {
      // Opened away from the sign-up's browser: the address is proven, the password is not. No session until a new one is chosen.
      return {
        location: `${serverUrl}/reset-password?step=new&confirmed=1`,
        extraCookies: [recoveryCookie(serverUrl, confirmed.recoveryToken), ...clear],
      }
    }
    return {
      location: landing(serverUrl, confirmed.next),
      cookie: await sessionCookie(payload, confirmed.user.id),
      extraCookies: clear,
    }
  }
  if (type === 'email_change') {
    const changed = await confirmEmailChange(payload, params.get('token') ?? '')
    if (!changed) return failure(serverUrl, 'invalid_link')
    return { location: `${serverUrl}/dashboard?email_changed=1`, cookie: await sessionCookie(payload, changed.id) }
  }
  if (type === 'recovery') {
    // No session until a new password is set: the reset page is the only way on.
    const token = params.get('token') ?? ''
    if (!(await isRecoveryTokenValid(payload, token))) return failure(serverUrl, 'invalid_link')
    return { location: `${serverUrl}/reset-password?step=new`, extraCookies: [recoveryCookie(serverUrl, token)] }
  }
  if (type === null && (params.has('code') || params.has('state'))) {
    const { oauth } = runtimeOf(payload, 'accounts')
    const clear = [clearStateCookie(oauth)]
    try {
      const signedIn = await finishOAuth(payload, oauth, params, cookies.get(STATE_COOKIE))
      if (!signedIn) return { ...failure(serverUrl, 'invalid_request'), extraCookies: clear }
      return {
        location: landing(serverUrl, signedIn.next),
        cookie: await sessionCookie(payload, signedIn.user.id),
        extraCookies: clear,
      }
    } catch (error) {
      return { ...failure(serverUrl, error instanceof ServiceError ? error.code : 'oauth_failed'), extraCookies: clear }
    }
  }
  return failure(serverUrl, 'invalid_request')
}
