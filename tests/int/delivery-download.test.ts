import './../support/billing-env'

import pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'

import { signDownload } from '../../src/delivery/signing'
import { PRICES, service, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import { isEntitlementsLookup, recordQueries } from '../support/queries'
import { createRelease } from '../support/releases'

const payload = usePayload()
const SECRET = process.env.PAYLOAD_SECRET!
const bytesOf: Record<string, Buffer> = {}
const buyers: Record<'standard' | 'ultimate' | 'pro' | 'revoked' | 'expired' | 'none', TestUser> = {} as never

beforeAll(async () => {
  await seedStandInPlans(payload())
  for (const [version, published] of [
    ['0.9.0', true],
    ['1.0.0', true],
    ['1.1.0', true],
    ['2.0.0-beta.1', true],
    ['2.0.0', false],
  ] as const) {
    const { bytes } = await createRelease(
      payload(),
      version,
      published ? new Date(Date.now() - 60_000) : new Date(Date.now() + 86_400_000),
    )
    bytesOf[version] = bytes
  }
  buyers.standard = await createUser(payload(), 'customer')
  await buy(PRICES.standard, { as: buyers.standard })
  buyers.ultimate = await createUser(payload(), 'customer')
  await buy(PRICES.ultimate, { as: buyers.ultimate })
  buyers.pro = await createUser(payload(), 'customer')
  await buy(PRICES.proMonthly, { as: buyers.pro })
  buyers.revoked = await createUser(payload(), 'customer')
  const refunded = await buy(PRICES.ultimate, { as: buyers.revoked })
  await standIn.refund(refunded.events.find((event) => event.type === 'charge.succeeded')!.data.object.id)
  buyers.expired = await createUser(payload(), 'customer')
  const lapsed = await buy(PRICES.proYearly, { as: buyers.expired })
  await standIn.cancelSubscription(
    lapsed.events.find((event) => event.type === 'customer.subscription.created')!.data.object.id,
  )
  await standIn.settled()
  buyers.none = await createUser(payload(), 'customer')
})

const download = (who: TestUser | null, query = '') => api('GET', `/download${query}`, { as: who })
/** Links name SERVER_URL; the tests' HTTP front for Payload stands in for it. */
const local = (url: string) => url.replace('http://localhost:3000', service.url)

describe('the download contract', () => {
  it.each([
    ['standard', '', 200, '1.1.0'],
    ['standard', '?version=latest', 403, 'version_not_allowed'],
    ['standard', '?version=1.0.0', 200, '1.0.0'],
    ['standard', '?version=2.0.0-beta.1', 403, 'version_not_allowed'],
    ['standard', '?version=2.0.0', 404, 'version_not_found'],
    ['standard', '?version=9.9.9', 404, 'version_not_found'],
    ['ultimate', '', 200, '2.0.0-beta.1'],
    ['ultimate', '?version=latest', 200, '2.0.0-beta.1'],
    ['ultimate', '?version=0.9.0', 200, '0.9.0'],
    ['ultimate', '?version=2.0.0', 404, 'version_not_found'],
    ['pro', '', 200, '2.0.0-beta.1'],
    ['pro', '?version=latest', 200, '2.0.0-beta.1'],
    ['revoked', '', 403, 'license_required'],
    ['revoked', '?version=1.0.0', 403, 'license_required'],
    ['expired', '', 403, 'license_required'],
    ['none', '', 403, 'license_required'],
    ['none', '?version=latest', 403, 'license_required'],
  ] as const)('%s %s -> %i %s', async (who, query, status, expected) => {
    const response = await download(buyers[who], query)
    expect(response.status).toBe(status)
    if (status === 200) {
      expect(response.body).toMatchObject({ version: expected, filename: `starter-kit-${expected}.tar.gz` })
      expect(new Date(response.body.expiresAt).getTime() - Date.now()).toBeGreaterThan(290_000)
      expect(new Date(response.body.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(300_000)
    } else {
      expect(response.body.errors[0].code).toBe(expected)
    }
  })

  it('401 without a session', async () => {
    const response = await download(null)
    expect(response.status).toBe(401)
    expect(response.body.errors[0].code).toBe('unauthenticated')
  })

  it.each([
    '?version=../x',
    '?version=..%2f',
    '?version=%00',
    '?version=latest/../..',
    '?version=1.0.0&version=1.1.0',
    `?version=${'1'.repeat(1024)}`,
    '?version=',
    '?version=v1.0.0',
    '?version=1.0',
    '?version=..%2F..%2Fetc%2Fpasswd',
  ])('400 invalid_version for %s, and nothing is recorded', async (query) => {
    const before = (await rows(payload(), 'downloads')).length
    const response = await download(buyers.ultimate, query)
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe('invalid_version')
    expect((await rows(payload(), 'downloads')).length).toBe(before)
  })
})

describe('signed links', () => {
  it('serve exactly the uploaded bytes as an attachment, with ranges', async () => {
    const { body } = await download(buyers.standard, '?version=1.0.0')
    const file = await fetch(local(body.url))
    expect(file.status).toBe(200)
    expect(file.headers.get('content-disposition')).toContain('attachment; filename="starter-kit-1.0.0.tar.gz"')
    expect(Buffer.from(await file.arrayBuffer()).equals(bytesOf['1.0.0']!)).toBe(true)

    const part = await fetch(local(body.url), { headers: { range: 'bytes=10-19' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${bytesOf['1.0.0']!.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(bytesOf['1.0.0']!.subarray(10, 20))).toBe(true)
    expect((await fetch(local(body.url), { headers: { range: 'bytes=999999-' } })).status).toBe(416)
  })

  it('refuse an expired or altered link with 403', async () => {
    const { body } = await download(buyers.ultimate, '?version=1.1.0')
    const url = new URL(local(body.url))
    const tampered = (change: (params: URLSearchParams) => void, pathname = url.pathname) => {
      const copy = new URL(url)
      copy.pathname = pathname
      change(copy.searchParams)
      return fetch(copy)
    }
    const release = url.pathname.split('/').pop()!
    const otherRelease = (await rows(payload(), 'releases', { version: { equals: '1.0.0' } }))[0]!.id
    for (const response of [
      await tampered((params) => params.set('signature', `${params.get('signature')!.slice(0, -2)}xx`)),
      await tampered((params) => params.set('user', String(buyers.standard.user.id))),
      await tampered((params) => params.set('expires', String(Number(params.get('expires')) + 3600))),
      await tampered(() => undefined, url.pathname.replace(new RegExp(`/${release}$`), `/${otherRelease}`)),
      await tampered((params) => params.delete('signature')),
    ]) {
      expect(response.status).toBe(403)
      expect(((await response.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('invalid_link')
    }
    const past = Math.floor(Date.now() / 1000) - 1
    const expired = new URL(url)
    expired.searchParams.set('expires', String(past))
    expired.searchParams.set('signature', signDownload(SECRET, Number(release), buyers.ultimate.user.id, past))
    const response = await fetch(expired)
    expect(response.status).toBe(403)
    expect(((await response.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('link_expired')
  })

  it('a license revoked after a link was issued gets no new one', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    expect((await download(buyer)).status).toBe(200)
    const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    const support = await createUser(payload(), 'support')
    await api('PATCH', `/licenses/${license!.id}`, {
      as: support,
      body: { override: 'revoked', overrideReason: 'fraud' },
    })
    const again = await download(buyer)
    expect(again.status).toBe(403)
    expect(again.body.errors[0].code).toBe('license_required')
  })

  it('customers cannot list releases or fetch their files directly', async () => {
    const [release] = await rows(payload(), 'releases', { version: { equals: '1.0.0' } })
    for (const who of [buyers.ultimate, null]) {
      expect([401, 403]).toContain((await api('GET', '/releases', { as: who })).status)
      expect([401, 403]).toContain((await api('GET', `/releases/file/${release!.filename}`, { as: who })).status)
    }
  })
})

describe('download history and counts', () => {
  it('50 concurrent requests add exactly 50 rows and 50 to each count', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.ultimate, { as: buyer })
    const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    const [release] = await rows(payload(), 'releases', { version: { equals: '0.9.0' } })
    const releaseBefore = release!.downloadCount ?? 0
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        api('GET', '/download?version=0.9.0', {
          as: buyer,
          headers: { 'x-kit-client-address': '203.0.113.77', 'user-agent': 'bench/1.0' },
        }),
      ),
    )
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200))
    const history = await rows(payload(), 'downloads', { user: { equals: buyer.user.id } })
    expect(history).toHaveLength(50)
    expect(history[0]).toMatchObject({
      version: '0.9.0',
      license: license!.id,
      release: release!.id,
      clientAddress: '203.0.113.0',
      userAgent: 'bench/1.0',
    })
    const after = await payload().findByID({ collection: 'licenses', id: license!.id })
    expect(after.downloadCount).toBe(50)
    expect(after.lastDownloadedAt).toBeTruthy()
    expect((await payload().findByID({ collection: 'releases', id: release!.id })).downloadCount).toBe(
      releaseBefore + 50,
    )
  })

  it('customers see their own history only', async () => {
    const own = await api('GET', '/downloads?limit=100', { as: buyers.standard })
    expect(own.status).toBe(200)
    expect(own.body.docs.length).toBeGreaterThan(0)
    expect(own.body.docs.every((doc: { user: { id: number } }) => doc.user.id === buyers.standard.user.id)).toBe(true)
    expect((await api('GET', '/downloads', { as: buyers.none })).body.docs).toEqual([])
  })
})

describe('the cost of a download', () => {
  it.each([
    ['an exact version', '?version=1.0.0'],
    ['the newest allowed', ''],
    ['latest', '?version=latest'],
  ])(
    "%s: 3 round trips (the session's user, the entitlements with the releases, the record with both counts)",
    async (_what, query) => {
      const who = query === '?version=latest' ? buyers.ultimate : buyers.standard
      let status = 0
      const statements = await recordQueries(payload(), async () => {
        status = (await download(who, query)).status
      })
      expect(status).toBe(200)
      expect(statements).toHaveLength(3)
      expect(statements[0]).toMatch(/FROM "users" WHERE "users"\."id"/)
      expect(isEntitlementsLookup(statements[1]!)).toBe(true)
      expect(statements[1]).toMatch(/FROM "releases"/)
      expect(statements[2]).toMatch(/INSERT INTO "downloads"/)
    },
  )

  it('a refusal stops before the record: 2 round trips for a customer without a license', async () => {
    const statements = await recordQueries(payload(), async () => {
      expect((await download(buyers.none)).status).toBe(403)
    })
    expect(statements).toHaveLength(2)
  })

  it("the count is the request's own: a query another task sends on the same pool meanwhile is not in it", async () => {
    const pool = (payload().db as unknown as { pool: pg.Pool }).pool
    let beside: Promise<unknown> | null = null
    // Scheduled outside the recording, it runs during it: on the process-wide recorder it would count.
    setTimeout(() => {
      beside = pool.query('SELECT 1')
    }, 0)
    const statements = await recordQueries(payload(), async () => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect((await download(buyers.none)).status).toBe(403)
    })
    expect(beside).not.toBeNull()
    // TypeScript narrows `beside` to null: it cannot see the assignment in the timer's callback.
    await (beside as Promise<unknown> | null)
    expect(statements).toHaveLength(2)
    expect(statements.some((statement) => statement === 'SELECT 1')).toBe(false)
  })
})

describe('a release withdrawn while a download is being recorded', () => {
  it('answers 404 version_not_found and records and counts nothing', async () => {
    await createRelease(payload(), '0.8.0', new Date(Date.now() - 60_000))
    const [release] = await rows(payload(), 'releases', { version: { equals: '0.8.0' } })
    const [license] = await rows(payload(), 'licenses', { user: { equals: buyers.ultimate.user.id } })
    const countBefore = license!.downloadCount ?? 0
    const historyBefore = (await rows(payload(), 'downloads', { user: { equals: buyers.ultimate.user.id } })).length

    const staff = new pg.Client({ connectionString: process.env.DATABASE_URL })
    const watcher = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await Promise.all([staff.connect(), watcher.connect()])
    try {
      // Staff delete the release in a transaction still open: the download still reads it, and its
      // record's foreign key waits on the deleting transaction.
      await staff.query('BEGIN')
      await staff.query('DELETE FROM releases WHERE id = $1', [release!.id])
      const pending = download(buyers.ultimate, '?version=0.8.0')
      const blocked = async () => {
        const { rows: waiting } = await watcher.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO "downloads"%'`,
        )
        return waiting.length > 0
      }
      const deadline = Date.now() + 10_000
      while (!(await blocked())) {
        if (Date.now() > deadline) throw new Error('the download never waited on the deleting transaction')
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await staff.query('COMMIT')
      const response = await pending
      expect(response.status).toBe(404)
      expect(response.body.errors[0].code).toBe('version_not_found')
    } finally {
      await staff.query('ROLLBACK').catch(() => undefined)
      await Promise.all([staff.end(), watcher.end()])
    }
    expect((await payload().findByID({ collection: 'licenses', id: license!.id })).downloadCount ?? 0).toBe(countBefore)
    expect(await rows(payload(), 'downloads', { user: { equals: buyers.ultimate.user.id } })).toHaveLength(
      historyBefore,
    )
  })
})
