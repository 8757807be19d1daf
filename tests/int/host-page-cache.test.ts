import http from 'node:http'

import { afterAll, describe, expect, it } from 'vitest'

import { expirePages } from '../../src/cache/pages'
import { createLogger } from '../../src/log'
import { createHost, type Host } from '../../src/server/host'
import { ISLANDS_PATH, islandsAsset, SCRIPT_FREE_MARKER } from '../../src/server/script-free'

/**
 * The host's page cache (src/server/page-cache.ts): through a real express host over HTTP, whose "Next"
 * counts its calls and answers as Next does (a cached page in one string, with `s-maxage` and Next's
 * `Vary`), or in the ways that must not be kept.
 */
const hosts: Host[] = []
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()))
})

const islands = islandsAsset(Buffer.from('console.log("islands");'.repeat(100)))
const NEXT_VARY = 'rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch'

const page = (body: string) =>
  [
    '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>',
    '<script src="/_next/static/chunks/c.js" async=""></script>',
    `<script async="" src="${ISLANDS_PATH}"></script>`,
    SCRIPT_FREE_MARKER,
    '</head><body>',
    body,
    `<p>${'padding so that the page is compressed '.repeat(40)}</p>`,
    '</body></html>',
  ].join('')

type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void

/** Next's answer for a page it serves from its cache: one string, shared-cacheable, its Vary. */
const cachedPage =
  (body: () => string, cacheControl = 's-maxage=60, stale-while-revalidate=31535940'): Answer =>
  (_req, res) => {
    res.setHeader('vary', NEXT_VARY)
    res.setHeader('x-nextjs-cache', 'HIT')
    res.setHeader('cache-control', cacheControl)
    res.setHeader('content-type', 'text/html; charset=utf-8')
    res.end(page(body()))
  }

