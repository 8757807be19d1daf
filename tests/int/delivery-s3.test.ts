import './../support/s3-env'
import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { PRICES } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, usePayload } from '../support/payload'
import { createRelease } from '../support/releases'
import { S3_BUCKET, s3Endpoint } from '../support/s3-env'

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
})

describe('releases on S3', () => {
  it('stores the archive in the bucket and hands out a presigned GET that serves it as an attachment', async () => {
    const { bytes } = await createRelease(payload(), '3.0.0')
    const [release] = await rows(payload(), 'releases', { version: { equals: '3.0.0' } })
    expect(release?.prefix).toBe('releases')

    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const response = await api('GET', '/download?version=3.0.0', { as: buyer })
    expect(response.status).toBe(200)
    const url = new URL(response.body.url)
    expect(url.origin).toBe(s3Endpoint)
    expect(url.pathname).toBe(`/${S3_BUCKET}/releases/starter-kit-3.0.0.tar.gz`)
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300')
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/)
    expect(url.searchParams.get('response-content-disposition')).toContain(
      'attachment; filename="starter-kit-3.0.0.tar.gz"',
    )

    const file = await fetch(url)
    expect(file.status).toBe(200)
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true)
    expect(file.headers.get('content-disposition')).toContain('attachment')
    expect((await rows(payload(), 'downloads', { user: { equals: buyer.user.id } })).length).toBe(1)
  })
})
