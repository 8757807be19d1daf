import './../support/billing-env'
import './../support/templates-env'

import crypto from 'node:crypto'
import zlib from 'node:zlib'

import { createLocalReq } from 'payload'
import { renderToStaticMarkup } from 'react-dom/server'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { hashApiKey, listApiKeys, MAX_LIVE_API_KEYS } from '../../src/auth/api-keys'
import { entitlementsOf } from '../../src/licensing/entitlements'
import type { Template, User } from '../../src/payload-types'
import { rows, seedStandInPlans } from '../support/billing'
import { grantLicense } from '../support/licenses'
import { createUser, type TestUser, usePayload } from '../support/payload'
import { redirectOf } from '../support/server-actions'
import { createRelease } from '../support/releases'

/**
 * The dashboard's sections against a real database: the versions it offers, and its server actions
 * for templates, support requests and API keys, called as Next would call them. The session module
 * answers with the test's chosen user; `redirect` throws what Next's would, with the target.
 */
const hoisted = vi.hoisted((): { user: { current: unknown } } => ({ user: { current: null } }))

vi.mock('../../src/app/_lib/session', () =>
  import('../support/server-actions').then((m) => m.sessionModule(() => hoisted.user.current)),
)
vi.mock('next/navigation', () => import('../support/server-actions').then((m) => m.navigationModule))
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, unstable_cache: <T>(fn: T) => fn }))
vi.mock('next/headers', () => ({ headers: () => Promise.resolve(new Headers({ 'user-agent': 'dashboard-test' })) }))

const { createApiKeyAction, downloadKit, downloadTemplate, openSupportRequest, revokeApiKeyAction } =
  await import('../../src/app/(frontend)/dashboard/actions')
const { allowedReleases, publishedTemplates, releaseNotes, supportThreads } =
  await import('../../src/app/(frontend)/dashboard/data')
const { default: DashboardPage } = await import('../../src/app/(frontend)/dashboard/page')

const payload = usePayload()

let free: TestUser
let standard: TestUser
let ultimate: TestUser
let otherUltimate: TestUser
let admin: TestUser
const templates: Record<'published' | 'unpublished', Template> = {} as never

const as = (who: TestUser) => {
  hoisted.user.current = { ...who.user, collection: 'users' }
}

const form = (fields: Record<string, string>) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.set(name, value)
  return data
}

const versionsFor = async (who: TestUser, limit?: number) => {
  const user = { ...who.user, collection: 'users' } as User
  const req = await createLocalReq({ user }, payload())
  return (await allowedReleases(req, await entitlementsOf(payload(), user.id, req), limit)).map(
    (release) => release.version,
  )
}

const createTemplate = async (slug: string, publishedAt: Date | null) => {
  const bytes = zlib.gzipSync(crypto.randomBytes(2048))
  return payload().create({
    collection: 'templates',
    data: {
      name: `Template ${slug}`,
      slug,
      description: `The ${slug} template.`,
      category: 'dashboard',
      publishedAt: publishedAt?.toISOString() ?? null,
    },
    file: { data: bytes, mimetype: 'application/gzip', name: `${slug}.tar.gz`, size: bytes.length },
  })
}

beforeAll(async () => {
  await seedStandInPlans(payload())
  for (const [version, publishedAt] of [
    ['0.9.0', new Date(Date.now() - 3 * 86_400_000)],
    ['1.0.0', new Date(Date.now() - 2 * 86_400_000)],
    ['1.1.0', new Date(Date.now() - 86_400_000)],
    ['2.0.0-beta.1', new Date(Date.now() - 60_000)],
    ['2.0.0', new Date(Date.now() + 86_400_000)],
  ] as const) {
    await createRelease(payload(), version, publishedAt)
  }
  await payload().create({
    collection: 'changelog_entries',
    data: {
      title: 'Teams and invoices',
      version: '1.1.0',
      slug: 'v1-1-0',
      summary: 'Invite your team; invoices in the portal.',
      changeTypes: ['added'],
      _status: 'published',
    },
    overrideAccess: true,
  })
  templates.published = await createTemplate('saas-dashboard', new Date(Date.now() - 60_000))
  templates.unpublished = await createTemplate('next-month', new Date(Date.now() + 30 * 86_400_000))
  free = await createUser(payload(), 'customer')
  standard = await createUser(payload(), 'customer')
  await grantLicense(payload(), standard, 'standard', 'active')
  ultimate = await createUser(payload(), 'customer')
  await grantLicense(payload(), ultimate, 'ultimate', 'active')
  otherUltimate = await createUser(payload(), 'customer')
  await grantLicense(payload(), otherUltimate, 'ultimate', 'active')
  admin = await createUser(payload(), 'admin')
})

