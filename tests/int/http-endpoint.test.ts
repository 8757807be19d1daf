import type { PayloadRequest } from 'payload'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'

import { CLIENT_ADDRESS_HEADER } from '../../src/http/client-address'
import { endpoint } from '../../src/http/endpoint'
import { ServiceError } from '../../src/http/errors'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()

/** Just enough of a PayloadRequest to drive the adapter, with the logger's lines kept. */
const fakeRequest = (
  init: {
    body?: string
    headers?: Record<string, string>
    query?: string
    user?: unknown
    routeParams?: Record<string, unknown>
  } = {},
) => {
  const logs: { fields: unknown; message: string }[] = []
  const req = {
    headers: new Headers(init.headers),
    searchParams: new URLSearchParams(init.query ?? ''),
    routeParams: init.routeParams ?? {},
    text: () => Promise.resolve(init.body ?? ''),
    user: init.user ?? null,
    payload: { logger: { error: (fields: unknown, message: string) => logs.push({ fields, message }) } },
  } as unknown as PayloadRequest
  return { req, logs }
}

const run = async (spec: Parameters<typeof endpoint>[0], init: Parameters<typeof fakeRequest>[0] = {}) => {
  const { req, logs } = fakeRequest(init)
  const response = await endpoint(spec).handler(req)
  return { status: response.status, headers: response.headers, body: await response.json().catch(() => null), logs }
}

