import './../support/billing-env'

import fs from 'node:fs'
import path from 'node:path'

import { getIntrospectionQuery, parse } from 'graphql'
import { beforeAll, describe, expect, it } from 'vitest'

import config from '../../payload.config'
import { GRAPHQL_LIMITS, guardedGraphQLPost, measureGraphQL } from '../../src/auth/graphql-guard'
import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { CLIENT_ADDRESS_HEADER } from '../../src/http/client-address'
import { seedStandInPlans } from '../support/billing'
import { createUser, SERVER_URL, type TestUser, usePayload } from '../support/payload'
import { recordOwnRun } from '../support/queries'

/**
 * GraphQL's cost (issue 43): one anonymous request with 200 aliases of `Plans(limit: 100)` held the
 * server for seconds. The route's handler (src/auth/graphql-guard.ts) measures a document before Payload
 * sees it and counts requests per client address; staff keep Payload's own bounds.
 */
const payload = usePayload()
const post = guardedGraphQLPost(config)

let admin: TestUser
let customer: TestUser

beforeAll(async () => {
  await seedStandInPlans(payload())
  admin = await createUser(payload(), 'admin')
  customer = await createUser(payload(), 'customer')
})

let next = 0
const freshAddress = () => `198.18.${(next >> 8) & 255}.${(next += 1) & 255}`

const send = async (body: unknown, options: { as?: TestUser; address?: string } = {}) => {
  const headers = new Headers({
    'content-type': 'application/json',
    [CLIENT_ADDRESS_HEADER]: options.address ?? freshAddress(),
  })
  if (options.as) headers.set('authorization', `JWT ${options.as.token}`)
  const response = await post(
    new Request(`${SERVER_URL}/api/graphql`, { method: 'POST', headers, body: JSON.stringify(body) }),
  )
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as {
      data?: Record<string, unknown>
      errors?: { message: string; extensions?: { code?: string } }[]
    },
  }
}

const aliases = (count: number) =>
  `{ ${Array.from({ length: count }, (_, index) => `a${index}: Plans(limit: 100) { docs { id name } }`).join(' ')} }`

describe('the cost of one request, for visitors and customers', () => {
  it('200 aliases of Plans(limit: 100) are refused at once, before any database statement, with a clear error', async () => {
    let answer: Awaited<ReturnType<typeof send>> | undefined
    const started = performance.now()
    const { statements } = await recordOwnRun(payload(), async () => {
      answer = await send({ query: aliases(200) })
    })
    const elapsed = performance.now() - started
    expect(answer!.status).toBe(400)
    expect(answer!.body.errors).toEqual([
      {
        message: expect.stringMatching(/200 top-level fields .* at most 8/),
        extensions: { code: 'query_too_complex' },
      },
    ])
    expect(answer!.body.data).toBeUndefined()
    expect(statements).toEqual([])
    // Not a timing assertion of the service's speed: a generous bound that only a query actually run would pass.
    expect(elapsed).toBeLessThan(1_000)
    // And as a customer, the same.
    expect((await send({ query: aliases(200) }, { as: customer })).body.errors?.[0]?.extensions?.code).toBe(
      'query_too_complex',
    )
  })

  it('what a client reasonably asks passes: one list of 100 plans, a few top-level fields, the standard introspection query', async () => {
    const plans = await send({ query: '{ Plans(limit: 100) { docs { id name } } }' })
    expect(plans.status).toBe(200)
    expect(plans.body.errors).toBeUndefined()
    expect(Array.isArray((plans.body.data!.Plans as { docs: unknown[] }).docs)).toBe(true)
    expect((await send({ query: aliases(GRAPHQL_LIMITS.maxRootFields) })).status).toBe(200)
    const introspection = await send({ query: getIntrospectionQuery() })
    expect(introspection.body.errors?.some((error) => error.extensions?.code === 'query_too_complex') ?? false).toBe(
      false,
    )
  })

  it.each([
    ['an unbounded list (pagination: false)', { query: '{ Plans(pagination: false) { docs { id name slug } } }' }],
    ['limit 0 (every document)', { query: '{ Plans(limit: 0) { docs { id name slug } } }' }],
    [
      'a huge limit through a variable',
      {
        query: 'query Big($limit: Int) { Plans(limit: $limit) { docs { id name slug } } }',
        variables: { limit: 100_000 },
      },
    ],
    [
      'two operations in one document',
      { query: 'query A { Plans { docs { id } } } query B { Plans { docs { id } } }', operationName: 'A' },
    ],
    ['9 top-level fields', { query: aliases(9) }],
    [
      'aliases hidden in a fragment',
      {
        query: `query { ...Many } fragment Many on Query { ${Array.from({ length: 30 }, (_, index) => `p${index}: Plans { docs { id } }`).join(' ')} }`,
      },
    ],
    ['a document of more than 5,000 tokens', { query: `{ Plans { docs { ${'id '.repeat(6_000)} } } }` }],
  ])('refuses %s with 400 query_too_complex and runs nothing', async (_name, body) => {
    const { statements } = await recordOwnRun(payload(), async () => {
      const answer = await send(body)
      expect(answer.status).toBe(400)
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('query_too_complex')
      expect(answer.body.errors?.[0]?.message).toMatch(/\w+ \w+/)
    })
    expect(statements).toEqual([])
  })

  it('nested joins count once per document each list may return', () => {
    const nested = parse('{ Users { docs { licenses { docs { id key } } } } }')
    // Users: 1; docs: 10 x (1 + licenses: 1 + docs: 10 x (1 + 2)).
    expect(measureGraphQL(nested)).toMatchObject({ rootFields: 1, depth: 5, cost: 1 + 10 * (1 + 1 + 10 * 3) })
    expect(measureGraphQL(parse('query($n: Int) { Plans(limit: $n) { docs { id } } }'), { n: 50 }).cost).toBe(
      1 + 50 * 2,
    )
  })
})

