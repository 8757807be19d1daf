import { spawn } from 'node:child_process'
import type http from 'node:http'
import type { BlockList } from 'node:net'
import os from 'node:os'
import path from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import { CLIENT_ADDRESS_HEADER, parseTrustedProxies, resolveClientAddress } from '../../src/http/client-address'
import { addressBucket, truncatedAddress } from '../../src/http/ip-address'
import { createHost, type Host } from '../../src/server/host'
import { oneSocket, send, startPayloadHost } from '../support/host'
import { api, usePayload } from '../support/payload'

usePayload()

const hosts: Host[] = []
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()))
})

/** A host whose "Next" answers with the client address it was handed. */
const echoHost = async (trustedProxies?: BlockList) => {
  const host = createHost({
    handle: (req, res) => {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ address: req.headers[CLIENT_ADDRESS_HEADER] ?? null }))
    },
    checkDatabase: () => Promise.resolve(),
    maxBodyBytes: 1_000,
    maxUploadBytes: 1_000,
    trustedProxies,
  })
  hosts.push(host)
  return `http://127.0.0.1:${await host.listen(0, '127.0.0.1')}`
}

const addressSeen = async (base: string, headers: http.OutgoingHttpHeaders) =>
  JSON.parse((await send(base, '/anything', { headers })).body).address

describe('the one client address', () => {
  it('is the socket peer: X-Forwarded-For and a forged internal header from a client are ignored', async () => {
    const base = await echoHost()
    expect(await addressSeen(base, {})).toBe('127.0.0.1')
    expect(await addressSeen(base, { 'x-forwarded-for': '203.0.113.7' })).toBe('127.0.0.1')
    expect(
      await addressSeen(base, {
        'x-forwarded-for': '203.0.113.7',
        'x-real-ip': '203.0.113.8',
        [CLIENT_ADDRESS_HEADER]: '203.0.113.9',
      }),
    ).toBe('127.0.0.1')
  })

  it('behind a trusted proxy: the right-most X-Forwarded-For hop that is not a trusted proxy', async () => {
    const base = await echoHost(parseTrustedProxies('127.0.0.1/32'))
    // The client wrote 203.0.113.7 itself; the proxy appended the address it saw: 198.51.100.2.
    expect(await addressSeen(base, { 'x-forwarded-for': '203.0.113.7, 198.51.100.2' })).toBe('198.51.100.2')
    expect(await addressSeen(base, { [CLIENT_ADDRESS_HEADER]: '203.0.113.9', 'x-forwarded-for': '198.51.100.2' })).toBe(
      '198.51.100.2',
    )
    // The proxy itself (a health check): no header, the peer.
    expect(await addressSeen(base, {})).toBe('127.0.0.1')

    const chained = await echoHost(parseTrustedProxies('127.0.0.0/8, 10.0.0.0/8'))
    expect(await addressSeen(chained, { 'x-forwarded-for': '203.0.113.7, 198.51.100.2, 10.1.2.3' })).toBe(
      '198.51.100.2',
    )
  })

  it.each([
    ['no proxy trusted: the peer', '198.51.100.9', '1.2.3.4', '', '198.51.100.9'],
    ['an untrusted peer: its own address', '198.51.100.9', '1.2.3.4', '10.0.0.0/8', '198.51.100.9'],
    ['an IPv4-mapped peer is plain IPv4', '::ffff:10.0.0.5', '1.2.3.4', '10.0.0.0/8', '1.2.3.4'],
    ['several headers are one list', '10.0.0.5', ['9.9.9.9', '1.2.3.4'], '10.0.0.0/8', '1.2.3.4'],
    ['every hop trusted: the left-most', '10.0.0.5', '10.0.0.7, 10.0.0.6', '10.0.0.0/8', '10.0.0.7'],
    [
      'an IPv6 client behind an IPv6 proxy, spelled one way',
      '2001:db8::1',
      '2001:DB8:0:5:0:0:0:9',
      '2001:db8::/64',
      '2001:db8:0:5::9',
    ],
    ['a hop with a port', '10.0.0.5', '1.2.3.4:5678', '10.0.0.0/8', '1.2.3.4'],
    ['garbage in the untrusted hop: no usable address', '10.0.0.5', '1.2.3.4, not-an-ip', '10.0.0.0/8', null],
  ])('%s', (_name, peer, forwardedFor, trusted, expected) => {
    expect(resolveClientAddress(peer, forwardedFor, parseTrustedProxies(trusted))).toBe(expected)
  })

  it('TRUSTED_PROXIES refuses entries it cannot read', () => {
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/8/1', '::1/129'])
      expect(() => parseTrustedProxies(bad)).toThrow(/TRUSTED_PROXIES/)
    expect(() => parseTrustedProxies(' 10.0.0.0/8 , 192.168.1.1 ,::1')).not.toThrow()
  })

  it('the server does not start with a TRUSTED_PROXIES it cannot read, and says why', async () => {
    const root = path.resolve(import.meta.dirname, '../..')
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        path.join(root, 'node_modules/.bin/tsx'),
        ['--conditions=production', path.join(root, 'server.ts')],
        {
          cwd: os.tmpdir(),
          env: {
            PATH: process.env.PATH ?? '',
            HOME: os.tmpdir(),
            NODE_ENV: 'production',
            TRUSTED_PROXIES: '10.0.0.0/8, the-load-balancer',
          },
        },
      )
      let output = ''
      // The refusal is a log line (stdout); stderr too, for anything printed before the logger exists.
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      child.on('close', (exitCode) => {
        clearTimeout(timer)
        resolve({ code: exitCode, stderr: output })
      })
    })
    expect(code).toBe(1)
    const messages = stderr
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg)
    expect(messages.join('\n')).toContain('TRUSTED_PROXIES: "the-load-balancer" is not an IP address or CIDR')
  })
})