describe('the request adapter', () => {
  it('validates the body against its schema: 400 invalid_request naming the field', async () => {
    const spec = {
      path: '/x',
      method: 'post' as const,
      body: z.object({ count: z.number().int(), name: z.string() }),
      handler: () => ({ ok: true }),
    }
    const json = { 'content-type': 'application/json' }
    const wrongType = await run(spec, { body: '{"count":"three","name":"a"}', headers: json })
    expect(wrongType.status).toBe(400)
    expect(wrongType.body.errors).toEqual([{ code: 'invalid_request', message: expect.stringMatching(/^count: /) }])
    const missing = await run(spec, { body: '{"count":3}', headers: json })
    expect(missing.body.errors[0].message).toMatch(/^name: /)
    expect((await run(spec, { body: '[1]', headers: json })).body.errors[0].message).toMatch(/^body: /)
    expect((await run(spec, { body: '{"count":', headers: json })).body.errors[0]).toEqual({
      code: 'invalid_request',
      message: 'The body is not valid JSON.',
    })
    // Not JSON by its type: refused (a cross-site form cannot send application/json without a preflight).
    expect(
      (await run(spec, { body: 'count=3&name=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }))
        .status,
    ).toBe(400)
    expect(await run(spec, { body: '{"count":3,"name":"a"}', headers: json })).toMatchObject({
      status: 200,
      body: { ok: true },
    })
  })

  it('validates the query and path parameters too, or answers a chosen error instead', async () => {
    const spec = {
      path: '/x/:id',
      method: 'get' as const,
      params: z.object({ id: z.string().regex(/^\d+$/) }),
      query: z.object({ tag: z.string() }),
      handler: ({ params, query }: { params: { id: string }; query: { tag: string } }) => ({
        id: params.id,
        tag: query.tag,
      }),
    }
    expect((await run(spec as never, { routeParams: { id: '7' }, query: 'tag=a' })).body).toEqual({ id: '7', tag: 'a' })
    const repeated = await run(spec as never, { routeParams: { id: '7' }, query: 'tag=a&tag=b' })
    expect(repeated.body.errors[0].message).toMatch(/^tag: /)
    expect((await run(spec as never, { routeParams: { id: 'x' }, query: 'tag=a' })).body.errors[0].message).toMatch(
      /^id: /,
    )
    const chosen = await run({ ...spec, invalid: new ServiceError(404, 'not_found', 'No such thing.') } as never, {
      routeParams: { id: 'x' },
    })
    expect(chosen).toMatchObject({ status: 404, body: { errors: [{ code: 'not_found', message: 'No such thing.' }] } })
  })

  it('requires a user when asked (401 unauthenticated), and hands over the user and the client address', async () => {
    const spec = {
      path: '/x',
      method: 'get' as const,
      auth: 'Sign in first.',
      handler: ({ user, address }: { user: unknown; address: unknown }) => ({ user, address }),
    }
    expect(await run(spec as never)).toMatchObject({
      status: 401,
      body: { errors: [{ code: 'unauthenticated', message: 'Sign in first.' }] },
    })
    const signedIn = await run(spec, {
      user: { id: 4, collection: 'users' },
      headers: { [CLIENT_ADDRESS_HEADER]: '::ffff:192.0.2.5', 'x-forwarded-for': '10.9.9.9' },
    })
    expect(signedIn.body).toEqual({ user: { id: 4, collection: 'users' }, address: '192.0.2.5' })
  })

  it('staff only when asked: 403 forbidden for other users, before the body is validated', async () => {
    const spec = {
      path: '/x',
      method: 'post' as const,
      auth: 'Sign in first.',
      staff: 'Staff only.',
      body: z.object({ reason: z.string().min(1) }),
      handler: () => ({ ok: true }),
    }
    const json = { 'content-type': 'application/json' }
    expect((await run(spec as never, { body: '{}', headers: json })).status).toBe(401)
    for (const body of ['{}', '{"reason":"x"}', 'not json']) {
      const customer = await run(spec, {
        body,
        headers: json,
        user: { id: 4, collection: 'users', roles: ['customer'] },
      })
      expect(customer).toMatchObject({ status: 403, body: { errors: [{ code: 'forbidden', message: 'Staff only.' }] } })
    }
    for (const roles of [['support'], ['admin']]) {
      const user = { id: 5, collection: 'users', roles }
      expect((await run(spec as never, { body: '{}', headers: json, user })).status).toBe(400)
      expect(await run(spec as never, { body: '{"reason":"x"}', headers: json, user })).toMatchObject({
        status: 200,
        body: { ok: true },
      })
    }
  })

  it('leaves the body unread in raw mode (the webhook verifies the exact bytes)', async () => {
    const raw = 'not json at all {'
    const result = await run(
      { path: '/x', method: 'post', body: 'raw', handler: async ({ req }) => ({ got: await req.text!() }) },
      { body: raw, headers: { 'content-type': 'text/plain' } },
    )
    expect(result.body).toEqual({ got: raw })
  })

  it('turns a ServiceError into its status and code (Retry-After kept), anything else into a logged 500 without secrets', async () => {
    const limited = await run({
      path: '/x',
      method: 'get',
      handler: () => Promise.reject(new ServiceError(429, 'rate_limited', 'Slow down.', 12)),
    })
    expect(limited).toMatchObject({ status: 429, body: { errors: [{ code: 'rate_limited', message: 'Slow down.' }] } })
    expect(limited.headers.get('retry-after')).toBe('12')

    const secret = 'sk_test_51HzVeryLongSecretValue0123456789abcdef'
    const failed = await run({
      path: '/x',
      method: 'post',
      handler: () => {
        throw new Error(
          `Failed query: update "auth_tokens" set "token" = $1\nparams: ${secret},someone@example.test; key ${secret}`,
        )
      },
    })
    expect(failed).toMatchObject({
      status: 500,
      body: { errors: [{ code: 'internal_error', message: expect.any(String) }] },
    })
    expect(JSON.stringify(failed.body)).not.toContain('auth_tokens')
    expect(failed.logs).toHaveLength(1)
    expect(failed.logs[0]!.fields).toMatchObject({
      endpoint: 'POST /x',
      error: { name: 'Error', message: expect.stringContaining('Failed query') },
    })
    expect(JSON.stringify(failed.logs)).not.toContain(secret)
    expect(JSON.stringify(failed.logs)).not.toContain('someone@example.test')
  })
})

describe('the endpoints go through it', () => {
  it('checkout, magic link and portal name the invalid field', async () => {
    const checkout = await api('POST', '/checkout_sessions', { body: { priceId: 42 } })
    expect(checkout.status).toBe(400)
    expect(checkout.body.errors[0]).toEqual({ code: 'invalid_request', message: expect.stringMatching(/^priceId: /) })
    const link = await api('POST', '/auth/magic-link', { body: { next: '/dashboard' } })
    expect(link.body.errors[0]).toEqual({ code: 'invalid_request', message: expect.stringMatching(/^email: /) })
    const customer = await createUser(payload(), 'customer')
    const portal = await api('GET', '/customer_portal?return_url=/a&return_url=/b', { as: customer })
    expect(portal.status).toBe(400)
    expect(portal.body.errors[0]).toEqual({ code: 'invalid_request', message: expect.stringMatching(/^return_url: /) })
  })
})
