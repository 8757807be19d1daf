import './../support/billing-env'

import crypto from 'node:crypto'

import { Forbidden } from 'payload'
import { beforeAll, describe, expect, it } from 'vitest'

import config from '../../payload.config'
import { API_KEY_STRATEGY, generateApiKey, hashApiKey, MAX_LIVE_API_KEYS } from '../../src/auth/api-keys'
import { guardedGraphQLPost } from '../../src/auth/graphql-guard'
import { limiterOf } from '../../src/auth/rate-limit'
import type { User } from '../../src/payload-types'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { codeHost, PRICES } from '../support/billing-env'
import { api, createUser, graphql, SERVER_URL, type TestUser, usePayload } from '../support/payload'
import { isEntitlementsLookup, recordQueries } from '../support/queries'
import { createRelease } from '../support/releases'

const payload = usePayload()

let ultimate: TestUser
let otherUltimate: TestUser
let standard: TestUser
let support: TestUser
let admin: TestUser

const buyer = async (priceId: string | null, role: 'customer' | 'admin' = 'customer') => {
  const user = await createUser(payload(), role)
  if (priceId) await buy(priceId, { as: user })
  return user
}

beforeAll(async () => {
  await seedStandInPlans(payload())
  await createRelease(payload(), '1.0.0')
  await createRelease(payload(), '1.1.0')
  codeHost.addUser('kit-key-user')
  ;[ultimate, otherUltimate, standard, support] = await Promise.all([
    buyer(PRICES.ultimate),
    buyer(PRICES.ultimate),
    buyer(PRICES.standard),
    createUser(payload(), 'support'),
  ])
  admin = await buyer(PRICES.ultimate, 'admin')
})

type Created = { id: number; name: string; prefix: string; key: string }

const createKey = async (who: TestUser, name = 'deploy') => {
  const response = await api<Created>('POST', '/account/api-keys', { as: who, body: { name } })
  expect(response.status).toBe(201)
  return response.body
}
const listKeys = (who: TestUser) => api('GET', '/account/api-keys', { as: who })
const withKey = (key: string, method: string, path: string, body?: unknown) =>
  api(method, path, { headers: { authorization: `Bearer ${key}` }, body })
const errorCode = (response: { body: { errors?: { code: string }[] } }) => response.body.errors?.[0]?.code

/** A key inserted as the service would, for an owner the create endpoint refuses (no `api`). */
const insertKey = async (user: User) => {
  const generated = generateApiKey()
  const row = await payload().create({
    collection: 'api_keys',
    data: { name: 'inserted', prefix: generated.prefix, keyHash: generated.hash, user: user.id },
    overrideAccess: true,
  })
  return { ...generated, id: row.id }
}