describe('downloads: the versions listed are exactly those the license allows', () => {
  it('standard: published full releases, newest first; ultimate adds the pre-release; none without a paid license', async () => {
    expect(await versionsFor(standard)).toEqual(['1.1.0', '1.0.0', '0.9.0'])
    expect(await versionsFor(ultimate)).toEqual(['2.0.0-beta.1', '1.1.0', '1.0.0', '0.9.0'])
    expect(await versionsFor(free)).toEqual([])
    expect(await versionsFor(ultimate, 2)).toEqual(['2.0.0-beta.1', '1.1.0'])
  })

  it('each listed version downloads through the dashboard’s button; the others are refused', async () => {
    for (const who of [standard, ultimate]) {
      as(who)
      for (const version of await versionsFor(who)) {
        const target = await redirectOf(() => downloadKit(form({ version })))
        expect(target, `${version}`).toMatch(/^https?:\/\/[^/]+\/api\/download\/file\/\d+\?/)
      }
    }
    as(standard)
    expect(await redirectOf(() => downloadKit(form({ version: '2.0.0-beta.1' })))).toBe(
      '/dashboard?download_error=version_not_allowed',
    )
    expect(await redirectOf(() => downloadKit(form({ version: '2.0.0' })))).toBe(
      '/dashboard?download_error=version_not_found',
    )
    const logged = await rows(payload(), 'downloads', { user: { equals: standard.user.id } })
    expect(logged.map((row) => row.version).sort()).toEqual(['0.9.0', '1.0.0', '1.1.0'])
  })

  it('the newest release’s notes: its published changelog entry, or nothing', async () => {
    expect(await releaseNotes(payload(), standard.user, '1.1.0')).toMatchObject({
      title: 'Teams and invoices',
      slug: 'v1-1-0',
      version: '1.1.0',
    })
    expect(await releaseNotes(payload(), ultimate.user, '2.0.0-beta.1')).toBeNull()
  })
})

describe('templates', () => {
  it('a holder gets a signed link to a published template, and the download is logged', async () => {
    as(standard)
    const list = await publishedTemplates(payload(), standard.user)
    expect(list.docs.map((template) => template.id)).toEqual([templates.published.id])
    const target = await redirectOf(() => downloadTemplate(form({ template: String(templates.published.id) })))
    expect(target).toMatch(new RegExp(`^https?://[^/]+/api/templates/${templates.published.id}/file\\?`))
    expect(await rows(payload(), 'template_downloads', { user: { equals: standard.user.id } })).toHaveLength(1)
  })

  it('an unpublished or malformed id is "not found"; no link, no row', async () => {
    as(ultimate)
    expect(await redirectOf(() => downloadTemplate(form({ template: String(templates.unpublished.id) })))).toBe(
      '/dashboard?template_error=template_not_found#templates',
    )
    expect(await redirectOf(() => downloadTemplate(form({ template: '1 OR 1=1' })))).toBe(
      '/dashboard?template_error=template_not_found#templates',
    )
    expect(await rows(payload(), 'template_downloads', { user: { equals: ultimate.user.id } })).toHaveLength(0)
  })

  it('without the templates feature: refused, nothing logged', async () => {
    as(free)
    expect(await redirectOf(() => downloadTemplate(form({ template: String(templates.published.id) })))).toBe(
      '/dashboard?template_error=feature_required#templates',
    )
    expect(await rows(payload(), 'template_downloads', { user: { equals: free.user.id } })).toHaveLength(0)
  })
})

