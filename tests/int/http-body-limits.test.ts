import http from 'node:http'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import config from '../../payload.config'
import { staffSessionCheck } from '../../src/http/staff-session'
import { createHost, type Host } from '../../src/server/host'
import { send, startPayloadHost } from '../support/host'
import { createUser, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()

const MiB = 1024 * 1024
const LIMIT = MiB
const UPLOAD_LIMIT = 8 * MiB

/** A body of `size` bytes in 64 KiB chunks: sent without Content-Length (chunked). */
const chunksOf = (size: number, prefix = Buffer.alloc(0), suffix = Buffer.alloc(0)) => {
  const whole = Buffer.concat([prefix, Buffer.alloc(size, 'x'), suffix])
  const chunks: Buffer[] = []
  for (let offset = 0; offset < whole.length; offset += 64 * 1024)
    chunks.push(whole.subarray(offset, offset + 64 * 1024))
  return chunks
}

const BOUNDARY = 'kit-boundary-1234'
const multipart = (size: number) =>
  chunksOf(
    size,
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="kit.zip"\r\nContent-Type: application/zip\r\n\r\n`,
    ),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  )
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`

/** What the fake "Next" saw of each request: bytes read, and whether the body ended. */
type Seen = { path: string; bytes: number; ended: boolean; failed: boolean }
const seen: Seen[] = []
const hosts: Host[] = []
let base = ''
let staff: TestUser
let customer: TestUser

beforeAll(async () => {
  const resolved = await config
  staff = await createUser(payload(), 'support')
  customer = await createUser(payload(), 'customer')
  const host = createHost({
    // Reads the whole body, as Next and Payload do, then answers with what it got.
    handle: async (req, res) => {
      const record: Seen = { path: req.url ?? '', bytes: 0, ended: false, failed: false }
      seen.push(record)
      try {
        for await (const chunk of req) record.bytes += (chunk as Buffer).length
        record.ended = true
      } catch {
        record.failed = true
      }
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ bytes: record.bytes }))
    },
    checkDatabase: () => Promise.resolve(),
    maxBodyBytes: LIMIT,
    maxUploadBytes: UPLOAD_LIMIT,
    uploads: { paths: ['/api/releases', '/api/media'], isStaff: staffSessionCheck(resolved.secret, 'payload-token') },
  })
  hosts.push(host)
  base = `http://127.0.0.1:${await host.listen(0, '127.0.0.1')}`
})

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()))
})

const expectTooLarge = (
  response: { status: number; body: string; headers: http.IncomingHttpHeaders },
  limit = LIMIT,
) => {
  expect(response.status).toBe(413)
  expect(JSON.parse(response.body)).toEqual({
    errors: [{ code: 'payload_too_large', message: `Request bodies are limited to ${limit} bytes.` }],
  })
  expect(response.headers.connection).toBe('close')
}

/** The fake Next never got more than the limit of a refused body, nor its end. */
const expectNotBuffered = async (path: string) => {
  await new Promise((resolve) => setTimeout(resolve, 50))
  const record = seen.filter((candidate) => candidate.path === path).at(-1)
  if (record) {
    expect(record.bytes).toBeLessThanOrEqual(LIMIT)
    expect(record.ended).toBe(false)
  }
}

