import './../support/billing-env'
import './../support/templates-env'

import crypto from 'node:crypto'
import zlib from 'node:zlib'

import { beforeAll, describe, expect, it } from 'vitest'

import { signDownload } from '../../src/delivery/signing'
import { signTemplateLink } from '../../src/delivery/templates'
import type { Template } from '../../src/payload-types'
import { PRICES, service } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import {
  grantLicense,
  grantsPaidKey,
  LICENSE_STATES,
  type LicenseState,
  PLAN_SLUGS,
  type PlanSlug,
} from '../support/licenses'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()
const SECRET = process.env.PAYLOAD_SECRET!
const ARCHIVE_FIELDS = [
  'filename',
  'mimeType',
  'filesize',
  'url',
  'thumbnailURL',
  'width',
  'height',
  'prefix',
  '_objectKey',
  'downloadCount',
]

const templates: Record<'dashboard' | 'billing' | 'future' | 'draft', { doc: Template; bytes: Buffer }> = {} as never
let admin: TestUser
let holder: TestUser
let other: TestUser
let nobody: TestUser
const byPlanAndState = new Map<string, TestUser>()

const createTemplate = async (slug: string, category: Template['category'], publishedAt: Date | null) => {
  const bytes = zlib.gzipSync(crypto.randomBytes(2048 + Math.floor(Math.random() * 1024)))
  const doc = await payload().create({
    collection: 'templates',
    data: {
      name: `Template ${slug}`,
      slug,
      description: `The ${slug} template.`,
      category,
      publishedAt: publishedAt?.toISOString() ?? null,
    },
    file: { data: bytes, mimetype: 'application/gzip', name: `${slug}.tar.gz`, size: bytes.length },
  })
  return { doc, bytes }
}

beforeAll(async () => {
  await seedStandInPlans(payload())
  admin = await createUser(payload(), 'admin')
  templates.dashboard = await createTemplate('saas-dashboard', 'dashboard', new Date(Date.now() - 120_000))
  templates.billing = await createTemplate('billing-pages', 'billing', new Date(Date.now() - 60_000))
  templates.future = await createTemplate('next-month', 'marketing', new Date(Date.now() + 30 * 86_400_000))
  templates.draft = await createTemplate('draft', 'auth', null)
  holder = await createUser(payload(), 'customer')
  await grantLicense(payload(), holder, 'standard', 'active')
  other = await createUser(payload(), 'customer')
  await grantLicense(payload(), other, 'ultimate', 'active')
  nobody = await createUser(payload(), 'customer')
  for (const plan of PLAN_SLUGS) {
    for (const state of LICENSE_STATES) {
      const user = await createUser(payload(), 'customer')
      await grantLicense(payload(), user, plan, state)
      byPlanAndState.set(`${plan}:${state}`, user)
    }
  }
})

const download = (who: TestUser | null, id: number | string) => api('GET', `/templates/${id}/download`, { as: who })
/** Links name SERVER_URL; the tests' HTTP front for Payload stands in for it. */
const local = (url: string) => url.replace('http://localhost:3000', service.url)
const codeOf = async (response: Response) => ((await response.json()) as { errors: { code: string }[] }).errors[0]!.code

