import crypto from 'node:crypto'

import { getPayload, handleEndpoints, type Payload } from 'payload'
import { afterAll, beforeAll } from 'vitest'

import config from '../../payload.config'
import type { Role } from '../../src/access/roles'
import { guardedGraphQLPost } from '../../src/auth/graphql-guard'
import { CLIENT_ADDRESS_HEADER } from '../../src/http/client-address'
import { closePayload } from '../../src/db/bootstrap'
import type { User } from '../../src/payload-types'
import { jsonOrText, type UntypedJson } from './net'

export const SERVER_URL = 'http://localhost:3000'

/** Boot Payload once for the test file (on the file's own database) and close it afterwards. */
export const usePayload = (): (() => Payload) => {
  let payload: Payload | undefined
  beforeAll(async () => {
    payload = await getPayload({ config })
    // The file's database is dropped (WITH FORCE) when it is done: idle clients must not crash the run.
    payload.db.pool.on('error', () => undefined)
  })
  afterAll(async () => {
    if (payload) await closePayload(payload)
  })
  return () => {
    if (!payload) throw new Error('Payload is not booted yet: call it inside a test or hook')
    return payload
  }
}

export type TestUser = { user: User; token: string; email: string; password: string }

/**
 * A user of the given role, created as an admin would (email verified), and signed in. With
 * `emailVerified: false` the user cannot sign in with the password: `token` is then empty.
 */
export const createUser = async (
  payload: Payload,
  role: Role,
  overrides: Partial<Pick<User, 'name' | 'email' | 'emailVerified'>> = {},
): Promise<TestUser> => {
  const email = overrides.email ?? `${role}-${crypto.randomBytes(5).toString('hex')}@example.test`
  const password = `pw-${crypto.randomBytes(9).toString('base64url')}`
  const emailVerified = overrides.emailVerified ?? true
  const created = await payload.create({
    collection: 'users',
    data: { email, password, name: overrides.name ?? `${role} user`, roles: [role], emailVerified },
    overrideAccess: true,
  })
  if (!emailVerified) return { user: created, token: '', email, password }
  const login = await payload.login({ collection: 'users', data: { email, password } })
  if (!login.token || !login.user) throw new Error(`could not sign in ${email}`)
  return { user: login.user, token: login.token, email, password }
}

export type ApiCall = {
  as?: { token: string } | null
  body?: unknown
  headers?: Record<string, string>
  /**
   * The client address, as the express host would pass it on (it derives it from the socket). By
   * default each call comes from an address of its own; null sends none.
   */
  address?: string | null
}

let nextAddress = 0
/** A fresh address for each call, from 100.64.0.0/10 (shared address space: no test picks its own there). */
const freshAddress = () => {
  nextAddress += 1
  return `100.${64 + ((nextAddress >> 16) & 63)}.${(nextAddress >> 8) & 255}.${nextAddress & 255}`
}

export type ApiResponse<T = UntypedJson> = { status: number; body: T; headers: Headers }

/**
 * Call any REST or custom endpoint in-process, exactly as Next's route handler would:
 * `api('POST', '/users', { body, as: customer })`.
 */
export const api = async <T = UntypedJson>(
  method: string,
  path: string,
  call: ApiCall = {},
): Promise<ApiResponse<T>> => {
  const headers = new Headers(call.headers)
  const address = call.address === undefined ? freshAddress() : call.address
  if (address !== null && !headers.has(CLIENT_ADDRESS_HEADER)) headers.set(CLIENT_ADDRESS_HEADER, address)
  if (call.as) headers.set('authorization', `JWT ${call.as.token}`)
  let body: BodyInit | undefined
  if (call.body !== undefined) {
    body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body)
    if (!headers.has('content-type')) headers.set('content-type', 'application/json')
  }
  const request = new Request(`${SERVER_URL}/api${path}`, { method, headers, body })
  const response = await handleEndpoints({ config, request })
  const text = await response.text()
  return { status: response.status, body: (text ? jsonOrText(text) : null) as T, headers: response.headers }
}

const graphqlPost = guardedGraphQLPost(config)

/** POST /api/graphql in-process, through the route handler Next serves (its bounds included), from an address of its own. */
export const graphql = async (query: string, as: { token: string } | null) => {
  const headers = new Headers({ 'content-type': 'application/json', [CLIENT_ADDRESS_HEADER]: freshAddress() })
  if (as) headers.set('authorization', `JWT ${as.token}`)
  const response = await graphqlPost(
    new Request(`${SERVER_URL}/api/graphql`, { method: 'POST', headers, body: JSON.stringify({ query }) }),
  )
  return (await response.json()) as {
    data?: Record<string, { docs: Record<string, unknown>[] } | null>
    errors?: { message: string }[]
  }
}