describe('bodies are counted as they are read', () => {
  it('a chunked 2 MiB body (no Content-Length) to a JSON endpoint: 413, not buffered, the server stays healthy', async () => {
    const response = await send(base, '/api/auth/magic-link', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: chunksOf(2 * MiB),
    })
    expectTooLarge(response)
    await expectNotBuffered('/api/auth/magic-link')
    expect((await send(base, '/healthz')).status).toBe(200)
  })

  it('a chunked 2 MiB body to the webhook: 413', async () => {
    const response = await send(base, '/api/webhooks/processor', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: chunksOf(2 * MiB),
    })
    expectTooLarge(response)
    await expectNotBuffered('/api/webhooks/processor')
  })

  it('declaring multipart/form-data does not raise the limit of a route that is not a staff upload', async () => {
    const response = await send(base, '/api/plans', {
      method: 'POST',
      headers: { 'content-type': MULTIPART },
      chunks: multipart(2 * MiB),
    })
    expectTooLarge(response)
    await expectNotBuffered('/api/plans')
  })

  it('an upload route without a staff session keeps the JSON limit: anonymous, a customer, a forged token', async () => {
    const forged = `${staff.token.slice(0, -4)}AAAA`
    for (const authorization of [undefined, `JWT ${customer.token}`, `JWT ${forged}`]) {
      const response = await send(base, '/api/releases', {
        method: 'POST',
        headers: { 'content-type': MULTIPART, ...(authorization ? { authorization } : {}) },
        chunks: multipart(2 * MiB),
      })
      expectTooLarge(response)
    }
  })

  it('a declared Content-Length over the limit is refused before the handler reads anything', async () => {
    const before = seen.length
    const response = await send(base, '/api/users', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(2 * MiB) },
      body: Buffer.alloc(2 * MiB, 'x'),
    })
    expectTooLarge(response)
    expect(seen.length).toBe(before)
  })

  it('a client that waits for 100 Continue is told 413 before it sends an oversized body', async () => {
    const ask = (size: number) =>
      new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
        const { port } = new URL(base)
        let continued = false
        const request = http.request({
          host: '127.0.0.1',
          port,
          path: '/api/auth/magic-link',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': String(size), expect: '100-continue' },
        })
        request.on('continue', () => {
          continued = true
          request.end(Buffer.alloc(size, 'x'))
        })
        request.on('response', (response) => {
          response.resume()
          resolve({ status: response.statusCode ?? 0, continued })
        })
        request.on('error', reject)
        request.flushHeaders()
      })
    expect(await ask(2 * MiB)).toEqual({ status: 413, continued: false })
    expect(await ask(1_000)).toEqual({ status: 200, continued: true })
  })

  it('within the limits everything passes: JSON up to 1 MiB, staff uploads (session cookie or JWT) up to the upload limit', async () => {
    const json = await send(base, '/api/auth/magic-link', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: chunksOf(LIMIT),
    })
    expect(json.status).toBe(200)
    expect(JSON.parse(json.body)).toEqual({ bytes: LIMIT })

    const size = 2 * MiB
    const overhead = multipart(0).reduce((total, chunk) => total + chunk.length, 0)
    for (const headers of [
      { authorization: `JWT ${staff.token}` },
      { cookie: `theme=dark; payload-token=${staff.token}` },
    ]) {
      const upload = await send(base, '/api/releases', {
        method: 'POST',
        headers: { 'content-type': MULTIPART, ...headers },
        chunks: multipart(size),
      })
      expect(upload.status).toBe(200)
      expect(JSON.parse(upload.body)).toEqual({ bytes: size + overhead })
    }
    const update = await send(base, '/api/media/12', {
      method: 'PATCH',
      headers: { 'content-type': MULTIPART, authorization: `JWT ${staff.token}` },
      chunks: multipart(size),
    })
    expect(update.status).toBe(200)

    const tooBig = await send(base, '/api/releases', {
      method: 'POST',
      headers: { 'content-type': MULTIPART, authorization: `JWT ${staff.token}` },
      chunks: multipart(UPLOAD_LIMIT),
    })
    expectTooLarge(tooBig, UPLOAD_LIMIT)
  })
})

describe('through Payload', () => {
  it('a chunked 2 MiB body to a Payload endpoint is 413, and the next request is served', async () => {
    const { base: service } = await startPayloadHost()
    const response = await send(service, '/api/auth/magic-link', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: chunksOf(2 * MiB),
    })
    expectTooLarge(response)
    expect((await send(service, '/healthz')).status).toBe(200)
    const fine = await send(service, '/api/auth/magic-link', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      chunks: [Buffer.from(JSON.stringify({ email: 'after-the-flood@example.test' }))],
    })
    expect(fine.status).toBe(200)
  })
})
