import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { beforeAll, describe, expect, it } from 'vitest'

import { ContentSourceError, importContent, type ImportReport } from '../../src/content/import'
import { withBootstrapLock } from '../../src/db/bootstrap'
import { execute, sql } from '../../src/db/transaction'
import { createLocalReq } from 'payload'
import { createRelease } from '../support/releases'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()
const shipped = path.resolve(import.meta.dirname, '../../src/content')

/** A content folder of its own: blog/ and changelog/ with the given files (path -> text or bytes). */
const contentFolder = (files: Record<string, string | Buffer>) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-content-'))
  for (const [name, data] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), data)
  }
  return root
}

const post = (slug: string, extra: { frontmatter?: string; body?: string } = {}) =>
  `---
title: About ${slug}
summary: What ${slug} is about.
date: 2026-05-04
author: Ada Lovelace
tags: [testing]
${extra.frontmatter ?? ''}
---

${extra.body ?? `## Why\n\nBecause ${slug} matters.\n`}`

/** Import a folder of the test's own; reports name files relative to it (blog/x.mdx). */
const run = (root: string) => importContent(payload(), { root, displayRoot: root })

const actions = (report: ImportReport) =>
  Object.fromEntries(report.items.map((item) => [`${item.collection}/${item.slug}`, item.action]))

/** Rows of a table, to prove an operation wrote nothing. */
const countRows = async (table: string) => {
  const req = await createLocalReq({}, payload())
  const [row] = await execute<{ count: string }>(req, sql.raw(`SELECT count(*)::text AS count FROM "${table}"`))
  return Number(row?.count)
}
const snapshot = async () =>
  Object.fromEntries(
    await Promise.all(
      ['posts', '_posts_v', 'changelog_entries', '_changelog_entries_v', 'media'].map(
        async (t) => [t, await countRows(t)] as const,
      ),
    ),
  )

const problemsOf = async (root: string) => {
  const error = await run(root).then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(ContentSourceError)
  return (error as ContentSourceError).problems
}

let admin: TestUser
let support: TestUser
let customer: TestUser

beforeAll(async () => {
  ;[admin, support, customer] = await Promise.all([
    createUser(payload(), 'admin'),
    createUser(payload(), 'support'),
    createUser(payload(), 'customer'),
  ])
})

describe('the shipped content', () => {
  it('--check reports every file as new and writes nothing', async () => {
    const before = await snapshot()
    const report = await importContent(payload(), { root: shipped, check: true })
    expect(report.applied).toBe(false)
    expect(report.items.filter((item) => item.collection === 'posts').length).toBeGreaterThanOrEqual(3)
    expect(report.items.filter((item) => item.collection === 'changelog_entries').length).toBeGreaterThanOrEqual(3)
    expect(report.items.every((item) => item.action === 'create')).toBe(true)
    expect(await snapshot()).toEqual(before)
  })

  it('imports as published posts and changelog entries with Lexical bodies, code blocks, callouts and images', async () => {
    const report = await importContent(payload(), { root: shipped })
    expect(report.items.every((item) => item.action === 'create')).toBe(true)
    const { docs: posts } = await payload().find({ collection: 'posts', limit: 100, depth: 1 })
    expect(posts.length).toBe(report.items.filter((item) => item.collection === 'posts').length)
    for (const doc of posts) {
      expect(doc._status).toBe('published')
      expect(doc.body?.root.children.length).toBeGreaterThan(3)
      expect(doc.source?.path).toMatch(/^src\/content\/blog\/.+\.mdx$/)
    }
    const nodes = posts.flatMap((doc) => JSON.stringify(doc.body))
    expect(nodes.join()).toContain('"blockType":"Code"')
    expect(nodes.join()).toContain('"blockType":"Callout"')
    expect(nodes.join()).toContain('"type":"upload"')
    expect(nodes.join()).toContain('"type":"heading"')
    expect(posts.some((doc) => doc.cover && typeof doc.cover === 'object' && doc.cover.sizes?.og?.width === 1200)).toBe(
      true,
    )
    const { docs: entries } = await payload().find({
      collection: 'changelog_entries',
      limit: 100,
      sort: '-publishedAt',
    })
    expect(entries.every((entry) => /^v\d+-\d+-\d+/.test(entry.slug) && (entry.changeTypes?.length ?? 0) > 0)).toBe(
      true,
    )
  })

  it('a second import changes nothing: no new rows, no new versions, no new images', async () => {
    const before = await snapshot()
    const report = await importContent(payload(), { root: shipped })
    expect(report.items.every((item) => item.action === 'unchanged')).toBe(true)
    expect(await snapshot()).toEqual(before)
  })
})