describe('the catalogue', () => {
  it.each([
    ['anyone', () => null],
    ['a customer without the key', () => nobody],
    ['a holder of the key', () => holder],
  ])('%s lists published templates with their public fields only', async (_who, as) => {
    const response = await api('GET', '/templates?limit=100', { as: as() })
    expect(response.status).toBe(200)
    expect(response.body.docs.map((doc: Template) => doc.slug)).toEqual(['billing-pages', 'saas-dashboard'])
    for (const doc of response.body.docs as Record<string, unknown>[]) {
      expect(doc).toMatchObject({
        name: expect.any(String),
        description: expect.any(String),
        category: expect.any(String),
        publishedAt: expect.any(String),
      })
      for (const field of ARCHIVE_FIELDS) expect(doc).not.toHaveProperty(field)
    }
    const one = await api('GET', `/templates/${templates.dashboard.doc.id}`, { as: as() })
    expect(one.status).toBe(200)
    for (const field of ARCHIVE_FIELDS) expect(one.body).not.toHaveProperty(field)
  })

  it('unpublished templates are not in it, by list or by id', async () => {
    for (const who of [null, holder]) {
      expect((await api('GET', `/templates/${templates.future.doc.id}`, { as: who })).status).toBe(404)
      expect((await api('GET', `/templates/${templates.draft.doc.id}`, { as: who })).status).toBe(404)
    }
  })

  it('the archive fields cannot be queried or read over GraphQL by customers', async () => {
    const probe = await api(
      'GET',
      `/templates?where[filename][equals]=${encodeURIComponent(templates.dashboard.doc.filename!)}`,
      { as: holder },
    )
    expect(probe.status).toBe(400)
    const viaGraphql = await graphql(
      '{ Templates(limit: 100) { docs { slug filename url mimeType filesize prefix } } }',
      holder,
    )
    const docs = viaGraphql.data?.Templates?.docs ?? []
    expect(docs.map((doc) => doc.slug)).toEqual(['billing-pages', 'saas-dashboard'])
    for (const doc of docs)
      expect([doc.filename, doc.url, doc.mimeType, doc.filesize, doc.prefix]).toEqual([null, null, null, null, null])
  })

  it('staff see every template and its archive fields', async () => {
    const response = await api('GET', '/templates?limit=100', { as: admin })
    expect(response.body.docs).toHaveLength(4)
    expect(response.body.docs.find((doc: Template) => doc.slug === 'draft')).toMatchObject({
      filename: 'draft.tar.gz',
      mimeType: 'application/gzip',
    })
  })

  it("Payload's own file route serves the archive to staff only", async () => {
    const path = `/templates/file/${templates.dashboard.doc.filename}`
    for (const who of [null, nobody, holder]) expect([401, 403]).toContain((await api('GET', path, { as: who })).status)
    expect((await api('GET', path, { as: admin })).status).toBe(200)
  })

  it('customers cannot add, change or remove templates', async () => {
    const id = templates.dashboard.doc.id
    expect((await api('PATCH', `/templates/${id}`, { as: holder, body: { name: 'Hacked' } })).status).toBe(403)
    expect((await api('DELETE', `/templates/${id}`, { as: holder })).status).toBe(403)
    const mutation = await graphql(`mutation { updateTemplate(id: ${id}, data: { name: "Hacked" }) { name } }`, holder)
    expect(mutation.errors?.length).toBeGreaterThan(0)
    expect((await payload().findByID({ collection: 'templates', id })).name).toBe('Template saas-dashboard')
  })
})

describe('downloads for every plan and license state', () => {
  const cases = PLAN_SLUGS.flatMap((plan) => LICENSE_STATES.map((state) => [plan, state] as [PlanSlug, LicenseState]))
  it.each(cases)('%s license, %s', async (plan, state) => {
    const response = await download(byPlanAndState.get(`${plan}:${state}`)!, templates.dashboard.doc.id)
    if (grantsPaidKey(plan, state, 'templates')) {
      expect(response.status).toBe(200)
      expect(Object.keys(response.body).sort()).toEqual(['expiresAt', 'url'])
    } else {
      expect(response.status).toBe(403)
      expect(response.body.errors[0].code).toBe('feature_required')
    }
  })

  it('no license: 403 feature_required; no session: 401', async () => {
    const refused = await download(nobody, templates.dashboard.doc.id)
    expect(refused.status).toBe(403)
    expect(refused.body.errors[0].code).toBe('feature_required')
    const anonymous = await download(null, templates.dashboard.doc.id)
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.errors[0].code).toBe('unauthenticated')
  })

  it('404 for unknown, unpublished and malformed ids', async () => {
    for (const id of [999_999, templates.future.doc.id, templates.draft.doc.id, 'abc', '1e3', '-1']) {
      const response = await download(holder, id)
      expect(response.status).toBe(404)
      expect(response.body.errors[0].code).toBe('template_not_found')
    }
  })

  it('a standard buyer (through checkout) downloads a template', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const response = await download(buyer, templates.billing.doc.id)
    expect(response.status).toBe(200)
    const file = await fetch(local(response.body.url))
    expect(file.status).toBe(200)
    expect(Buffer.from(await file.arrayBuffer()).equals(templates.billing.bytes)).toBe(true)
  })
})

