import fs from 'node:fs'
import zlib from 'node:zlib'

import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// Uploaded test images go to a scratch folder, not the project's media folder.
process.env.MEDIA_DIR = `${process.env.TMPDIR ?? '/tmp'}/kit-media-access-${process.pid}`

const { generateLicenseKey } = await import('../../src/licensing/keys')
const { seedPlansWithoutProcessor } = await import('../support/licenses')
const { api, createUser, graphql, usePayload } = await import('../support/payload')
type TestUser = Awaited<ReturnType<typeof createUser>>

/*
 * Media used to be readable by anyone: GET /api/media listed every image, those of drafts and of
 * premium posts' bodies included, and /api/media/file/<name> served each. The rule now: a visitor
 * reads an image only through published content that shows it (src/content/public-media.ts).
 */

const payload = usePayload()
afterAll(() => fs.rmSync(process.env.MEDIA_DIR!, { recursive: true, force: true }))

const ids: Record<
  | 'cover'
  | 'openBody'
  | 'premiumBody'
  | 'draftOnly'
  | 'unused'
  | 'changelogSocial'
  | 'premiumCover'
  | 'templatePreview'
  | 'unpublishedTemplatePreview',
  number
> = {} as never
const filenames: Record<string, string> = {}
let reader: TestUser
let holder: TestUser
let support: TestUser
let draftId: number

const text = (value: string) => ({
  type: 'text',
  version: 1,
  text: value,
  format: 0,
  mode: 'normal',
  style: '',
  detail: 0,
})
const paragraph = (...children: object[]) => ({
  type: 'paragraph',
  version: 1,
  direction: null,
  format: '',
  indent: 0,
  textFormat: 0,
  textStyle: '',
  children,
})
const upload = (id: number) => ({
  type: 'upload',
  version: 3,
  format: '',
  id: `u${id}`,
  fields: null,
  relationTo: 'media',
  value: id,
})
const body = (...nodes: object[]) => ({
  root: {
    type: 'root',
    version: 1,
    direction: null,
    format: '',
    indent: 0,
    children: [paragraph(text('Words.')), ...nodes],
  },
})

const image = async (name: string) => {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#4f46e5' } })
    .png()
    .toBuffer()
  const created = await payload().create({
    collection: 'media',
    data: { alt: name },
    file: { data: png, mimetype: 'image/png', name: `${name}.png`, size: png.length },
    overrideAccess: true,
  })
  filenames[name] = created.filename!
  return created.id
}

const post = (slug: string, data: Record<string, unknown>, status: 'published' | 'draft' = 'published') =>
  payload().create({
    collection: 'posts',
    data: {
      title: slug,
      slug,
      summary: 'A summary.',
      author: 'Staff',
      body: body() as never,
      ...data,
      _status: status,
    } as never,
    draft: status === 'draft',
    overrideAccess: true,
  })