describe('updates and conflicts', () => {
  it('a changed file updates its entry; the others stay as they are', async () => {
    const root = contentFolder({ 'blog/alpha.mdx': post('alpha'), 'blog/beta.mdx': post('beta') })
    await run(root)
    fs.writeFileSync(path.join(root, 'blog/alpha.mdx'), post('alpha', { body: '## Why\n\nA better reason.\n' }))
    const report = await run(root)
    expect(actions(report)).toEqual({ 'posts/alpha': 'update', 'posts/beta': 'unchanged' })
    const { docs } = await payload().find({ collection: 'posts', where: { slug: { equals: 'alpha' } } })
    expect(JSON.stringify(docs[0]?.body)).toContain('A better reason.')
  })

  it('an entry edited in the admin after import is never overwritten: the change is a conflict', async () => {
    const root = contentFolder({ 'blog/gamma.mdx': post('gamma') })
    await run(root)
    const { docs } = await payload().find({ collection: 'posts', where: { slug: { equals: 'gamma' } } })
    const edited = await api('PATCH', `/posts/${docs[0]!.id}`, { as: admin, body: { title: 'Gamma, edited by staff' } })
    expect(edited.status).toBe(200)
    fs.writeFileSync(path.join(root, 'blog/gamma.mdx'), post('gamma', { body: '## New\n\nFrom the file.\n' }))
    const report = await run(root)
    expect(report.items[0]).toMatchObject({
      action: 'conflict',
      reason: expect.stringContaining('edited in the admin'),
    })
    const after = await payload().findByID({ collection: 'posts', id: docs[0]!.id })
    expect(after.title).toBe('Gamma, edited by staff')
    expect(JSON.stringify(after.body)).not.toContain('From the file.')
  })

  it('a draft saved in the admin counts as an edit too', async () => {
    const root = contentFolder({ 'blog/delta.mdx': post('delta') })
    await run(root)
    const { docs } = await payload().find({ collection: 'posts', where: { slug: { equals: 'delta' } } })
    const draft = await api('PATCH', `/posts/${docs[0]!.id}?draft=true`, {
      as: admin,
      body: { summary: 'Work in progress.' },
    })
    expect(draft.status).toBe(200)
    fs.writeFileSync(path.join(root, 'blog/delta.mdx'), post('delta', { body: '## Changed\n\nText.\n' }))
    expect((await run(root)).items[0]?.action).toBe('conflict')
  })

  it('an entry created in the admin with the same slug is a conflict, not overwritten', async () => {
    const created = await api('POST', '/posts', {
      as: admin,
      body: { title: 'Staff wrote this', slug: 'epsilon', summary: 'By hand.', author: 'Staff', _status: 'published' },
    })
    expect(created.status).toBe(201)
    const root = contentFolder({ 'blog/epsilon.mdx': post('epsilon') })
    const report = await run(root)
    expect(report.items[0]).toMatchObject({
      action: 'conflict',
      reason: expect.stringContaining('created in the admin'),
    })
    expect((await payload().findByID({ collection: 'posts', id: created.body.doc.id })).title).toBe('Staff wrote this')
  })

  it('nobody but the importer can set the source marker (it would hide an edit)', async () => {
    const created = await api('POST', '/posts', {
      as: admin,
      body: {
        title: 'Forged',
        slug: 'forged-source',
        summary: 'x',
        author: 'Staff',
        source: { path: 'src/content/blog/forged-source.mdx', contentHash: 'abc' },
      },
    })
    expect(created.status).toBe(201)
    const stored = await payload().findByID({ collection: 'posts', id: created.body.doc.id })
    expect(stored.source?.path ?? null).toBeNull()
  })

  it('two imports at once (two instances starting) create each entry once', async () => {
    const root = contentFolder({
      'blog/zeta.mdx': post('zeta'),
      'changelog/v9.mdx':
        '---\ntitle: "9.0.0: Big"\nversion: 9.0.0\nsummary: Big.\ndate: 2026-10-01\nchanges: [added]\n---\n\n### Added\n\n- Everything.\n',
    })
    const reports = await Promise.all([1, 2].map(() => withBootstrapLock(payload(), () => run(root))))
    expect(reports.map((report) => report.items.map((item) => item.action).join()).sort()).toEqual([
      'create,create',
      'unchanged,unchanged',
    ])
    expect((await payload().count({ collection: 'posts', where: { slug: { equals: 'zeta' } } })).totalDocs).toBe(1)
  })
})