const graphqlWithKey = async (key: string, query: string) => {
  const request = new Request(`${SERVER_URL}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query }),
  })
  const result = (await (await guardedGraphQLPost(config)(request)).json()) as {
    data?: Record<string, unknown> | null
    errors?: { message: string }[]
  }
  // A misspelt query would "prove" a refusal: only access errors count.
  expect(JSON.stringify(result.errors ?? [])).not.toMatch(/Cannot query field|Unknown argument/)
  return result
}

/** GraphQL with a session: only access errors count, never a misspelt query. */
const sessionGraphql = async (query: string, who: TestUser) => {
  const result = await graphql(query, who)
  expect(JSON.stringify(result.errors ?? [])).not.toMatch(/Cannot query field|Unknown argument|was not provided/)
  return result
}

const keyRow = async (id: number) => {
  const { rows: found } = await payload().db.pool.query('SELECT * FROM api_keys WHERE id = $1', [id])
  return found[0] as Record<string, unknown> | undefined
}

describe('creating, listing and revoking keys', () => {
  it('an ultimate owner creates a key: 201, shown once, prefixed, stored only as its SHA-256', async () => {
    const response = await api<Created>('POST', '/account/api-keys', { as: ultimate, body: { name: '  CI deploys  ' } })
    expect(response.status).toBe(201)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(Object.keys(response.body).sort()).toEqual(['id', 'key', 'name', 'prefix'])
    const { id, key, prefix, name } = response.body
    expect(name).toBe('CI deploys')
    expect(key).toMatch(/^kit_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/)
    expect(prefix).toBe(key.slice(0, 12))
    const row = await keyRow(id)
    expect(row?.key_hash).toBe(crypto.createHash('sha256').update(key).digest('hex'))
    const secret = key.slice(13)
    expect(JSON.stringify(row)).not.toContain(secret)
    expect(JSON.stringify(row)).not.toContain(key)
  })

  it("lists the caller's live keys with public fields only, never the key", async () => {
    const created = await createKey(ultimate, 'listed')
    const response = await listKeys(ultimate)
    expect(response.status).toBe(200)
    const listed = response.body.docs.find((doc: { id: number }) => doc.id === created.id)
    expect(Object.keys(listed).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'prefix'])
    expect(listed).toMatchObject({ name: 'listed', prefix: created.prefix, lastUsedAt: null })
    expect(JSON.stringify(response.body)).not.toContain(created.key)
  })

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['too long', 'x'.repeat(61)],
    ['not a string', 42],
  ])('400 invalid_request for a name that is %s', async (_what, name) => {
    const response = await api('POST', '/account/api-keys', { as: ultimate, body: { name } })
    expect(response.status).toBe(400)
    expect(errorCode(response)).toBe('invalid_request')
  })

  it('60 characters is a valid name', async () => {
    const created = await createKey(otherUltimate, 'n'.repeat(60))
    expect(created.name).toHaveLength(60)
    expect((await api('DELETE', `/account/api-keys/${created.id}`, { as: otherUltimate })).status).toBe(204)
  })

  it('a standard owner is refused an API key (403 feature_required); anonymous callers 401', async () => {
    const refused = await api('POST', '/account/api-keys', { as: standard, body: { name: 'nope' } })
    expect(refused.status).toBe(403)
    expect(errorCode(refused)).toBe('feature_required')
    expect(await rows(payload(), 'api_keys', { user: { equals: standard.user.id } })).toEqual([])
    for (const [method, path] of [
      ['POST', '/account/api-keys'],
      ['GET', '/account/api-keys'],
      ['DELETE', '/account/api-keys/1'],
    ] as const) {
      const anonymous = await api(method, path, { body: method === 'POST' ? { name: 'x' } : undefined })
      expect([method, anonymous.status, errorCode(anonymous)]).toEqual([method, 401, 'unauthenticated'])
    }
  })

  it(`at most ${MAX_LIVE_API_KEYS} live keys, also when asked for at once; revoking one frees a place`, async () => {
    const owner = await buyer(PRICES.ultimate)
    const answers = await Promise.all(
      Array.from({ length: MAX_LIVE_API_KEYS + 3 }, (_, index) =>
        api('POST', '/account/api-keys', { as: owner, body: { name: `key ${index}` } }),
      ),
    )
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MAX_LIVE_API_KEYS)
    const refused = answers.filter((answer) => answer.status !== 201)
    expect(refused.map((answer) => [answer.status, errorCode(answer)])).toEqual(
      Array(3).fill([409, 'api_key_limit_reached']),
    )
    expect((await listKeys(owner)).body.docs).toHaveLength(MAX_LIVE_API_KEYS)
    const first = answers.find((answer) => answer.status === 201)!.body as Created
    expect((await api('DELETE', `/account/api-keys/${first.id}`, { as: owner })).status).toBe(204)
    await createKey(owner, 'replacement')
  })

  it('a revoked key stops working at once and leaves the list; revoking it again is 404', async () => {
    const created = await createKey(ultimate, 'short-lived')
    expect((await withKey(created.key, 'GET', '/download')).status).toBe(200)
    const revoke = await api('DELETE', `/account/api-keys/${created.id}`, { as: ultimate })
    expect(revoke.status).toBe(204)
    expect(revoke.body).toBeNull()
    const after = await withKey(created.key, 'GET', '/download')
    expect([after.status, errorCode(after)]).toEqual([401, 'invalid_api_key'])
    expect((await listKeys(ultimate)).body.docs.map((doc: { id: number }) => doc.id)).not.toContain(created.id)
    for (const id of [String(created.id), 'abc', '-1', '99999999']) {
      const again = await api('DELETE', `/account/api-keys/${id}`, { as: ultimate })
      expect([id, again.status, errorCode(again)]).toEqual([id, 404, 'api_key_not_found'])
    }
  })
})

describe('Authorization: Bearer <key> on the customer endpoints', () => {
  it('an ultimate owner downloads the newest release with the key, recorded as theirs', async () => {
    const { key } = await createKey(ultimate, 'downloads')
    const response = await withKey(key, 'GET', '/download')
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ version: '1.1.0', filename: 'starter-kit-1.1.0.tar.gz' })
    const logged = await rows(payload(), 'downloads', { user: { equals: ultimate.user.id } })
    expect(logged.length).toBeGreaterThan(0)
  })

  it("a key download looks the entitlements up once: the strategy's check and the download share it", async () => {
    const { key } = await createKey(ultimate, 'one-lookup')
    let status = 0
    const statements = await recordQueries(payload(), async () => {
      status = (await withKey(key, 'GET', '/download')).status
    })
    expect(status).toBe(200)
    expect(statements.filter(isEntitlementsLookup)).toHaveLength(1)
    expect(statements.filter((statement) => /INSERT INTO "downloads"/.test(statement))).toHaveLength(1)
    // The key, its owner and the owner's entitlements in one statement; then the rate limit, the releases, the record.
    const keyReads = statements.filter((statement) => /FROM "api_keys" JOIN "users"/.test(statement))
    expect(keyReads).toHaveLength(1)
    expect(isEntitlementsLookup(keyReads[0]!)).toBe(true)
    // Payload's own statements (Drizzle writes their keywords in lower case) touch neither table.
    expect(statements.filter((statement) => /(?:from|join|update|into) "(?:users|api_keys)"/.test(statement))).toEqual(
      [],
    )
  })

  it('asks for and reads repository access with the key', async () => {
    const { key } = await createKey(otherUltimate, 'repo')
    const before = await withKey(key, 'GET', '/repo-access')
    expect(before.status).toBe(200)
    expect(before.body).toEqual({ status: 'none', username: null })
    const asked = await withKey(key, 'POST', '/repo-access', { username: 'kit-key-user' })
    expect(asked.status).toBe(200)
    expect(asked.body).toMatchObject({ status: 'pending', username: 'kit-key-user' })
  })

  it("reads only the owner's licenses over REST, relationships as ids", async () => {
    const { key } = await createKey(ultimate, 'licenses')
    const list = await withKey(key, 'GET', '/licenses?depth=2')
    expect(list.status).toBe(200)
    expect(list.body.docs.length).toBeGreaterThan(0)
    for (const license of list.body.docs) {
      expect(license.user).toBe(ultimate.user.id)
      expect(typeof license.plan).toBe('number')
    }
    const [theirs] = await rows(payload(), 'licenses', { user: { equals: otherUltimate.user.id } })
    const other = await withKey(key, 'GET', `/licenses/${theirs!.id}`)
    expect(other.status).toBe(404)
    const own = await withKey(key, 'GET', `/licenses/${list.body.docs[0].id}`)
    expect(own.status).toBe(200)
  })

  it('validates a license with the key sent along (validation needs no session: the key changes nothing)', async () => {
    const { key } = await createKey(ultimate, 'validate')
    const [license] = await rows(payload(), 'licenses', { user: { equals: ultimate.user.id } })
    const response = await withKey(key, 'POST', '/licenses/validate', { key: license!.key })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ valid: true, code: 'VALID' })
  })

  it("a standard owner's key: 403 feature_required on every endpoint it would open", async () => {
    const { key } = await insertKey(standard.user)
    for (const [method, path] of [
      ['GET', '/download'],
      ['GET', '/repo-access'],
      ['GET', '/licenses'],
    ] as const) {
      const response = await withKey(key, method, path)
      expect([path, response.status, errorCode(response)]).toEqual([path, 403, 'feature_required'])
    }
  })

  it('an owner who loses the license loses the key (403 feature_required) and gets it back when restored', async () => {
    const owner = await buyer(PRICES.ultimate)
    const { key } = await createKey(owner, 'lapses')
    expect((await withKey(key, 'GET', '/download')).status).toBe(200)
    const [license] = await rows(payload(), 'licenses', { user: { equals: owner.user.id } })
    await api('PATCH', `/licenses/${license!.id}`, {
      as: support,
      body: { override: 'revoked', overrideReason: 'chargeback' },
    })
    const refused = await withKey(key, 'GET', '/download')
    expect([refused.status, errorCode(refused)]).toEqual([403, 'feature_required'])
    await api('PATCH', `/licenses/${license!.id}`, {
      as: support,
      body: { override: 'active', overrideReason: 'resolved' },
    })
    expect((await withKey(key, 'GET', '/download')).status).toBe(200)
  })

  it.each([
    ['malformed', 'kit_short'],
    ['malformed, with a space', 'kit_abcdefgh_ x'],
    ['unknown', generateApiKey().key],
    ['altered', 'kit_abcdefgh_' + 'A'.repeat(43)],
  ])('401 invalid_api_key for a %s key, on custom and Payload routes alike', async (_what, key) => {
    for (const [method, path] of [
      ['GET', '/download'],
      ['POST', '/repo-access'],
      ['GET', '/licenses'],
    ] as const) {
      const response = await withKey(key, method, path, method === 'POST' ? { username: 'kit-key-user' } : undefined)
      expect([path, response.status, errorCode(response)]).toEqual([path, 401, 'invalid_api_key'])
    }
  })

  it('a refused key never falls back to the session cookie sent with it', async () => {
    const response = await api('GET', '/download', {
      headers: {
        authorization: `Bearer ${generateApiKey().key}`,
        cookie: `payload-token=${ultimate.token}`,
        'sec-fetch-site': 'same-origin',
      },
    })
    expect([response.status, errorCode(response)]).toEqual([401, 'invalid_api_key'])
    const cookieOnly = await api('GET', '/download', {
      headers: { cookie: `payload-token=${ultimate.token}`, 'sec-fetch-site': 'same-origin' },
    })
    expect(cookieOnly.status).toBe(200)
  })

  it("the key of a deleted user stops working, and the user's keys go with them", async () => {
    const owner = await buyer(PRICES.ultimate)
    const { key, id } = await createKey(owner, 'orphan')
    expect((await withKey(key, 'GET', '/licenses')).status).toBe(200)
    await payload().delete({ collection: 'users', id: owner.user.id, overrideAccess: true })
    expect(await keyRow(id)).toBeUndefined()
    const response = await withKey(key, 'GET', '/licenses')
    expect([response.status, errorCode(response)]).toEqual([401, 'invalid_api_key'])
  })

  it('records the last use at most once a minute', async () => {
    const { key, id } = await createKey(ultimate, 'touched')
    expect((await keyRow(id))?.last_used_at).toBeNull()
    await withKey(key, 'GET', '/licenses')
    const first = (await keyRow(id))?.last_used_at as Date
    expect(first).toBeInstanceOf(Date)
    await withKey(key, 'GET', '/licenses')
    expect(((await keyRow(id))?.last_used_at as Date).getTime()).toBe(first.getTime())
    await payload().db.pool.query(`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [id])
    const aged = ((await keyRow(id))?.last_used_at as Date).getTime()
    await withKey(key, 'GET', '/licenses')
    expect(((await keyRow(id))?.last_used_at as Date).getTime()).toBeGreaterThan(aged)
    const listed = (await listKeys(ultimate)).body.docs.find((doc: { id: number }) => doc.id === id)
    expect(listed.lastUsedAt).not.toBeNull()
  })

  it('is rate-limited per key: 429 rate_limited with Retry-After, other keys unaffected', async () => {
    const limited = await createKey(otherUltimate, 'busy')
    const calm = await createKey(otherUltimate, 'calm')
    await limiterOf(payload(), 'api_key').penalty(String(limited.id), 10_000)
    for (const path of ['/download', '/licenses']) {
      const response = await withKey(limited.key, 'GET', path)
      expect([path, response.status, errorCode(response)]).toEqual([path, 429, 'rate_limited'])
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    expect((await withKey(calm.key, 'GET', '/download')).status).toBe(200)
  })

  it("Payload's own JWT strategy still works, also as Authorization: Bearer <JWT>", async () => {
    const usersAuth = payload().collections.users.config.auth
    expect(usersAuth.disableLocalStrategy).toBeFalsy()
    // The key first; the hot paths' use of Payload's JWT strategy (src/auth/account-read.ts); Payload's own last.
    expect(payload().authStrategies.map((strategy) => strategy.name)).toEqual([
      API_KEY_STRATEGY,
      'hot-path-jwt',
      'local-jwt',
    ])
    const me = await api('GET', '/users/me', { headers: { authorization: `Bearer ${ultimate.token}` } })
    expect(me.body.user?.id).toBe(ultimate.user.id)
    expect((await api('GET', '/download', { as: ultimate })).status).toBe(200)
    expect((await api('GET', '/download', { headers: { authorization: `Bearer ${ultimate.token}` } })).status).toBe(200)
  })
})