describe('per-address limits cannot be lifted by rotating X-Forwarded-For', () => {
  it('40 magic-link requests from one socket with 40 different X-Forwarded-For values are limited', async () => {
    const { base } = await startPayloadHost()
    const agent = oneSocket()
    const statuses: number[] = []
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const response = await send(base, '/api/auth/magic-link', {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `192.0.2.${attempt + 1}` },
        body: JSON.stringify({ email: `rotating-${attempt}@example.test` }),
      })
      statuses.push(response.status)
      if (response.status === 429) {
        expect(JSON.parse(response.body).errors[0].code).toBe('rate_limited')
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0)
      }
    }
    agent.destroy()
    const limit = RATE_LIMITS['magic_link:ip'].points
    expect(statuses.slice(0, limit).every((status) => status === 200)).toBe(true)
    expect(statuses.slice(limit).every((status) => status === 429)).toBe(true)
  })

  it('requests with no usable address share one bucket instead of skipping the limit', async () => {
    const limit = RATE_LIMITS['magic_link:ip'].points
    const statuses: number[] = []
    for (let attempt = 0; attempt <= limit; attempt += 1) {
      statuses.push(
        (await api('POST', '/auth/magic-link', { address: null, body: { email: `nowhere-${attempt}@example.test` } }))
          .status,
      )
    }
    expect(statuses.at(-1)).toBe(429)
    // A client with an address is not in that bucket.
    expect((await api('POST', '/auth/magic-link', { body: { email: 'elsewhere@example.test' } })).status).toBe(200)
  })

  it('an IPv6 client is one client across its /64', async () => {
    const limit = RATE_LIMITS['magic_link:ip'].points
    const statuses: number[] = []
    for (let attempt = 0; attempt <= limit; attempt += 1) {
      const address = `2001:db8:7:7:${(attempt + 1).toString(16)}::1`
      statuses.push(
        (await api('POST', '/auth/magic-link', { address, body: { email: `six-${attempt}@example.test` } })).status,
      )
    }
    expect(statuses.at(-1)).toBe(429)
  })
})

describe('address prefixes', () => {
  it.each([
    ['IPv4 as it is', '203.0.113.7', '203.0.113.7'],
    ['no address: the shared bucket', null, 'unknown'],
    ['IPv6: its /64, every group written out', '2001:db8:7:7:1::1', '2001:0db8:0007:0007::/64'],
    ['IPv6 spelled in capitals, compressed early', '2001:DB8::9', '2001:0db8:0000:0000::/64'],
    ['IPv6 without compression', '2001:db8:1:2:3:4:5:6', '2001:0db8:0001:0002::/64'],
    ['loopback', '::1', '0000:0000:0000:0000::/64'],
  ])('the rate-limit bucket of %s', (_name, address, expected) => {
    expect(addressBucket(address)).toBe(expected)
  })

  it.each([
    ['IPv4 to its /24', '203.0.113.7', '203.0.113.0'],
    ['an IPv4-mapped address as IPv4', '::ffff:203.0.113.7', '203.0.113.0'],
    ['the first of a list', '203.0.113.7, 10.0.0.1', '203.0.113.0'],
    ['IPv6 to its /48', '2001:db8:7:7:1::1', '2001:db8:7::'],
    ['IPv6 compressed early', '2001:db8::9', '2001:db8:0::'],
    ['IPv6 without compression', '2001:db8:1:2:3:4:5:6', '2001:db8:1::'],
    ['loopback', '::1', '0:0:0::'],
    ['IPv6 whose /48 ends after the `::`', '::a:b:c:d:e:f', '0:0:a::'],
    ['nothing', null, null],
    ['not an address', 'not-an-ip', null],
  ])('the stored address of %s', (_name, address, expected) => {
    expect(truncatedAddress(address)).toBe(expected)
  })
})