describe('bad sources stop the import with the file, line and reason, and change nothing', () => {
  it('an unsupported component, a bad prop, an unknown code language, an h1 and an MDX import', async () => {
    const root = contentFolder({
      'blog/good.mdx': post('good'),
      'blog/bad.mdx': post('bad', {
        body: [
          '## Fine',
          '',
          '<Tabs>',
          'x',
          '</Tabs>',
          '',
          '<Callout kind="danger">',
          'Text.',
          '</Callout>',
          '',
          '```cobol',
          'x',
          '```',
          '',
          '# Title again',
          '',
          "import X from 'y'",
        ].join('\n'),
      }),
    })
    const before = await snapshot()
    const problems = await problemsOf(root)
    expect(await snapshot()).toEqual(before)
    const at = (line: number) =>
      problems
        .filter((problem) => problem.file === 'blog/bad.mdx' && problem.line === line)
        .map((problem) => problem.reason)
    // The frontmatter is lines 1-9 and a blank line follows: the body starts at line 10.
    expect(at(12)).toEqual([expect.stringContaining('unsupported component <Tabs>')])
    expect(at(16)).toEqual([expect.stringContaining('must be one of info, tip, warning')])
    expect(at(20)).toEqual([expect.stringContaining('unsupported code language "cobol"')])
    expect(at(24)).toEqual([expect.stringContaining('level-1 heading')])
    expect(at(26)).toEqual([expect.stringContaining('imports and exports')])
    expect(problems.some((problem) => problem.file === 'blog/good.mdx')).toBe(false)
  })

  it('bad frontmatter: a missing title, a date that does not exist, an unknown key, a missing image, not YAML', async () => {
    const root = contentFolder({
      'blog/no-title.mdx':
        '---\nsummary: s\ndate: 2026-02-30\nauthor: A\ncolour: red\ncover: ./images/none.png\ncoverAlt: A picture\n---\n\nText.\n',
      'blog/not-yaml.mdx': '---\ntitle: [unclosed\n---\n\nText.\n',
      'changelog/bad-version.mdx': '---\ntitle: T\nversion: one\nsummary: s\ndate: 2026-01-01\n---\n\nText.\n',
      'blog/no-frontmatter.mdx': 'Just text.\n',
    })
    const problems = await problemsOf(root)
    const of = (file: string) =>
      problems.filter((problem) => problem.file === file).map((problem) => `${problem.line}: ${problem.reason}`)
    expect(of('blog/no-title.mdx')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^3: "date" is not a real date/),
        expect.stringMatching(/^5: unknown frontmatter key "colour"/),
        expect.stringMatching(/^6: image images\/none.png does not exist/),
        expect.stringMatching(/^1: "title" is required/),
      ]),
    )
    expect(of('blog/not-yaml.mdx')).toEqual([expect.stringContaining('not valid YAML')])
    expect(of('changelog/bad-version.mdx')).toEqual([expect.stringMatching(/^3: "version" must be a semantic version/)])
    expect(of('blog/no-frontmatter.mdx')).toEqual([expect.stringMatching(/^1: no frontmatter/)])
  })

  it('two files claiming one slug, and a reserved slug', async () => {
    const root = contentFolder({
      'blog/a.mdx': post('a', { frontmatter: 'slug: same' }),
      'blog/b.mdx': post('b', { frontmatter: 'slug: same' }),
      'blog/c.mdx': post('c', { frontmatter: 'slug: page' }),
    })
    const reasons = (await problemsOf(root)).map((problem) => `${problem.file}: ${problem.reason}`)
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringContaining('blog/b.mdx: slug same is also used by blog/a.mdx'),
        expect.stringContaining('blog/c.mdx: "slug" is taken by a page'),
      ]),
    )
  })
})