const startHost = async (answer: Answer, options: { ttlMs?: number; referral?: boolean } = {}) => {
  const calls: string[] = []
  const host = createHost({
    handle: (req, res) => {
      calls.push(req.url ?? '')
      answer(req, res)
    },
    checkDatabase: () => Promise.resolve(),
    maxBodyBytes: 1_000,
    maxUploadBytes: 1_000,
    islands,
    pageCache: { ttlMs: options.ttlMs ?? 60_000 },
    ...(options.referral ? { referralVisit: ({ via }) => Promise.resolve(`kit_ref=${via}; Path=/; HttpOnly`) } : {}),
    logger: createLogger({ level: 'error', destination: { write: () => undefined } }),
  })
  hosts.push(host)
  const port = await host.listen(0, '127.0.0.1')
  return { base: `http://127.0.0.1:${port}`, calls, host }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the page cache', () => {
  it('sends a shared page again without Next: rewritten, encoded as asked, its own request id, ETag and 304', async () => {
    const { base, calls, host } = await startHost(cachedPage(() => '<p>Launch</p>'))
    const first = await fetch(`${base}/`, { headers: { 'accept-encoding': 'identity' } })
    const firstHtml = await first.text()
    expect(firstHtml).toContain('<p>Launch</p>')
    expect(firstHtml).not.toContain('/_next/static/chunks/c.js')
    expect(firstHtml).toContain(`${ISLANDS_PATH}?v=${islands.version}`)
    expect(first.headers.get('age')).toBeNull()
    expect(calls).toEqual(['/'])

    for (const encoding of ['identity', 'br', 'gzip']) {
      const again = await fetch(`${base}/`, { headers: { 'accept-encoding': encoding } })
      expect(again.status).toBe(200)
      expect(again.headers.get('age')).toBe('0')
      expect(again.headers.get('cache-control')).toBe('s-maxage=60, stale-while-revalidate=31535940')
      expect(again.headers.get('vary')).toContain('rsc')
      // Next's "HIT" was about the answer it gave, not this one.
      expect(again.headers.get('x-nextjs-cache')).toBeNull()
      expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'))
      // fetch undoes the encoding: the header says which one the copy left in.
      expect(again.headers.get('content-encoding')).toBe(encoding === 'identity' ? null : encoding)
      expect(await again.text()).toBe(firstHtml)
    }
    expect(calls).toEqual(['/'])

    const etag = (await fetch(`${base}/`, { headers: { 'accept-encoding': 'br' } })).headers.get('etag')
    expect(etag).toMatch(/^W\//)
    // Plain HTTP: fetch would add its own cache headers to a conditional request.
    const revalidated = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get(`${base}/`, { headers: { 'accept-encoding': 'br', 'if-none-match': etag! } }, (response) => {
          response.resume()
          resolve(response)
        })
        .on('error', reject),
    )
    expect(revalidated.statusCode).toBe(304)
    expect(revalidated.headers['content-encoding']).toBeUndefined()
    expect(revalidated.headers.etag).toBe(etag)
    expect(calls).toEqual(['/'])
    // The identity visit after the first, the second br visit and its 304: sent as the layers left them.
    expect(host.pageCache).toMatchObject({ stored: 1, misses: 1, hits: 5, sent: 3 })
  })

  it("sends the layers' answer again only in the encoding it left in, and never past the copy of Next's answer", async () => {
    const { base, calls, host } = await startHost(
      cachedPage(() => '<p>Encoded</p>'),
      { ttlMs: 1_000 },
    )
    const get = (encoding: string) => fetch(`${base}/changelog`, { headers: { 'accept-encoding': encoding } })
    const first = await get('br')
    const html = await first.text()
    const again = await get('br')
    expect(again.headers.get('content-encoding')).toBe('br')
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'))
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'))
    expect(await again.text()).toBe(html)
    expect(host.pageCache.sent).toBe(1)

    // Only deflate: the compression package deflates it, which is no copy for a client that takes nothing.
    const deflated = await get('deflate')
    expect(deflated.headers.get('content-encoding')).toBe('deflate')
    for (let visit = 0; visit < 2; visit += 1) {
      const plain = await get('identity')
      expect(plain.headers.get('content-encoding')).toBeNull()
      expect(await plain.text()).toBe(html)
    }
    expect(host.pageCache.sent).toBe(2)
    expect(calls).toEqual(['/changelog'])

    // Copies made from Next's copy late in its life go with it.
    await sleep(600)
    await (await get('gzip')).text()
    expect(calls).toHaveLength(1)
    await sleep(500)
    expect(await (await get('gzip')).text()).toBe(html)
    expect(await (await get('br')).text()).toBe(html)
    expect(calls).toHaveLength(2)
  })

  it('keeps a copy no longer than its time to live, and drops every copy when the pages expire', async () => {
    let body = '<p>Before</p>'
    const { base, calls } = await startHost(
      cachedPage(() => body),
      { ttlMs: 150 },
    )
    const get = async (path = '/pricing') => (await fetch(`${base}${path}`)).text()
    expect(await get()).toContain('<p>Before</p>')
    body = '<p>After</p>'
    expect(await get()).toContain('<p>Before</p>')
    await sleep(250)
    expect(await get()).toContain('<p>After</p>')
    expect(calls).toHaveLength(2)

    body = '<p>Edited by staff</p>'
    expirePages()
    expect(await get()).toContain('<p>Edited by staff</p>')
    expect(calls).toHaveLength(3)
  })

  it('never keeps the time to live past what the page allows (s-maxage)', async () => {
    const { base, calls } = await startHost(cachedPage(() => '<p>Short</p>', 'public, s-maxage=0'))
    await fetch(`${base}/`)
    await fetch(`${base}/`)
    expect(calls).toHaveLength(2)
  })

  const notKept: [string, Answer][] = [
    ['private', cachedPage(() => '<p>x</p>', 'private, no-cache, max-age=0, must-revalidate')],
    ['no-store', cachedPage(() => '<p>x</p>', 'no-store, must-revalidate')],
    ['no-cache', cachedPage(() => '<p>x</p>', 'public, max-age=60, no-cache')],
    ['without Cache-Control', (_req, res) => res.end(page('<p>x</p>'))],
    [
      'with a Set-Cookie',
      (req, res) => {
        res.setHeader('set-cookie', 'seen=1; Path=/')
        cachedPage(() => '<p>x</p>')(req, res)
      },
    ],
    [
      'a 404',
      (req, res) => {
        res.statusCode = 404
        cachedPage(() => '<p>x</p>')(req, res)
      },
    ],
    [
      'not HTML',
      (_req, res) => {
        res.setHeader('cache-control', 's-maxage=60')
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ page: 'x'.repeat(2000) }))
      },
    ],
    [
      'Vary: *',
      (_req, res) => {
        res.setHeader('vary', '*')
        res.setHeader('cache-control', 's-maxage=60')
        res.setHeader('content-type', 'text/html')
        res.end(page('<p>x</p>'))
      },
    ],
    [
      'streamed in chunks',
      (_req, res) => {
        res.setHeader('cache-control', 's-maxage=60')
        res.setHeader('content-type', 'text/html')
        const html = page('<p>x</p>')
        res.write(html.slice(0, 100))
        res.end(html.slice(100))
      },
    ],
    [
      'with its headers in writeHead',
      (_req, res) => {
        res.writeHead(200, { 'cache-control': 's-maxage=60', 'content-type': 'text/html' })
        res.end(page('<p>x</p>'))
      },
    ],
  ]
  for (const [what, answer] of notKept) {
    it(`does not keep an answer ${what}`, async () => {
      const { base, calls, host } = await startHost(answer)
      const first = await fetch(`${base}/blog/a-post`)
      const second = await fetch(`${base}/blog/a-post`)
      expect(await second.text()).toBe(await first.text())
      expect(calls).toHaveLength(2)
      expect(host.pageCache.stored).toBe(0)
    })
  }

  it('sends to Next what a copy cannot answer: its router, a draft, another URL, HEAD, POST, an unlisted page', async () => {
    const { base, calls } = await startHost(cachedPage(() => '<p>Page</p>'))
    await fetch(`${base}/`)
    expect(calls).toHaveLength(1)
    // The RSC payload Next's router asks for (Vary: rsc) is another answer.
    await fetch(`${base}/`, { headers: { rsc: '1' } })
    await fetch(`${base}/`, { headers: { 'next-router-prefetch': '1' } })
    // Draft mode: Next renders the draft for this visitor.
    await fetch(`${base}/`, { headers: { cookie: 'theme=dark; __prerender_bypass=abc' } })
    // The query is part of the URL, as in any HTTP cache.
    await fetch(`${base}/?utm_source=launch`)
    await fetch(`${base}/`, { method: 'HEAD' })
    await fetch(`${base}/`, {
      method: 'POST',
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    await fetch(`${base}/dashboard`)
    await fetch(`${base}/dashboard`)
    expect(calls).toEqual(['/', '/', '/', '/', '/?utm_source=launch', '/', '/', '/dashboard', '/dashboard'])
    // The router's own requests did not replace the kept page.
    await fetch(`${base}/`)
    await fetch(`${base}/?utm_source=launch`)
    expect(calls).toHaveLength(9)
  })

  it('a referral visit gets its cookie and is not kept; the others still get the shared copy without it', async () => {
    const { base, calls } = await startHost(
      cachedPage(() => '<p>Referred</p>'),
      { referral: true },
    )
    const referred = await fetch(`${base}/?via=partner`)
    expect(referred.headers.get('set-cookie')).toContain('kit_ref=partner')
    const again = await fetch(`${base}/?via=partner`)
    expect(again.headers.get('set-cookie')).toContain('kit_ref=partner')
    expect(calls).toEqual(['/?via=partner', '/?via=partner'])
    await fetch(`${base}/`)
    const plain = await fetch(`${base}/`)
    expect(plain.headers.get('age')).toBe('0')
    expect(plain.headers.get('set-cookie')).toBeNull()
    expect(calls).toHaveLength(3)
  })

  it('is off unless the host asks for it', async () => {
    const calls: string[] = []
    const host = createHost({
      handle: (req, res) => {
        calls.push(req.url ?? '')
        cachedPage(() => '<p>x</p>')(req, res)
      },
      checkDatabase: () => Promise.resolve(),
      maxBodyBytes: 1_000,
      maxUploadBytes: 1_000,
      logger: createLogger({ level: 'error', destination: { write: () => undefined } }),
    })
    hosts.push(host)
    const base = `http://127.0.0.1:${await host.listen(0, '127.0.0.1')}`
    await fetch(`${base}/`)
    await fetch(`${base}/`)
    expect(calls).toHaveLength(2)
  })
})
