import { afterAll, describe, expect, it } from 'vitest'

import { CLIENT_ADDRESS_HEADER } from '../../src/http/client-address'
import { createLogger } from '../../src/log'
import { createHost, type Host } from '../../src/server/host'

const hosts: Host[] = []
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()))
})

type Seen = { method: string; url: string; headers: Record<string, string>; body: string }

/**
 * A host whose "Next" answers `next:<url>` and whose direct handler (Payload's request handling in
 * production, src/server/direct.ts) records the fetch Request it gets and answers from `reply`.
 */
const startHost = async (
  reply: (request: Request) => Promise<Response> | Response = () => Response.json({ direct: true }),
) => {
  const seen: Seen[] = []
  const host = createHost({
    handle: (req, res) => {
      res.setHeader('content-type', 'text/plain')
      res.end(`next:${req.url}`)
    },
    checkDatabase: () => Promise.resolve(),
    maxBodyBytes: 1_000,
    maxUploadBytes: 5_000,
    direct: {
      paths: [
        { method: 'POST', path: '/api/webhooks/processor' },
        { method: 'GET', path: '/api/download' },
      ],
      origin: 'https://kit.example',
      handle: async (request) => {
        seen.push({
          method: request.method,
          url: request.url,
          headers: Object.fromEntries(request.headers),
          body: request.body ? await request.text() : '',
        })
        return reply(request)
      },
    },
    logger: createLogger({ level: 'silent', destination: { write: () => undefined } }),
  })
  hosts.push(host)
  const port = await host.listen(0, '127.0.0.1')
  return { seen, base: `http://127.0.0.1:${port}` }
}

describe('paths the host hands to Payload directly', () => {
  it('exact method and path go to the direct handler with the raw body, headers, query and the service origin', async () => {
    const { seen, base } = await startHost()
    const body = JSON.stringify({ id: 'evt_1', amount: 'ü'.repeat(10) })
    const response = await fetch(`${base}/api/webhooks/processor?x=1`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': 't=1,v1=abc',
        host: 'evil.example',
        [CLIENT_ADDRESS_HEADER]: '6.6.6.6',
      },
      body,
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ direct: true })
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ method: 'POST', url: 'https://kit.example/api/webhooks/processor?x=1', body })
    expect(seen[0]!.headers['stripe-signature']).toBe('t=1,v1=abc')
    // The client address is the host's own derivation, never the client's copy of the header.
    expect(seen[0]!.headers[CLIENT_ADDRESS_HEADER]).toBe('127.0.0.1')
    expect(seen[0]!.headers['x-request-id']).toBe(response.headers.get('x-request-id'))
  })

  it('another method, another path or a longer path goes to Next', async () => {
    const { seen, base } = await startHost()
    expect(await (await fetch(`${base}/api/webhooks/processor`)).text()).toBe('next:/api/webhooks/processor')
    expect(await (await fetch(`${base}/api/download/file/1?expires=1`)).text()).toBe(
      'next:/api/download/file/1?expires=1',
    )
    expect(await (await fetch(`${base}/api/downloads`)).text()).toBe('next:/api/downloads')
    expect(await (await fetch(`${base}/api/download?version=1.0.0`)).json()).toEqual({ direct: true })
    expect(seen.map((request) => request.method)).toEqual(['GET'])
  })

  it('the body limit holds for direct paths too, chunked or declared: 413 and nothing reaches the handler', async () => {
    const { seen, base } = await startHost()
    const big = 'a'.repeat(5_000)
    const declared = await fetch(`${base}/api/webhooks/processor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    })
    expect(declared.status).toBe(413)
    expect(((await declared.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('payload_too_large')
    const chunks = new ReadableStream({
      start(controller) {
        for (let index = 0; index < 10; index += 1) controller.enqueue(new TextEncoder().encode('b'.repeat(500)))
        controller.close()
      },
    })
    const chunked = await fetch(`${base}/api/webhooks/processor`, {
      method: 'POST',
      body: chunks,
      duplex: 'half',
    } as RequestInit)
    expect(chunked.status).toBe(413)
    expect(seen.every((request) => request.body.length <= 1_000)).toBe(true)
    expect((await fetch(`${base}/healthz`)).status).toBe(200)
  })

  it("passes the handler's status, headers, every Set-Cookie and a streamed body through", async () => {
    const { base } = await startHost(() => {
      const headers = new Headers({ 'content-type': 'application/octet-stream', 'cache-control': 'no-store' })
      headers.append('set-cookie', 'a=1; Path=/')
      headers.append('set-cookie', 'b=2; Path=/')
      const stream = new ReadableStream({
        start(controller) {
          for (let index = 0; index < 64; index += 1) controller.enqueue(new Uint8Array(1024).fill(index))
          controller.close()
        },
      })
      return new Response(stream, { status: 202, headers })
    })
    const response = await fetch(`${base}/api/download`)
    expect(response.status).toBe(202)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/'])
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(bytes.length).toBe(64 * 1024)
    expect(bytes[63 * 1024]).toBe(63)
  })

  it('a handler that throws answers 500 internal_error in the error shape, and the host keeps serving', async () => {
    const { base } = await startHost(() => {
      throw new Error('boom')
    })
    const response = await fetch(`${base}/api/download`)
    expect(response.status).toBe(500)
    expect(((await response.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('internal_error')
    expect((await fetch(`${base}/healthz`)).status).toBe(200)
  })
})
