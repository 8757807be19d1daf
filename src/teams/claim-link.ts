import type { Payload } from 'payload'

import type { User } from '../payload-types'
import { claimSeat, type ClaimOutcome } from './seats'

/** Keeps a claim link's token in the browser while its holder signs in or signs up (only /auth/callback reads it). */
export const SEAT_COOKIE = 'kit-seat'
const SEAT_COOKIE_MAX_AGE_S = 24 * 3600

const seatCookie = (serverUrl: string, token: string | null) =>
  `${SEAT_COOKIE}=${token ?? ''}; Path=/auth/callback; HttpOnly; SameSite=Lax; Max-Age=${token ? SEAT_COOKIE_MAX_AGE_S : 0}${serverUrl.startsWith('https://') ? '; Secure' : ''}`

/** Where each outcome lands: the dashboard says what happened (`?seat=`). */
export type SeatClaimResult = { location: string; cookies: string[] }

/**
 * /auth/callback?type=seat&token=...: the claim link. Signed in with the seat's verified email, the
 * seat is claimed and the member lands on the dashboard. Signed out, the token waits in an HttpOnly
 * cookie scoped to /auth/callback while they sign in or sign up (with `next` back here). Anything else
 * (another account, an unverified one, a used or expired link) claims nothing and says why.
 */
export const handleSeatClaim = async (
  payload: Payload,
  {
    params,
    cookies,
    user,
  }: {
    params: URLSearchParams
    cookies: Map<string, string>
    user: Pick<User, 'id' | 'email' | 'emailVerified'> | null
  },
): Promise<SeatClaimResult> => {
  const serverUrl = payload.config.serverURL
  const token = params.get('token') ?? cookies.get(SEAT_COOKIE) ?? ''
  const outcome: ClaimOutcome = await claimSeat(payload, token, user)
  if (outcome.result === 'sign_in') {
    const next = encodeURIComponent('/auth/callback?type=seat')
    return { location: `${serverUrl}/sign-in?next=${next}&notice=seat`, cookies: [seatCookie(serverUrl, token)] }
  }
  const clear = [seatCookie(serverUrl, null)]
  if (!user) return { location: `${serverUrl}/sign-in?error=invalid_link`, cookies: clear }
  return { location: `${serverUrl}/dashboard?seat=${outcome.result}`, cookies: clear }
}
