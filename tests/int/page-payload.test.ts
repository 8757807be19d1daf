import type { Payload } from 'payload'
import { afterEach, describe, expect, it } from 'vitest'

import { getPayloadClient } from '../../src/app/_lib/session'
import { publishService } from '../../src/process/service'
import { usePayload } from '../support/payload'

const payload = usePayload()
const unpublish = () => {
  ;(globalThis as unknown as Record<symbol, unknown>)[Symbol.for('starter-kit.service')] = undefined
}

describe("pages' Payload instance", () => {
  afterEach(unpublish)

  it('is the one src/instrumentation.ts published, without loading a config of their own', async () => {
    const published = { config: { serverURL: 'published' } } as unknown as Payload
    publishService({ payload: published, jobsWorker: false, handle: () => Promise.resolve(new Response(null)) })
    expect(await getPayloadClient()).toBe(published)
  })

  it("is Payload's instance for the config where none was published (a page rendered in a test process)", async () => {
    unpublish()
    expect(await getPayloadClient()).toBe(payload())
  })
})