describe('a key opens nothing else', () => {
  let key: string
  let keyId: number
  beforeAll(async () => {
    ;({ key, id: keyId } = await createKey(ultimate, 'restricted'))
  })

  it('cannot read or change the user (password, email, roles, name)', async () => {
    const before = await payload().findByID({ collection: 'users', id: ultimate.user.id, depth: 0 })
    for (const body of [
      { password: 'new-password-123', currentPassword: ultimate.password },
      { email: 'taken@example.test' },
      { roles: ['admin'] },
      { name: 'renamed' },
    ]) {
      for (const path of [`/users/${ultimate.user.id}`, '/users/me']) {
        const response = await withKey(key, 'PATCH', path, body)
        expect(response.status).toBeGreaterThanOrEqual(400)
      }
    }
    const patched = await withKey(key, 'PATCH', `/users/${ultimate.user.id}`, { name: 'renamed' })
    expect([patched.status, errorCode(patched)]).toEqual([403, 'api_key_not_allowed'])
    const after = await payload().findByID({ collection: 'users', id: ultimate.user.id, depth: 0 })
    expect(after).toMatchObject({ email: before.email, name: before.name, roles: before.roles })
    expect(
      (await payload().login({ collection: 'users', data: { email: ultimate.email, password: ultimate.password } }))
        .user,
    ).toBeTruthy()
    const me = await withKey(key, 'GET', '/users/me')
    expect(me.body?.user ?? null).toBeNull()
    expect((await withKey(key, 'GET', `/users/${ultimate.user.id}`)).status).toBe(403)
    expect((await withKey(key, 'DELETE', `/users/${ultimate.user.id}`)).status).toBe(403)
    expect((await withKey(key, 'POST', '/users/refresh-token')).status).toBeGreaterThanOrEqual(400)
  })

  it('cannot create, list or revoke API keys (a key cannot mint keys)', async () => {
    const count = (await rows(payload(), 'api_keys', { user: { equals: ultimate.user.id } })).length
    for (const [method, path, body] of [
      ['POST', '/account/api-keys', { name: 'minted' }],
      ['GET', '/account/api-keys', undefined],
      ['DELETE', `/account/api-keys/${keyId}`, undefined],
      ['POST', '/api_keys', { name: 'minted', prefix: 'kit_x', keyHash: 'x', user: ultimate.user.id }],
    ] as const) {
      const response = await withKey(key, method, path, body)
      expect([method, path, response.status, errorCode(response)]).toEqual([method, path, 403, 'api_key_not_allowed'])
    }
    expect((await rows(payload(), 'api_keys', { user: { equals: ultimate.user.id } })).length).toBe(count)
    expect((await withKey(key, 'GET', '/download')).status).toBe(200)
  })

  it('reads no other collection over REST', async () => {
    for (const path of [
      '/api_keys',
      `/api_keys/${keyId}`,
      '/downloads',
      '/one_time_purchases',
      '/payment_history',
      '/repo_access',
      '/user_subscriptions',
      '/audit_log',
      '/users',
    ]) {
      const response = await withKey(key, 'GET', path)
      expect([path, response.status, errorCode(response)]).toEqual([path, 403, 'api_key_not_allowed'])
    }
  })

  it('opens nothing over GraphQL, mutations included', async () => {
    const mutation = await graphqlWithKey(
      key,
      `mutation { updateUser(id: ${ultimate.user.id}, data: { name: "graphql-renamed" }) { id name } }`,
    )
    expect(mutation.errors?.length).toBeGreaterThan(0)
    expect((await payload().findByID({ collection: 'users', id: ultimate.user.id, depth: 0 })).name).not.toBe(
      'graphql-renamed',
    )
    const keys = await graphqlWithKey(key, '{ ApiKeys { docs { id prefix } } }')
    expect(keys.data?.ApiKeys ?? null).toBeNull()
    const licenses = await graphqlWithKey(key, '{ Licenses { docs { id } } }')
    expect(licenses.data?.Licenses ?? null).toBeNull()
    const me = await graphqlWithKey(key, '{ meUser { user { id email } } }')
    expect((me.data?.meUser as { user: unknown } | null)?.user ?? null).toBeNull()
  })

  it('opens no admin and no page session (they authenticate without a REST route)', async () => {
    const { user } = await payload().auth({ headers: new Headers({ authorization: `Bearer ${key}` }) })
    expect(user).toBeNull()
  })

  it("a staff member's key has a customer's rights only", async () => {
    const { key: adminKey } = await createKey(admin, 'admin key')
    const list = await withKey(adminKey, 'GET', '/licenses?limit=100')
    expect(list.status).toBe(200)
    expect(list.body.docs.length).toBeGreaterThan(0)
    expect(list.body.docs.every((license: { user: number }) => license.user === admin.user.id)).toBe(true)
    expect((await withKey(adminKey, 'GET', '/users')).status).toBe(403)
  })

  it('the restriction holds beyond the routes: a key-marked user is refused by users and api_keys access', async () => {
    const marked = { ...admin.user, collection: 'users' as const, _strategy: API_KEY_STRATEGY }
    const as = { overrideAccess: false, user: marked }
    await expect(
      payload().update({ collection: 'users', id: admin.user.id, data: { name: 'marked' }, ...as }),
    ).rejects.toBeInstanceOf(Forbidden)
    await expect(payload().find({ collection: 'users', ...as })).rejects.toBeInstanceOf(Forbidden)
    await expect(payload().find({ collection: 'api_keys', ...as })).rejects.toBeInstanceOf(Forbidden)
    await expect(payload().delete({ collection: 'api_keys', id: keyId, ...as })).rejects.toBeInstanceOf(Forbidden)
    const adminAccess = payload().collections.users.config.access.admin
    const req = { user: marked, payload: payload(), context: {} } as never
    expect(await adminAccess({ req })).toBe(false)
    expect(
      await adminAccess({
        req: { user: { ...admin.user, collection: 'users' }, payload: payload(), context: {} } as never,
      }),
    ).toBe(true)
  })
})