beforeAll(async () => {
  await seedPlansWithoutProcessor(payload())
  for (const name of Object.keys({
    cover: 0,
    openBody: 0,
    premiumBody: 0,
    draftOnly: 0,
    unused: 0,
    changelogSocial: 0,
    premiumCover: 0,
    templatePreview: 0,
    unpublishedTemplatePreview: 0,
  }) as (keyof typeof ids)[]) {
    ids[name] = await image(name)
  }
  await post('open-post', { cover: ids.cover, body: body(upload(ids.openBody)) })
  await post('premium-post', {
    cover: ids.premiumCover,
    requiredFeature: 'advanced',
    body: body(upload(ids.premiumBody)),
  })
  draftId = (await post('draft-post', { cover: ids.draftOnly, body: body(upload(ids.draftOnly)) }, 'draft')).id
  await payload().create({
    collection: 'changelog_entries',
    data: {
      title: 'Version 1.0.0',
      version: '1.0.0',
      slug: 'v1-0-0',
      summary: 'First.',
      changes: ['added'],
      body: body() as never,
      meta: { image: ids.changelogSocial },
      _status: 'published',
    } as never,
    overrideAccess: true,
  })
  // The template catalogue is public: a published template's preview is too; an unpublished one's is not.
  for (const [slug, preview, publishedAt] of [
    ['shown', ids.templatePreview, new Date(Date.now() - 60_000).toISOString()],
    ['coming', ids.unpublishedTemplatePreview, null],
  ] as const) {
    const bytes = zlib.gzipSync(Buffer.from(slug))
    await payload().create({
      collection: 'templates',
      data: { name: `Template ${slug}`, slug, category: 'dashboard', preview, publishedAt },
      file: { data: bytes, mimetype: 'application/gzip', name: `${slug}-${process.pid}.tar.gz`, size: bytes.length },
      overrideAccess: true,
    })
  }
  ;[reader, holder, support] = await Promise.all([
    createUser(payload(), 'customer'),
    createUser(payload(), 'customer'),
    createUser(payload(), 'support'),
  ])
  const [ultimate] = (await payload().find({ collection: 'plans', where: { slug: { equals: 'ultimate' } }, limit: 1 }))
    .docs
  await payload().create({
    collection: 'licenses',
    data: {
      key: generateLicenseKey(),
      user: holder.user.id,
      plan: ultimate!.id,
      source: 'manual',
      status: 'active',
      seats: 1,
    },
  })
})

const listed = async (who: TestUser | null) => {
  const answer = await api('GET', '/media?limit=100&depth=0', { as: who })
  expect(answer.status).toBe(200)
  return (answer.body.docs as { id: number }[]).map((doc) => doc.id).sort((a, b) => a - b)
}
const sorted = (...values: number[]) => [...values].sort((a, b) => a - b)
const publicIds = () => sorted(ids.cover, ids.openBody, ids.premiumCover, ids.changelogSocial, ids.templatePreview)

describe('who reads which image', () => {
  it('anonymous visitors and customers without the feature: only images published content shows them', async () => {
    expect(await listed(null)).toEqual(publicIds())
    expect(await listed(reader)).toEqual(publicIds())
  })

  it("a holder of the premium post's feature also reads the images in its body", async () => {
    expect(await listed(holder)).toEqual(sorted(...publicIds(), ids.premiumBody))
  })

  it('staff read every image', async () => {
    expect(await listed(support)).toEqual(sorted(...Object.values(ids)))
  })

  it.each(['draftOnly', 'unused', 'premiumBody', 'unpublishedTemplatePreview'] as const)(
    'the %s image: not by id, not by a where on its name, not as a file, not over GraphQL',
    async (name) => {
      const id = ids[name]
      expect((await api('GET', `/media/${id}`, { as: null })).status).toBe(404)
      const probe = await api('GET', `/media?where[filename][equals]=${encodeURIComponent(filenames[name]!)}`, {
        as: reader,
      })
      expect(probe.body.totalDocs).toBe(0)
      const file = await api('GET', `/media/file/${encodeURIComponent(filenames[name]!)}`, { as: null })
      expect([403, 404]).toContain(file.status)
      const result = await graphql('{ allMedia(limit: 100) { docs { id filename } } }', null)
      expect(JSON.stringify(result)).not.toContain(filenames[name]!)
    },
  )

  it('a public image is served as a file to anyone', async () => {
    const file = await api('GET', `/media/file/${encodeURIComponent(filenames.cover!)}`, { as: null })
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('image/png')
  })
})

describe('the list follows the content', () => {
  it('publishing the draft makes its images public at once; unpublishing hides them again', async () => {
    expect(await listed(null)).not.toContain(ids.draftOnly)
    await payload().update({ collection: 'posts', id: draftId, data: { _status: 'published' }, overrideAccess: true })
    expect(await listed(null)).toContain(ids.draftOnly)
    await payload().update({ collection: 'posts', id: draftId, data: { _status: 'draft' }, overrideAccess: true })
    expect(await listed(null)).not.toContain(ids.draftOnly)
  })
})