describe('support requests', () => {
  it('a holder files one: owner, high priority and open status come from the server, not the form', async () => {
    as(standard)
    const fields = {
      subject: '  Build   fails ',
      message: 'npm run build fails on Node 20.',
      priority: 'normal',
      status: 'closed',
      user: String(ultimate.user.id),
    }
    expect(await redirectOf(() => openSupportRequest(form(fields)))).toBe('/dashboard#support')
    const [filed] = await rows(payload(), 'support_requests', { user: { equals: standard.user.id } })
    expect(filed).toMatchObject({ subject: 'Build fails', priority: 'high', status: 'open', user: standard.user.id })
    expect(await rows(payload(), 'support_requests', { user: { equals: ultimate.user.id } })).toHaveLength(0)
  })

  it('a thread shows the customer’s own requests with their replies, oldest reply first', async () => {
    const [filed] = await rows(payload(), 'support_requests', { user: { equals: standard.user.id } })
    await payload().create({
      collection: 'support_replies',
      data: { request: filed!.id, body: 'Which Node version exactly?', fromStaff: true, author: admin.user.id },
      overrideAccess: true,
    })
    await payload().create({
      collection: 'support_replies',
      data: { request: filed!.id, body: '20.11', author: standard.user.id },
      overrideAccess: true,
    })
    const threads = await supportThreads(payload(), standard.user)
    expect(threads).toHaveLength(1)
    expect(threads[0]).toMatchObject({ subject: 'Build fails', status: 'open' })
    expect(threads[0]!.replies.map((reply) => [reply.fromStaff, reply.body])).toEqual([
      [true, 'Which Node version exactly?'],
      [false, '20.11'],
    ])
    expect(await supportThreads(payload(), ultimate.user)).toEqual([])
  })

  it('without the support feature, or with an empty subject: refused, no row', async () => {
    as(free)
    expect(await redirectOf(() => openSupportRequest(form({ subject: 'Help', message: 'Please' })))).toBe(
      '/dashboard?support_error=feature_required#support',
    )
    expect(await rows(payload(), 'support_requests', { user: { equals: free.user.id } })).toHaveLength(0)
    as(ultimate)
    expect(await redirectOf(() => openSupportRequest(form({ subject: '   ', message: 'Please' })))).toBe(
      '/dashboard?support_error=validation_error#support',
    )
    expect(await rows(payload(), 'support_requests', { user: { equals: ultimate.user.id } })).toHaveLength(0)
  })
})