describe('api_keys across two customers (IDOR), REST and GraphQL', () => {
  let mine: Created
  let theirs: Created
  beforeAll(async () => {
    mine = await createKey(ultimate, 'A key')
    theirs = await createKey(otherUltimate, 'B key')
  })

  it("B cannot list A's keys (endpoint, REST, GraphQL)", async () => {
    const endpoint = await listKeys(otherUltimate)
    expect(endpoint.body.docs.map((doc: { id: number }) => doc.id)).not.toContain(mine.id)
    expect(endpoint.body.docs.map((doc: { id: number }) => doc.id)).toContain(theirs.id)
    const rest = await api('GET', '/api_keys?limit=100', { as: otherUltimate })
    expect(rest.status).toBe(200)
    expect(rest.body.docs.map((doc: { id: number }) => doc.id)).not.toContain(mine.id)
    expect(rest.body.docs.map((doc: { id: number }) => doc.id)).toContain(theirs.id)
    const byWhere = await api('GET', `/api_keys?where[user][equals]=${ultimate.user.id}`, { as: otherUltimate })
    expect(byWhere.body.docs ?? []).toEqual([])
    const result = await sessionGraphql('{ ApiKeys(limit: 100) { docs { id prefix } } }', otherUltimate)
    const ids = (result.data?.ApiKeys?.docs ?? []).map((doc) => doc.id)
    expect(ids).not.toContain(mine.id)
    expect(ids).toContain(theirs.id)
  })

  it("B cannot read A's key by id (REST 404, GraphQL nothing)", async () => {
    const rest = await api('GET', `/api_keys/${mine.id}`, { as: otherUltimate })
    expect(rest.status).toBe(404)
    expect(JSON.stringify(rest.body)).not.toContain(mine.prefix)
    const result = await sessionGraphql(`{ ApiKey(id: ${mine.id}) { id prefix } }`, otherUltimate)
    expect(JSON.stringify(result.data ?? null)).not.toContain(mine.prefix)
  })

  it("B cannot revoke A's key (endpoint 404, REST refused), and A's key still works", async () => {
    const endpoint = await api('DELETE', `/account/api-keys/${mine.id}`, { as: otherUltimate })
    expect([endpoint.status, errorCode(endpoint)]).toEqual([404, 'api_key_not_found'])
    const rest = await api('DELETE', `/api_keys/${mine.id}`, { as: otherUltimate })
    expect(rest.status).toBe(403)
    const result = await sessionGraphql(`mutation { deleteApiKey(id: ${mine.id}) { id } }`, otherUltimate)
    expect(result.errors?.length).toBeGreaterThan(0)
    expect((await withKey(mine.key, 'GET', '/download')).status).toBe(200)
  })

  it("a customer reads their own keys' public fields only, and writes none through REST or GraphQL", async () => {
    const rest = await api('GET', `/api_keys/${mine.id}`, { as: ultimate })
    expect(rest.status).toBe(200)
    expect(Object.keys(rest.body).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'prefix'])
    const hash = await sessionGraphql('{ ApiKeys { docs { id keyHash } } }', ultimate)
    const docs = hash.data?.ApiKeys?.docs ?? []
    expect(docs.map((doc) => doc.id)).toContain(mine.id)
    expect(docs.every((doc) => doc.keyHash === null)).toBe(true)
    expect(JSON.stringify(hash)).not.toContain(hashApiKey(mine.key))
    const owner = await sessionGraphql('{ ApiKeys { docs { id user { id } revokedAt } } }', ultimate)
    expect(JSON.stringify(owner.data ?? null)).not.toContain(String(ultimate.email))
    expect(
      (
        await api('PATCH', `/api_keys/${mine.id}`, {
          as: ultimate,
          body: { name: 'renamed', user: otherUltimate.user.id },
        })
      ).status,
    ).toBe(403)
    expect(
      (
        await api('POST', '/api_keys', {
          as: ultimate,
          body: { name: 'forged', prefix: 'kit_forged00', keyHash: hashApiKey('x'), user: ultimate.user.id },
        })
      ).status,
    ).toBe(403)
    expect((await api('DELETE', `/api_keys/${mine.id}`, { as: ultimate })).status).toBe(403)
    const created = await sessionGraphql(
      'mutation { createApiKey(data: { name: "forged", prefix: "kit_forged00" }) { id } }',
      ultimate,
    )
    expect(created.errors?.length).toBeGreaterThan(0)
  })

  it('revoked keys are history: the customer no longer reads them, support does', async () => {
    const gone = await createKey(ultimate, 'gone')
    await api('DELETE', `/account/api-keys/${gone.id}`, { as: ultimate })
    expect((await api('GET', `/api_keys/${gone.id}`, { as: ultimate })).status).toBe(404)
    const staffView = await api('GET', `/api_keys/${gone.id}`, { as: support })
    expect(staffView.status).toBe(200)
    expect(staffView.body.revokedAt).toBeTruthy()
  })

  it("support reads every key's prefix and owner, never the hash, and deletes none; admins delete", async () => {
    const list = await api('GET', '/api_keys?limit=100&depth=0', { as: support })
    expect(list.status).toBe(200)
    const row = list.body.docs.find((doc: { id: number }) => doc.id === mine.id)
    expect(row).toMatchObject({ prefix: mine.prefix, user: ultimate.user.id, name: 'A key' })
    expect(row.keyHash).toBeUndefined()
    expect(JSON.stringify(list.body)).not.toContain(hashApiKey(mine.key))
    expect((await api('DELETE', `/api_keys/${mine.id}`, { as: support })).status).toBe(403)
    expect((await api('DELETE', `/api_keys/${mine.id}`, { as: admin })).status).toBe(200)
    const response = await withKey(mine.key, 'GET', '/download')
    expect([response.status, errorCode(response)]).toEqual([401, 'invalid_api_key'])
  })
})
