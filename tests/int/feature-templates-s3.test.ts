import './../support/s3-env'
import './../support/billing-env'

import crypto from 'node:crypto'
import zlib from 'node:zlib'

import { beforeAll, describe, expect, it } from 'vitest'

import { seedStandInPlans } from '../support/billing'
import { grantLicense } from '../support/licenses'
import { api, createUser, usePayload } from '../support/payload'
import { S3_BUCKET, s3Endpoint } from '../support/s3-env'

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
})

describe('templates on S3', () => {
  it('stores the archive under templates/ and hands holders a presigned GET; the catalogue names no object', async () => {
    const bytes = zlib.gzipSync(crypto.randomBytes(2048))
    const template = await payload().create({
      collection: 'templates',
      data: {
        name: 'On S3',
        slug: 'on-s3',
        category: 'marketing',
        publishedAt: new Date(Date.now() - 60_000).toISOString(),
      },
      file: { data: bytes, mimetype: 'application/gzip', name: 'on-s3.tar.gz', size: bytes.length },
    })
    expect(template.prefix).toBe('templates')

    const catalogue = await api('GET', '/templates', { as: null })
    expect(catalogue.body.docs).toHaveLength(1)
    for (const field of ['url', 'filename', 'prefix', '_objectKey'])
      expect(catalogue.body.docs[0]).not.toHaveProperty(field)
    expect([401, 403]).toContain((await api('GET', '/templates/file/on-s3.tar.gz', { as: null })).status)

    const holder = await createUser(payload(), 'customer')
    await grantLicense(payload(), holder, 'standard', 'active')
    const response = await api('GET', `/templates/${template.id}/download`, { as: holder })
    expect(response.status).toBe(200)
    const url = new URL(response.body.url)
    expect(url.origin).toBe(s3Endpoint)
    expect(url.pathname).toBe(`/${S3_BUCKET}/templates/on-s3.tar.gz`)
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300')
    expect(url.searchParams.get('response-content-disposition')).toContain('attachment; filename="on-s3.tar.gz"')
    const file = await fetch(url)
    expect(file.status).toBe(200)
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true)

    const refused = await api('GET', `/templates/${template.id}/download`, {
      as: await createUser(payload(), 'customer'),
    })
    expect(refused.status).toBe(403)
  })
})
