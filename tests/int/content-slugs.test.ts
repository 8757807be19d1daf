import './../support/templates-env'

import zlib from 'node:zlib'

import { ValidationError } from 'payload'
import { describe, expect, it } from 'vitest'

import { toSlug } from '../../collections/content/shared'
import { usePayload } from '../support/payload'

const payload = usePayload()

const post = (data: Record<string, unknown>) =>
  payload().create({
    collection: 'posts',
    data: { summary: 'A summary.', author: 'Staff', _status: 'published', ...data } as never,
  })

describe('slugs: generated from the title (Payload slug field), kept when given', () => {
  it('turns any text into a slug that passes the rules, and leaves a slug as it is', () => {
    expect(toSlug('Crème brûlée: a 2nd look!')).toBe('creme-brulee-a-2nd-look')
    expect(toSlug('  Hello   --  World__again ')).toBe('hello-world-again')
    expect(toSlug('already-a-slug')).toBe('already-a-slug')
    expect(toSlug('x'.repeat(120))).toHaveLength(96)
  })

  it('a post without a slug gets one from its title, and keeps it when the title changes', async () => {
    const created = await post({ title: 'Shipping Payments, Fast!' })
    expect(created.slug).toBe('shipping-payments-fast')
    expect(created.generateSlug).toBe(false)
    const renamed = await payload().update({
      collection: 'posts',
      id: created.id,
      data: { title: 'A new title', _status: 'published' } as never,
    })
    expect(renamed.slug).toBe('shipping-payments-fast')
  })

  it('a draft the admin autosaves follows its title until it is published, then keeps its slug', async () => {
    const draft = await payload().create({ collection: 'posts', data: {}, draft: true })
    const autosave = (data: Record<string, unknown>) =>
      payload().update({ collection: 'posts', id: draft.id, data: data, draft: true, autosave: true })
    const first = await autosave({ title: 'Hello', slug: draft.slug ?? null })
    expect(first.slug).toBe('hello')
    const second = await autosave({ title: 'Hello world', slug: first.slug })
    expect(second.slug).toBe('hello-world')
    const published = await payload().update({
      collection: 'posts',
      id: draft.id,
      data: {
        title: 'Hello world',
        slug: second.slug,
        summary: 'A summary.',
        author: 'Staff',
        _status: 'published',
      } as never,
    })
    expect(published.slug).toBe('hello-world')
    const edited = await payload().update({
      collection: 'posts',
      id: draft.id,
      data: { title: 'Goodbye', slug: published.slug, _status: 'published' } as never,
    })
    expect(edited.slug).toBe('hello-world')
  })

  it('a slug given explicitly is kept as given and must pass the rules: format, reserved paths, uniqueness', async () => {
    expect((await post({ title: 'Anything', slug: 'my-own-slug' })).slug).toBe('my-own-slug')
    await expect(post({ title: 'Bad', slug: 'Not A Slug' })).rejects.toThrow(ValidationError)
    await expect(post({ title: 'Feed', slug: 'feed' })).rejects.toThrow(ValidationError)
    await expect(post({ title: 'Twice', slug: 'my-own-slug' })).rejects.toThrow(ValidationError)
  })

  it("a changelog entry without a slug gets its version's, the anchor on /changelog", async () => {
    const entry = await payload().create({
      collection: 'changelog_entries',
      data: {
        title: 'Faster checkout',
        version: '3.2.1',
        summary: 'What changed in 3.2.1',
        _status: 'published',
      } as never,
    })
    expect(entry.slug).toBe('v3-2-1')
  })

  it('a template without a slug gets one from its name', async () => {
    const bytes = zlib.gzipSync(Buffer.from('template'))
    const template = await payload().create({
      collection: 'templates',
      data: { name: 'Admin Dashboard Pro', category: 'dashboard' } as never,
      file: { data: bytes, mimetype: 'application/gzip', name: 'admin.tar.gz', size: bytes.length },
    })
    expect(template.slug).toBe('admin-dashboard-pro')
  })
})