describe('drafts, images and releases', () => {
  it('a draft file is imported as a draft: staff see it, anonymous readers and customers do not (REST and GraphQL)', async () => {
    const root = contentFolder({ 'blog/secret-plan.mdx': post('secret-plan', { frontmatter: 'draft: true' }) })
    await run(root)
    const { docs } = await payload().find({
      collection: 'posts',
      where: { slug: { equals: 'secret-plan' } },
      draft: true,
    })
    const id = docs[0]!.id
    for (const who of [null, customer]) {
      const list = await api('GET', '/posts?where[slug][equals]=secret-plan&draft=true', { as: who })
      expect(list.body.docs).toEqual([])
      expect((await api('GET', `/posts/${id}?draft=true`, { as: who })).status).toBe(404)
      expect((await api('GET', '/posts/versions', { as: who })).status).toBe(403)
    }
    const query = '{ Posts(draft: true, where: { slug: { equals: "secret-plan" } }) { docs { id title } } }'
    for (const who of [null, customer]) expect((await graphql(query, who)).data?.Posts?.docs).toEqual([])
    expect((await graphql(query, support)).data?.Posts?.docs).toEqual([{ id, title: 'About secret-plan' }])
    const staffView = await api('GET', `/posts/${id}?draft=true`, { as: support })
    expect(staffView.status).toBe(200)
    expect(staffView.body.source.path).toBe('blog/secret-plan.mdx')
  })

  it('a published post with a newer draft: readers get the published text, even asking for drafts', async () => {
    const created = await api('POST', '/posts', {
      as: admin,
      body: { title: 'Live title', slug: 'live-and-draft', summary: 'Live.', author: 'Staff', _status: 'published' },
    })
    const id = created.body.doc.id
    expect(
      (
        await api('PATCH', `/posts/${id}?draft=true`, {
          as: admin,
          body: { title: 'Unreleased title', _status: 'draft' },
        })
      ).status,
    ).toBe(200)
    for (const who of [null, customer]) {
      expect((await api('GET', `/posts/${id}?draft=true`, { as: who })).body.title).toBe('Live title')
      // Lists asking for drafts look at the newest versions, the draft among them, which readers may not see.
      const list = await api('GET', '/posts?where[slug][equals]=live-and-draft&draft=true', { as: who })
      expect(list.status).toBe(200)
      expect(JSON.stringify(list.body)).not.toContain('Unreleased')
      const query = '{ Posts(draft: true, where: { slug: { equals: "live-and-draft" } }) { docs { title } } }'
      expect(JSON.stringify(await graphql(query, who))).not.toContain('Unreleased')
      expect((await api('GET', '/posts?where[slug][equals]=live-and-draft', { as: who })).body.docs[0].title).toBe(
        'Live title',
      )
    }
    expect((await api('GET', `/posts/${id}?draft=true`, { as: support })).body.title).toBe('Unreleased title')
  })

  it('anonymous readers get published posts without the importer bookkeeping', async () => {
    const list = await api('GET', '/posts?limit=100', { as: null })
    expect(list.status).toBe(200)
    expect(list.body.docs.length).toBeGreaterThan(0)
    for (const doc of list.body.docs) {
      expect(doc._status).toBe('published')
      expect(doc.source).toBeUndefined()
    }
  })

  it('only admins write content; support reads it', async () => {
    const body = { title: 'Nope', slug: 'nope', summary: 'x', author: 'x', _status: 'published' }
    expect((await api('POST', '/posts', { as: customer, body })).status).toBe(403)
    expect((await api('POST', '/posts', { as: support, body })).status).toBe(403)
    expect((await api('POST', '/posts', { as: null, body })).status).toBe(403)
    expect((await api('POST', '/changelog_entries', { as: support, body: { ...body, version: '7.7.7' } })).status).toBe(
      403,
    )
    expect((await api('POST', '/media', { as: customer, body: { alt: 'x' } })).status).toBe(403)
  })

  it('an image used twice is uploaded once; the body refers to it as an upload', async () => {
    const png = fs.readFileSync(
      path.join(shipped, 'blog/images', fs.readdirSync(path.join(shipped, 'blog/images'))[0]!),
    )
    const root = contentFolder({
      'blog/images/picture.png': png,
      'blog/eta.mdx': post('eta', { body: '## Look\n\n![A picture of it](./images/picture.png)\n' }),
      'blog/theta.mdx': post('theta', {
        frontmatter: 'cover: ./images/picture.png\ncoverAlt: The same picture',
        body: '## Again\n\n![Again](./images/picture.png)\n',
      }),
    })
    const mediaBefore = await countRows('media')
    await run(root)
    // The shipped import already uploaded these bytes: reused, not uploaded again.
    expect(await countRows('media')).toBe(mediaBefore)
    const { docs } = await payload().find({ collection: 'posts', where: { slug: { in: ['eta', 'theta'] } }, depth: 0 })
    const uploads = docs.map(
      (doc) =>
        doc.body?.root.children.find((node) => node.type === 'upload') as unknown as {
          value: number
          relationTo: string
        },
    )
    expect(uploads.every((node) => node.relationTo === 'media' && node.value === uploads[0]!.value)).toBe(true)
    expect(docs.find((doc) => doc.slug === 'theta')?.cover).toBe(uploads[0]!.value)
  })

  it('a changelog entry is joined to the release of its version, whichever comes first', async () => {
    const { release: early } = await createRelease(payload(), '4.0.0')
    const root = contentFolder({
      'changelog/v4.mdx': '---\ntitle: "4.0.0"\nversion: 4.0.0\nsummary: Four.\ndate: 2026-10-02\n---\n\nText.\n',
      'changelog/v5.mdx': '---\ntitle: "5.0.0"\nversion: 5.0.0\nsummary: Five.\ndate: 2026-10-03\n---\n\nText.\n',
    })
    await run(root)
    const { release: late } = await createRelease(payload(), '5.0.0')
    const entries = await payload().find({
      collection: 'changelog_entries',
      where: { version: { in: ['4.0.0', '5.0.0'] } },
      depth: 0,
      sort: 'version',
    })
    expect(entries.docs.map((entry) => [entry.slug, entry.release])).toEqual([
      ['v4-0-0', early.id],
      ['v5-0-0', late.id],
    ])
    // Linking the release is bookkeeping, not an edit: the file still owns the entry.
    expect(entries.docs.every((entry) => entry.source?.editedAfterImport === false)).toBe(true)
    // Anonymous readers do not see release ids (releases are staff only).
    const anonymous = await api('GET', '/changelog_entries?where[version][equals]=4.0.0', { as: null })
    expect(anonymous.body.docs[0].release).toBeUndefined()
  })
})