describe('signed links', () => {
  it('serve exactly the uploaded bytes as an attachment, with ranges, for a few minutes', async () => {
    const { body } = await download(holder, templates.dashboard.doc.id)
    expect(new Date(body.expiresAt).getTime() - Date.now()).toBeGreaterThan(290_000)
    expect(new Date(body.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(300_000)
    expect(body.url).toMatch(new RegExp(`^http://localhost:3000/api/templates/${templates.dashboard.doc.id}/file\\?`))
    const file = await fetch(local(body.url))
    expect(file.status).toBe(200)
    expect(file.headers.get('content-disposition')).toContain('attachment; filename="saas-dashboard.tar.gz"')
    expect(file.headers.get('cache-control')).toBe('private, no-store')
    expect(Buffer.from(await file.arrayBuffer()).equals(templates.dashboard.bytes)).toBe(true)
    const part = await fetch(local(body.url), { headers: { range: 'bytes=10-19' } })
    expect(part.status).toBe(206)
    expect(Buffer.from(await part.arrayBuffer()).equals(templates.dashboard.bytes.subarray(10, 20))).toBe(true)
  })

  it('refuse an altered link with 403 invalid_link, and an expired one with 403 link_expired', async () => {
    const { body } = await download(holder, templates.dashboard.doc.id)
    const url = new URL(local(body.url))
    const id = String(templates.dashboard.doc.id)
    const tampered = (change: (params: URLSearchParams) => void, pathname = url.pathname) => {
      const copy = new URL(url)
      copy.pathname = pathname
      change(copy.searchParams)
      return fetch(copy)
    }
    const params = url.searchParams
    for (const response of [
      await tampered((query) => query.set('signature', `${query.get('signature')!.slice(0, -2)}xx`)),
      await tampered((query) => query.set('user', String(other.user.id))),
      await tampered((query) => query.set('expires', String(Number(query.get('expires')) + 3600))),
      await tampered(
        () => undefined,
        url.pathname.replace(`/templates/${id}/`, `/templates/${templates.billing.doc.id}/`),
      ),
      await tampered((query) => query.delete('signature')),
      // A release link's signature (same id, user and expiry) does not open a template.
      await tampered((query) =>
        query.set('signature', signDownload(SECRET, Number(id), holder.user.id, Number(params.get('expires')))),
      ),
    ]) {
      expect(response.status).toBe(403)
      expect(await codeOf(response)).toBe('invalid_link')
    }
    const past = Math.floor(Date.now() / 1000) - 1
    const expired = new URL(url)
    expired.searchParams.set('expires', String(past))
    expired.searchParams.set('signature', signTemplateLink(SECRET, Number(id), holder.user.id, past))
    const response = await fetch(expired)
    expect(response.status).toBe(403)
    expect(await codeOf(response)).toBe('link_expired')
  })

  it('a template link does not open the release of the same id', async () => {
    const { body } = await download(holder, templates.dashboard.doc.id)
    const url = new URL(local(body.url))
    const releaseUrl = new URL(`${service.url}/api/download/file/${templates.dashboard.doc.id}`)
    url.searchParams.forEach((value, key) => releaseUrl.searchParams.set(key, value))
    const response = await fetch(releaseUrl)
    expect(response.status).toBe(403)
    expect(await codeOf(response)).toBe('invalid_link')
  })

  it('a template unpublished after its link was handed out is no longer served', async () => {
    const { doc } = await createTemplate('withdrawn', 'email', new Date(Date.now() - 60_000))
    const { body } = await download(holder, doc.id)
    await payload().update({ collection: 'templates', id: doc.id, data: { publishedAt: null } })
    const response = await fetch(local(body.url))
    expect(response.status).toBe(404)
    expect(await codeOf(response)).toBe('template_not_found')
  })
})

describe('the download log', () => {
  it('one template_downloads row per link, with the license that granted it, and the count', async () => {
    const buyer = await createUser(payload(), 'customer')
    const license = await grantLicense(payload(), buyer, 'ultimate', 'active')
    const before =
      (await payload().findByID({ collection: 'templates', id: templates.billing.doc.id })).downloadCount ?? 0
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        api('GET', `/templates/${templates.billing.doc.id}/download`, {
          as: buyer,
          headers: { 'x-kit-client-address': '203.0.113.77', 'user-agent': 'bench/1.0' },
        }),
      ),
    )
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200))
    const log = await rows(payload(), 'template_downloads', { user: { equals: buyer.user.id } })
    expect(log).toHaveLength(10)
    expect(log[0]).toMatchObject({
      template: templates.billing.doc.id,
      license: license.id,
      clientAddress: '203.0.113.0',
      userAgent: 'bench/1.0',
    })
    expect((await payload().findByID({ collection: 'templates', id: templates.billing.doc.id })).downloadCount).toBe(
      before + 10,
    )
  })

  it('refusals are not logged', async () => {
    await download(nobody, templates.dashboard.doc.id)
    await download(holder, templates.future.doc.id)
    expect(await rows(payload(), 'template_downloads', { user: { in: [nobody.user.id] } })).toEqual([])
    const holderRows = await rows(payload(), 'template_downloads', { user: { equals: holder.user.id } })
    expect(holderRows.every((row) => row.template !== templates.future.doc.id)).toBe(true)
  })

  it("IDOR: a customer reads, changes and removes none of another customer's rows (REST and GraphQL)", async () => {
    await download(other, templates.dashboard.doc.id)
    const [row] = await rows(payload(), 'template_downloads', { user: { equals: other.user.id } })
    expect(row).toBeTruthy()
    const own = await api('GET', '/template_downloads?limit=100', { as: holder })
    expect(own.status).toBe(200)
    expect(own.body.docs.length).toBeGreaterThan(0)
    expect(own.body.docs.every((doc: { user: { id: number } }) => doc.user.id === holder.user.id)).toBe(true)
    expect((await api('GET', `/template_downloads/${row!.id}`, { as: holder })).status).toBe(404)
    expect(
      (await api('PATCH', `/template_downloads/${row!.id}`, { as: holder, body: { user: holder.user.id } })).status,
    ).toBe(403)
    expect((await api('DELETE', `/template_downloads/${row!.id}`, { as: holder })).status).toBe(403)
    expect((await api('PATCH', `/template_downloads/${row!.id}`, { as: other, body: { userAgent: 'x' } })).status).toBe(
      403,
    )
    expect((await api('DELETE', `/template_downloads/${row!.id}`, { as: other })).status).toBe(403)

    const list = await graphql('{ TemplateDownloads(limit: 100) { docs { id user { id } } } }', holder)
    expect(list.data?.TemplateDownloads?.docs.every((doc) => (doc.user as { id: number }).id === holder.user.id)).toBe(
      true,
    )
    const single = await graphql(`{ TemplateDownload(id: ${row!.id}) { id } }`, holder)
    expect(single.data?.TemplateDownload ?? null).toBeNull()
    const update = await graphql(
      `mutation { updateTemplateDownload(id: ${row!.id}, data: { userAgent: "x" }) { id } }`,
      holder,
    )
    expect(update.errors?.length).toBeGreaterThan(0)
    const remove = await graphql(`mutation { deleteTemplateDownload(id: ${row!.id}) { id } }`, holder)
    expect(remove.errors?.length).toBeGreaterThan(0)
    expect(await payload().findByID({ collection: 'template_downloads', id: row!.id, depth: 0 })).toMatchObject({
      user: other.user.id,
      userAgent: row!.userAgent,
    })
  })
})