describe('API keys', () => {
  it('created once in the form’s state, stored hashed, listed without the secret', async () => {
    as(ultimate)
    const state = await createApiKeyAction({ created: null, error: null }, form({ name: ' CI server ' }))
    expect(state).toEqual({
      created: { name: 'CI server', key: expect.stringMatching(/^kit_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/) },
      error: null,
    })
    const { rows: stored } = await payload().db.pool.query('SELECT * FROM api_keys WHERE user_id = $1', [
      ultimate.user.id,
    ])
    expect(stored).toHaveLength(1)
    expect(stored[0].key_hash).toBe(hashApiKey(state.created!.key))
    expect(JSON.stringify(stored)).not.toContain(state.created!.key.slice(13))
    const req = await createLocalReq({ user: { ...ultimate.user, collection: 'users' } }, payload())
    const listed = await listApiKeys(req, ultimate.user)
    expect(listed.map((key) => key.name)).toEqual(['CI server'])
    expect(JSON.stringify(listed)).not.toContain(state.created!.key.slice(13))
  })

  it('another customer’s key cannot be revoked from the dashboard: "not found", and it stays live', async () => {
    const [key] = await rows(payload(), 'api_keys', { user: { equals: ultimate.user.id } })
    as(otherUltimate)
    expect(await redirectOf(() => revokeApiKeyAction(form({ id: String(key!.id) })))).toBe(
      '/dashboard?api_key_error=api_key_not_found#api-keys',
    )
    expect(await redirectOf(() => revokeApiKeyAction(form({ id: `${key!.id}; DROP TABLE api_keys` })))).toBe(
      '/dashboard?api_key_error=api_key_not_found#api-keys',
    )
    expect((await payload().findByID({ collection: 'api_keys', id: key!.id, depth: 0 })).revokedAt ?? null).toBeNull()
    as(ultimate)
    expect(await redirectOf(() => revokeApiKeyAction(form({ id: String(key!.id) })))).toBe('/dashboard#api-keys')
    expect((await payload().findByID({ collection: 'api_keys', id: key!.id, depth: 0 })).revokedAt).toEqual(
      expect.any(String),
    )
    expect(await redirectOf(() => revokeApiKeyAction(form({ id: String(key!.id) })))).toBe(
      '/dashboard?api_key_error=api_key_not_found#api-keys',
    )
  })

  it('without the api feature: refused, no key made', async () => {
    for (const who of [standard, free]) {
      as(who)
      expect(await createApiKeyAction({ created: null, error: null }, form({ name: 'script' }))).toEqual({
        created: null,
        error: 'feature_required',
      })
      expect(await rows(payload(), 'api_keys', { user: { equals: who.user.id } })).toHaveLength(0)
    }
  })

  it('the endpoint’s limits: a name of 1 to 60 characters, at most 10 live keys', async () => {
    as(otherUltimate)
    for (const name of ['', '   ', 'x'.repeat(61)]) {
      expect(await createApiKeyAction({ created: null, error: null }, form({ name }))).toEqual({
        created: null,
        error: 'invalid_request',
      })
    }
    for (let index = 0; index < MAX_LIVE_API_KEYS; index += 1) {
      expect(
        (await createApiKeyAction({ created: null, error: null }, form({ name: `key ${index}` }))).error,
      ).toBeNull()
    }
    expect(await createApiKeyAction({ created: null, error: null }, form({ name: 'one more' }))).toEqual({
      created: null,
      error: 'api_key_limit_reached',
    })
    expect(await rows(payload(), 'api_keys', { user: { equals: otherUltimate.user.id } })).toHaveLength(
      MAX_LIVE_API_KEYS,
    )
  })
})

describe('the page', () => {
  const render = async (who: TestUser, searchParams: Record<string, string> = {}) => {
    as(who)
    return renderToStaticMarkup(await DashboardPage({ searchParams: Promise.resolve(searchParams) }))
  }

  it('ultimate: every section, a button per version, the newest notes, no key in clear', async () => {
    const html = await render(otherUltimate)
    for (const version of await versionsFor(otherUltimate)) expect(html).toContain(`value="${version}"`)
    expect(html).not.toContain('value="2.0.0"')
    expect(html).toContain('What’s new in 2.0.0-beta.1')
    for (const id of ['templates', 'support', 'api-keys']) expect(html).toContain(`id="${id}"`)
    expect(html).toContain('Template saas-dashboard')
    expect(html).not.toContain('Template next-month')
    expect(html).toContain('No requests yet.')
    expect(html).toContain('You have 10 API keys, the most there can be.')
    const { rows: stored } = await payload().db.pool.query('SELECT key_hash FROM api_keys WHERE user_id = $1', [
      otherUltimate.user.id,
    ])
    for (const row of stored) expect(html).not.toContain(row.key_hash)
  })

  it('standard: templates and support, no API keys; the error box says the code in words', async () => {
    const html = await render(standard, { download_error: 'version_not_allowed', support_error: '<b>x</b>' })
    expect(html).toContain('Your license does not include that version.')
    expect(html).toContain('Your request could not be sent; please try again.')
    expect(html).not.toContain('<b>x</b>')
    expect(html).toContain('Teams and invoices')
    expect(html).toContain('href="/changelog#v1-1-0"')
    expect(html).toContain('Build fails')
    expect(html).not.toContain('id="api-keys"')
  })

  it('free: the empty states, none of the paid sections', async () => {
    const html = await render(free)
    expect(html).toContain('Downloads come with a Standard, Ultimate or Pro license.')
    for (const id of ['templates', 'support', 'api-keys']) expect(html).not.toContain(`id="${id}"`)
  })
})