describe('staff keep what they had', () => {
  it("an admin's 200 aliases go to Payload as before (its own complexity bound applies)", async () => {
    const answer = await send({ query: aliases(200) }, { as: admin })
    expect(answer.status).toBe(200)
    expect(Object.keys(answer.body.data ?? {})).toHaveLength(200)
  })

  it('an admin is not counted against the address limit; a forged staff token is', async () => {
    const address = freshAddress()
    for (let request = 0; request < RATE_LIMITS['graphql:ip'].points + 5; request += 1) {
      expect((await send({ query: '{ Plans { docs { id } } }' }, { as: admin, address })).status).toBe(200)
    }
    const forged = { ...customer, token: `${admin.token.slice(0, -4)}AAAA` }
    expect((await send({ query: aliases(200) }, { as: forged })).body.errors?.[0]?.extensions?.code).toBe(
      'query_too_complex',
    )
  })
})

describe('requests per client address', () => {
  it(`${RATE_LIMITS['graphql:ip'].points} a minute per address, then 429 rate_limited with Retry-After; another address is not affected`, async () => {
    const address = freshAddress()
    const limit = RATE_LIMITS['graphql:ip'].points
    for (let request = 0; request < limit; request += 1)
      expect((await send({ query: '{ Plans { docs { id } } }' }, { address })).status).toBe(200)
    const limited = await send({ query: '{ Plans { docs { id } } }' }, { address, as: customer })
    expect(limited.status).toBe(429)
    expect(limited.body.errors).toEqual([
      { message: expect.stringMatching(/Too many GraphQL requests/), extensions: { code: 'rate_limited' } },
    ])
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await send({ query: '{ Plans { docs { id } } }' })).status).toBe(200)
  })
})

describe('who sends GraphQL', () => {
  it("the site's pages and the admin send none: no module under src/app asks /api/graphql but its route", () => {
    const walk = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
    const senders = walk(path.resolve('src/app')).filter(
      (file) =>
        /\.tsx?$/.test(file) &&
        !file.endsWith(path.join('api', 'graphql', 'route.ts')) &&
        /\/graphql\b/.test(fs.readFileSync(file, 'utf8')),
    )
    expect(senders).toEqual([])
  })
})
