import { cookies, headers } from 'next/headers'
import { generateExpiredPayloadCookie, generatePayloadCookie, getPayload, type Payload } from 'payload'

import type { User } from '../../payload-types'
import { publishedService } from '../../process/service'

/**
 * The process's one Payload instance, which src/instrumentation.ts made and published, for every page
 * and server action. The config is imported only where none was published (a page rendered in a test
 * process), and dynamically: a static import put a whole copy of the config and everything it imports
 * (every collection, plugin and endpoint, about 1.6 MB of source) into each page route group's chunk,
 * and each copy ran its own buildConfig in the server (two more in the bench, one per page route).
 */
export const getPayloadClient = async (): Promise<Payload> => {
  const published = publishedService()
  if (published) return published.payload
  const { default: config } = await import('../../../payload.config')
  return getPayload({ config })
}

// PATCH: page-auth-headers
/**
 * This page request's headers for Payload's auth. Payload refuses a session cookie on requests that
 * began on another site (its CSRF rule for the API). Pages are GET renders and server actions are
 * origin-checked by Next itself, so here the cookie counts even after a redirect from an OAuth
 * provider or a click in a webmail.
 */
export const pageAuthHeaders = async (): Promise<Headers> => {
  const forPages = new Headers(await headers())
  forPages.delete('origin')
  forPages.set('sec-fetch-site', 'same-origin')
  return forPages
}

/** The signed-in user of this page request (Payload's session cookie), or null. */
export const currentUser = async (): Promise<User | null> => {
  const payload = await getPayloadClient()
  const { user } = await payload.auth({ headers: await pageAuthHeaders() })
  return user && user.collection === 'users' ? user : null
}

type CookieObject = {
  name: string
  value?: string
  expires?: string
  httpOnly?: boolean
  maxAge?: number
  path?: string
  sameSite?: 'Lax' | 'None' | 'Strict'
  secure?: boolean
  domain?: string
}

const applyCookie = async (cookie: CookieObject) => {
  const store = await cookies()
  store.set({
    name: cookie.name,
    value: cookie.value ?? '',
    httpOnly: cookie.httpOnly,
    path: cookie.path ?? '/',
    sameSite: cookie.sameSite?.toLowerCase() as 'lax' | 'strict' | 'none' | undefined,
    secure: cookie.secure,
    ...(cookie.expires ? { expires: new Date(cookie.expires) } : {}),
    ...(cookie.domain ? { domain: cookie.domain } : {}),
  })
}

/** Set Payload's session cookie exactly as its own login endpoint would. */
export const setSessionCookie = async (payload: Payload, token: string) => {
  await applyCookie(
    generatePayloadCookie({
      collectionAuthConfig: payload.collections.users.config.auth,
      cookiePrefix: payload.config.cookiePrefix,
      returnCookieAsObject: true,
      token,
    }),
  )
}

export const clearSessionCookie = async (payload: Payload) => {
  await applyCookie(
    generateExpiredPayloadCookie({
      collectionAuthConfig: payload.collections.users.config.auth,
      cookiePrefix: payload.config.cookiePrefix,
      returnCookieAsObject: true,
    }),
  )
}
