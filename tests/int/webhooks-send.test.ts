import crypto from 'node:crypto'
import dns from 'node:dns'
import { once } from 'node:events'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'

import {
  type AddressClass,
  checkWebhookUrl,
  classifyAddress,
  safeLookup,
  WEBHOOK_ADDRESS_REFUSED,
  WEBHOOK_URL_REASONS,
} from '../../src/webhooks/address'
import { postWebhook } from '../../src/webhooks/send'

/**
 * Outbound webhooks: which URLs and addresses may be called (the SSRF guard) and one delivery attempt,
 * against real receivers on 127.0.0.1. No database.
 */

type Received = { method: string; path: string; headers: http.IncomingHttpHeaders; body: string }

const received: Received[] = []
const hungSockets: Socket[] = []
let connections = 0
let port = 0
let closedPort = 0
let server: http.Server

/** What the receiver answers, by path. */
const answer = (request: http.IncomingMessage, response: http.ServerResponse, path: string) => {
  if (path === '/ok') return response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks')
  if (path === '/fail')
    return response.writeHead(500, { 'content-type': 'text/plain' }).end('the receiver broke: database down')
  if (path === '/redirect') return response.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end()
  if (path === '/hang') return hungSockets.push(request.socket)
  if (path === '/stall') {
    // The head and the start of the body, then nothing more.
    response.writeHead(200, { 'content-type': 'text/plain' })
    return response.write('accepted, still writing')
  }
  if (path === '/huge') {
    // Never ends: writes 64 KiB chunks for as long as the client reads.
    response.writeHead(200, { 'content-type': 'text/plain' })
    const chunk = 'x'.repeat(64 * 1024)
    const pump = () => {
      let flowing = true
      while (!response.destroyed && flowing) flowing = response.write(chunk)
      if (!response.destroyed) response.once('drain', pump)
    }
    response.on('error', () => undefined)
    return pump()
  }
  return response.writeHead(200).end()
}

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const path = request.url ?? '/'
      received.push({
        method: request.method ?? '',
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      answer(request, response, new URL(path, 'http://receiver').pathname)
    })
  })
  server.on('connection', () => {
    connections += 1
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as AddressInfo).port

  const closed = http.createServer()
  closed.listen(0, '127.0.0.1')
  await once(closed, 'listening')
  closedPort = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

afterEach(() => {
  vi.restoreAllMocks()
})

const requestsTo = (path: string) => received.filter((request) => request.path === path)

/** A refusal for this reason. */
const refused = (reason: keyof typeof WEBHOOK_URL_REASONS) => ({ ok: false, reason: WEBHOOK_URL_REASONS[reason] })

describe('classifyAddress', () => {
  const table: [string, AddressClass][] = [
    ['169.254.169.254', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['fe80::1%eth0', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['64:ff9b::a9fe:a9fe', 'forbidden'],
    ['64:ff9b::169.254.169.254', 'forbidden'],
    ['0.0.0.0', 'forbidden'],
    ['0.1.2.3', 'forbidden'],
    ['::', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['240.0.0.1', 'forbidden'],
    ['192.0.0.192', 'forbidden'],
    ['100.100.100.200', 'forbidden'],
    ['2002:a9fe:a9fe::1', 'forbidden'],
    // Teredo: the client's address is stored inverted (0xa9fe ^ 0xffff = 0x5601).
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'forbidden'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'forbidden'],
    ['::1.2.3.4', 'forbidden'],
    ['2001:db8::1', 'forbidden'],
    ['not an address', 'forbidden'],
    ['127.0.0.1', 'private'],
    ['::1', 'private'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['198.18.0.1', 'private'],
    ['fc00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'private'],
    ['2002:0a00:0001::1', 'private'],
    ['64:ff9b:1::808:808', 'private'],
    ['8.8.8.8', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['2002:0808:0808::1', 'public'],
  ]
  it.each(table)('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected)
  })
})

describe('checkWebhookUrl', () => {
  const publicResolver = () => Promise.resolve(['93.184.216.34'])

  it('accepts https to a public address, dropping the fragment', async () => {
    const check = await checkWebhookUrl('  https://hooks.example.com/in?x=1#frag  ', {
      allowPrivate: false,
      resolve: publicResolver,
    })
    expect(check.ok).toBe(true)
    if (check.ok) expect(check.url.href).toBe('https://hooks.example.com/in?x=1')
  })

  it('refuses http without allowPrivate, and other schemes always', async () => {
    expect(
      await checkWebhookUrl('http://hooks.example.com/', { allowPrivate: false, resolve: publicResolver }),
    ).toEqual(refused('scheme'))
    expect(
      (await checkWebhookUrl('http://hooks.example.com/', { allowPrivate: true, resolve: publicResolver })).ok,
    ).toBe(true)
    expect(
      (await checkWebhookUrl('ftp://hooks.example.com/', { allowPrivate: true, resolve: publicResolver })).ok,
    ).toBe(false)
    expect((await checkWebhookUrl('not a url', { allowPrivate: true })).ok).toBe(false)
  })

  it('refuses https to 127.0.0.1 without allowPrivate and accepts it with', async () => {
    expect(await checkWebhookUrl('https://127.0.0.1/hook', { allowPrivate: false })).toEqual(refused('private'))
    expect((await checkWebhookUrl('https://127.0.0.1/hook', { allowPrivate: true })).ok).toBe(true)
    // The URL parser's other spellings of 127.0.0.1 are the same address.
    expect((await checkWebhookUrl('https://2130706433/hook', { allowPrivate: false })).ok).toBe(false)
    expect((await checkWebhookUrl('https://0x7f.1/hook', { allowPrivate: false })).ok).toBe(false)
  })

  it('resolves names with the system resolver by default', async () => {
    expect(await checkWebhookUrl('https://localhost/hook', { allowPrivate: false })).toEqual(refused('private'))
    expect((await checkWebhookUrl('https://localhost/hook', { allowPrivate: true })).ok).toBe(true)
  })

  it('refuses metadata addresses even with allowPrivate', async () => {
    const metadata = [
      'https://169.254.169.254/latest/meta-data/',
      'http://169.254.169.254/',
      'https://[fd00:ec2::254]/',
      'https://[::ffff:169.254.169.254]/',
    ]
    for (const url of metadata) {
      expect(await checkWebhookUrl(url, { allowPrivate: true }), url).toEqual(refused('forbidden'))
    }
    expect(await checkWebhookUrl('https://[fd00:ec2::254]/', { allowPrivate: false })).toEqual(refused('forbidden'))
  })

  it('refuses a user name or password', async () => {
    for (const url of [
      'https://user:pass@hooks.example.com/',
      'https://user@hooks.example.com/',
      'https://:pass@hooks.example.com/',
    ]) {
      expect(await checkWebhookUrl(url, { allowPrivate: true, resolve: publicResolver }), url).toEqual(
        refused('credentials'),
      )
    }
  })

  it('refuses URLs over 2,048 characters', async () => {
    const base = 'https://hooks.example.com/'
    const atLimit = base + 'a'.repeat(2048 - base.length)
    expect((await checkWebhookUrl(atLimit, { allowPrivate: false, resolve: publicResolver })).ok).toBe(true)
    expect(await checkWebhookUrl(`${atLimit}a`, { allowPrivate: false, resolve: publicResolver })).toEqual(
      refused('tooLong'),
    )
  })

  it('requires every resolved address to be acceptable', async () => {
    const mixed = () => Promise.resolve(['93.184.216.34', '169.254.169.254'])
    expect(await checkWebhookUrl('https://hooks.example.com/', { allowPrivate: true, resolve: mixed })).toEqual(
      refused('forbidden'),
    )
    const withPrivate = () => Promise.resolve(['93.184.216.34', '10.0.0.5'])
    expect(await checkWebhookUrl('https://hooks.example.com/', { allowPrivate: false, resolve: withPrivate })).toEqual(
      refused('private'),
    )
  })

  it('refuses a host that does not resolve', async () => {
    const notFound = (): Promise<string[]> =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }))
    expect(await checkWebhookUrl('https://nowhere.invalid/', { allowPrivate: true, resolve: notFound })).toEqual(
      refused('unresolvable'),
    )
    expect(
      await checkWebhookUrl('https://empty.example/', { allowPrivate: true, resolve: () => Promise.resolve([]) }),
    ).toEqual(refused('unresolvable'))
  })

  it('does not resolve IP literals', async () => {
    const resolve = vi.fn(publicResolver)
    expect((await checkWebhookUrl('https://8.8.8.8/', { allowPrivate: false, resolve })).ok).toBe(true)
    expect((await checkWebhookUrl('https://[2606:4700::1111]/', { allowPrivate: false, resolve })).ok).toBe(true)
    expect(resolve).not.toHaveBeenCalled()
  })
})

describe('safeLookup', () => {
  it('answers as dns.lookup does, with and without all', async () => {
    const lookup = safeLookup({ allowPrivate: true })
    const one = await new Promise<[string, number | undefined]>((resolve, reject) =>
      lookup('localhost', { family: 4 }, (error, address, family) =>
        error ? reject(error) : resolve([address as string, family]),
      ),
    )
    expect(one).toEqual(['127.0.0.1', 4])
    const all = await new Promise<dns.LookupAddress[]>((resolve, reject) =>
      lookup('localhost', { all: true, family: 4 }, (error, addresses) =>
        error ? reject(error) : resolve(addresses as dns.LookupAddress[]),
      ),
    )
    expect(all).toEqual([{ address: '127.0.0.1', family: 4 }])
  })

  it('refuses, at connect time, a host name resolving to 127.0.0.1 unless private addresses are allowed', async () => {
    const before = connections
    const request = http.request({
      host: 'localhost',
      port,
      path: '/ok',
      method: 'POST',
      agent: false,
      lookup: safeLookup({ allowPrivate: false }),
    })
    request.end('{}')
    const [error] = (await once(request, 'error')) as [NodeJS.ErrnoException]
    expect(error.code).toBe(WEBHOOK_ADDRESS_REFUSED)
    expect(error.message).toBe(WEBHOOK_URL_REASONS.private)
    expect(connections).toBe(before)

    const allowed = http.request({
      host: 'localhost',
      port,
      path: '/ok',
      method: 'POST',
      agent: false,
      lookup: safeLookup({ allowPrivate: true }),
    })
    allowed.end('{}')
    const [response] = (await once(allowed, 'response')) as [http.IncomingMessage]
    expect(response.statusCode).toBe(200)
    response.resume()
  })
})

describe('postWebhook', () => {
  const options = { timeoutMs: 5000, allowPrivate: true }

  it('POSTs the exact body and headers, signed as Standard Webhooks verify', async () => {
    const secret = `whsec_${crypto.randomBytes(32).toString('base64')}`
    const id = `msg_${crypto.randomBytes(8).toString('hex')}`
    const timestamp = new Date()
    const body = JSON.stringify({ type: 'license.created', data: { id: 42, note: 'é ✓ 🎉' } })
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
    }
    const outcome = await postWebhook(`http://127.0.0.1:${port}/ok?source=test`, body, headers, options)
    expect(outcome).toMatchObject({ ok: true, status: 200, excerpt: 'thanks', error: null, message: null })
    expect(Number.isInteger(outcome.durationMs)).toBe(true)

    const [request] = requestsTo('/ok?source=test')
    expect(request).toBeDefined()
    expect(request!.method).toBe('POST')
    expect(request!.body).toBe(body)
    expect(request!.headers['content-type']).toBe('application/json')
    expect(request!.headers['user-agent']).toBe('starter-kit-webhooks/1')
    expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(body)))
    for (const [name, value] of Object.entries(headers)) expect(request!.headers[name]).toBe(value)
    const receivedHeaders = {
      'webhook-id': String(request!.headers['webhook-id']),
      'webhook-timestamp': String(request!.headers['webhook-timestamp']),
      'webhook-signature': String(request!.headers['webhook-signature']),
    }
    expect(() => new Webhook(secret).verify(request!.body, receivedHeaders)).not.toThrow()
  })

  it('reports a 500 as a status error, with the excerpt', async () => {
    const outcome = await postWebhook(`http://127.0.0.1:${port}/fail`, '{}', {}, options)
    expect(outcome).toMatchObject({
      ok: false,
      status: 500,
      error: 'status',
      excerpt: 'the receiver broke: database down',
    })
    expect(outcome.message).toBe('The receiver answered with HTTP 500.')
  })

  it('does not follow a redirect', async () => {
    const outcome = await postWebhook(`http://127.0.0.1:${port}/redirect`, '{}', {}, options)
    expect(outcome).toMatchObject({ ok: false, status: 302, error: 'redirect', excerpt: null })
    expect(requestsTo('/redirect')).toHaveLength(1)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(requestsTo('/target')).toHaveLength(0)
  })

  it('gives up on a receiver that never answers, and closes the socket', async () => {
    const outcome = await postWebhook(`http://127.0.0.1:${port}/hang`, '{}', {}, { timeoutMs: 500, allowPrivate: true })
    expect(outcome).toMatchObject({ ok: false, status: null, error: 'timeout', excerpt: null })
    expect(outcome.durationMs).toBeGreaterThanOrEqual(490)
    expect(outcome.durationMs).toBeLessThan(1500)
    const socket = hungSockets.at(-1)!
    if (!socket.destroyed)
      await Promise.race([once(socket, 'close'), new Promise((resolve) => setTimeout(resolve, 1000))])
    expect(socket.destroyed).toBe(true)
  })

  it('decides by the status once the head has come, when the body then stalls', async () => {
    const outcome = await postWebhook(
      `http://127.0.0.1:${port}/stall`,
      '{}',
      {},
      { timeoutMs: 500, allowPrivate: true },
    )
    expect(outcome).toMatchObject({ ok: true, status: 200, error: null, excerpt: 'accepted, still writing' })
    expect(outcome.durationMs).toBeLessThan(1500)
  })

  it('keeps its own content-type and user-agent over the caller’s', async () => {
    const body = '{"a":1}'
    const headers = { 'Content-Type': 'text/plain', 'User-Agent': 'other', 'x-extra': 'kept' }
    await postWebhook(`http://127.0.0.1:${port}/ok?own-headers`, body, headers, options)
    const [request] = requestsTo('/ok?own-headers')
    expect(request!.headers['content-type']).toBe('application/json')
    expect(request!.headers['user-agent']).toBe('starter-kit-webhooks/1')
    expect(request!.headers['x-extra']).toBe('kept')
    expect(request!.body).toBe(body)
  })

  it('reports a failed TLS handshake as a TLS error', async () => {
    // The receiver speaks plain HTTP: the client's TLS handshake fails.
    const outcome = await postWebhook(`https://127.0.0.1:${port}/ok`, '{}', {}, options)
    expect(outcome).toMatchObject({ ok: false, status: null, error: 'tls' })
    expect(outcome.message).toMatch(/^The TLS connection to the receiver failed \([A-Z_]+\)\.$/)
  })

  it('reads only the start of a huge, never-ending response', async () => {
    const started = performance.now()
    const outcome = await postWebhook(`http://127.0.0.1:${port}/huge`, '{}', {}, options)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(outcome).toMatchObject({ ok: true, status: 200, error: null })
    expect(outcome.excerpt).toBe('x'.repeat(1000))
  })

  it('reports a closed port as a connection error', async () => {
    const outcome = await postWebhook(`http://127.0.0.1:${closedPort}/`, '{}', {}, options)
    expect(outcome).toMatchObject({
      ok: false,
      status: null,
      error: 'connection',
      message: 'The receiver refused the connection.',
    })
  })

  it('refuses a private host without allowPrivate, sending nothing', async () => {
    const before = connections
    const outcome = await postWebhook(`http://localhost:${port}/ok`, '{}', {}, { timeoutMs: 2000, allowPrivate: false })
    expect(outcome).toMatchObject({ ok: false, status: null, error: 'address_refused' })
    const https = await postWebhook(`https://localhost:${port}/ok`, '{}', {}, { timeoutMs: 2000, allowPrivate: false })
    expect(https).toMatchObject({
      ok: false,
      status: null,
      error: 'address_refused',
      message: WEBHOOK_URL_REASONS.private,
    })
    expect(connections).toBe(before)
  })

  it('refuses at connect time an address that changed since the check (DNS rebinding)', async () => {
    // The check sees a public address; by the time the socket connects, the name points at 127.0.0.1.
    vi.spyOn(dns.promises, 'lookup').mockResolvedValue([{ address: '93.184.216.34', family: 4 }] as never)
    const before = connections
    const outcome = await postWebhook(
      `https://localhost:${port}/ok`,
      '{}',
      {},
      { timeoutMs: 2000, allowPrivate: false },
    )
    expect(outcome).toMatchObject({
      ok: false,
      status: null,
      error: 'address_refused',
      message: WEBHOOK_URL_REASONS.private,
    })
    expect(connections).toBe(before)
  })

  it('reports a host that does not resolve as a DNS error', async () => {
    vi.spyOn(dns.promises, 'lookup').mockRejectedValue(
      Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }),
    )
    const outcome = await postWebhook('https://nowhere.invalid/', '{}', {}, options)
    expect(outcome).toMatchObject({ ok: false, status: null, error: 'dns', message: WEBHOOK_URL_REASONS.unresolvable })
  })
})
