import crypto from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'

import { jwtVerify } from 'jose'

import { isStaffUser } from '../access/roles'

const tokenOf = (headers: IncomingHttpHeaders, cookieName: string): string | null => {
  const authorization = headers.authorization ?? ''
  const scheme = /^(JWT|Bearer) (\S+)$/.exec(authorization)
  if (scheme) return scheme[2]!
  for (const part of (headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=')
    if (name === cookieName) return decodeURIComponent(value.join('='))
  }
  return null
}

// PATCH: staff-session-key
/**
 * Whether a request carries a valid staff session, checked in the host before any body is read (to
 * choose its size limit). Payload signs sessions with HS256 and a key derived from PAYLOAD_SECRET
 * (the first 32 hex characters of its SHA-256); the roles are in the token (`saveToJWT`). Payload
 * still authenticates the request itself: this only decides how many bytes it may send.
 */
export const staffSessionCheck = (payloadSecret: string, cookieName = 'payload-token') => {
  const key = new TextEncoder().encode(crypto.createHash('sha256').update(payloadSecret).digest('hex').slice(0, 32))
  return async (headers: IncomingHttpHeaders): Promise<boolean> => {
    const token = tokenOf(headers, cookieName)
    if (!token) return false
    try {
      const { payload: claims } = await jwtVerify(token, key, { algorithms: ['HS256'] })
      return isStaffUser({ collection: claims.collection, roles: claims.roles } as never)
    } catch {
      return false
    }
  }
}
