import type http from 'node:http'
import zlib from 'node:zlib'

import { afterAll, describe, expect, it } from 'vitest'

import { createLogger } from '../../src/log'
import { createHost, type Host, SCRIPT_FREE_CANDIDATES } from '../../src/server/host'
import { ISLANDS_PATH, islandsAsset, SCRIPT_FREE_MARKER, withoutRuntime } from '../../src/server/script-free'

/**
 * The public pages without Next's runtime (src/server/script-free.ts): through a real express host whose
 * "Next" writes pages the ways Next does (in one piece, streamed in chunks after writeHead, with
 * Content-Length, not HTML, not 200), and the islands script it serves.
 */
const hosts: Host[] = []
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()))
})

const islands = islandsAsset(Buffer.from('console.log("islands");'.repeat(100)))

/** A page as Next writes it: its runtime, its inline RSC payload, JSON-LD, a preload, the islands script. */
const page = (marked: boolean, body = '<p>Hello</p>') =>
  [
    '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>',
    '<link rel="stylesheet" href="/_next/static/chunks/a.css" data-precedence="next"/>',
    '<link rel="preload" as="script" fetchPriority="low" href="/_next/static/chunks/b.js"/>',
    '<script src="/_next/static/chunks/c.js" async=""></script>',
    `<script async="" src="${ISLANDS_PATH}"></script>`,
    marked ? SCRIPT_FREE_MARKER : '',
    '</head><body>',
    body,
    '<script type="application/ld+json">{"@type":"BlogPosting"}</script>',
    '<script src="/_next/static/chunks/d.js" noModule=""></script>',
    '<script id="_R_">self.__next_r="x"</script>',
    '<script>(self.__next_f=self.__next_f||[]).push([0])</script>',
    '<script>self.__next_f.push([1,"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"])</script>',
    '</body></html>',
  ].join('')

type Writer = (res: http.ServerResponse, html: string) => void
const WRITERS: Record<string, Writer> = {
  'in one piece': (res, html) => {
    res.setHeader('content-type', 'text/html; charset=utf-8')
    res.setHeader('cache-control', 's-maxage=60, stale-while-revalidate')
    res.setHeader('content-length', Buffer.byteLength(html))
    res.end(html)
  },
  'streamed after writeHead, in chunks': (res, html) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'private, no-cache' })
    res.flushHeaders()
    for (let i = 0; i < html.length; i += 97) res.write(html.slice(i, i + 97))
    res.end()
  },
}

const startHost = async (write: Writer, html: (path: string) => string, status = 200, type = 'text/html') => {
  const host = createHost({
    handle: (req, res) => {
      if (status !== 200 || type !== 'text/html') {
        res.statusCode = status
        res.setHeader('content-type', type)
        res.end(html(req.url ?? '/'))
        return
      }
      write(res, html(req.url ?? '/'))
    },
    checkDatabase: () => Promise.resolve(),
    maxBodyBytes: 1_000,
    maxUploadBytes: 1_000,
    islands,
    logger: createLogger({ level: 'error', destination: { write: () => undefined } }),
  })
  hosts.push(host)
  const port = await host.listen(0, '127.0.0.1')
  return `http://127.0.0.1:${port}`
}

const decoded = async (response: Response) => Buffer.from(await response.arrayBuffer()).toString('utf8')

describe('a marked public page', () => {
  for (const [how, write] of Object.entries(WRITERS)) {
    it(`leaves without Next's scripts, preloads and payload, with JSON-LD and the versioned islands (${how})`, async () => {
      const base = await startHost(write, () => page(true))
      for (const encoding of ['identity', 'br', 'gzip']) {
        const response = await fetch(`${base}/pricing`, { headers: { 'accept-encoding': encoding } })
        expect(response.status).toBe(200)
        const html = await decoded(response)
        expect(html, encoding).not.toMatch(/_next\/static\/chunks\/[bcd]\.js|__next_f|__next_r|alert/)
        expect(html).toContain('<link rel="stylesheet" href="/_next/static/chunks/a.css" data-precedence="next"/>')
        expect(html).toContain('<script type="application/ld+json">{"@type":"BlogPosting"}</script>')
        expect(html).toContain(`<script async="" src="${ISLANDS_PATH}?v=${islands.version}"></script>`)
        expect(html.match(/<script/g)).toHaveLength(2)
        expect(html).toContain('<p>Hello</p>')
        if (response.headers.get('content-length'))
          expect(Number(response.headers.get('content-length'))).toBeLessThan(Buffer.byteLength(page(true)))
      }
    })
  }

  it('a page without the marker, a listed page that is not HTML or not 200, and an unlisted page are untouched', async () => {
    const unmarked = await startHost(WRITERS['in one piece']!, () => page(false))
    expect(await (await fetch(`${unmarked}/blog/a-premium-post`)).text()).toBe(page(false))
    const marked = await startHost(WRITERS['in one piece']!, () => page(true))
    expect(await (await fetch(`${marked}/dashboard`)).text()).toBe(page(true))
    expect(await (await fetch(`${marked}/api/plans`)).text()).toBe(page(true))
    const json = await startHost(WRITERS['in one piece']!, () => page(true), 200, 'application/json')
    expect(await (await fetch(`${json}/pricing`)).text()).toBe(page(true))
    const missing = await startHost(WRITERS['in one piece']!, () => page(true), 404)
    expect(await (await fetch(`${missing}/blog/nothing`)).text()).toBe(page(true))
  })

  it('is rewritten once per distinct page: the same bytes again reuse it, a changed page is rewritten anew', async () => {
    let body = '<p>First</p>'
    const base = await startHost(WRITERS['in one piece']!, () => page(true, body))
    const get = async () => decoded(await fetch(`${base}/pricing`, { headers: { 'accept-encoding': 'identity' } }))
    const first = await get()
    expect(first).toContain('<p>First</p>')
    expect(await get()).toBe(first)
    body = '<p>Second</p>'
    const second = await get()
    expect(second).toContain('<p>Second</p>')
    expect(second).not.toContain('<p>First</p>')
    expect(second).not.toContain('/_next/static/chunks/c.js')
  })

  it('a page larger than the host holds goes out whole, as Next wrote it', async () => {
    const large = page(true, `<p>${'x'.repeat(1_100_000)}</p>`)
    const base = await startHost(WRITERS['streamed after writeHead, in chunks']!, () => large)
    const response = await fetch(`${base}/blog/long`, { headers: { 'accept-encoding': 'identity' } })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(large)
  })

  it('is listed by path: the public pages, never the dashboard, the admin or the API', () => {
    for (const path of ['/', '/pricing', '/blog', '/blog/a-post', '/blog/page/2', '/blog/tag/x/page/2', '/changelog'])
      expect(SCRIPT_FREE_CANDIDATES.test(path), path).toBe(true)
    for (const path of ['/sign-in', '/sign-up', '/reset-password', '/checkout/recovery', '/unsubscribe/abc'])
      expect(SCRIPT_FREE_CANDIDATES.test(path), path).toBe(true)
    for (const path of ['/dashboard', '/admin', '/api/plans', '/success', '/account/keep', '/preview/x', '/_next/x'])
      expect(SCRIPT_FREE_CANDIDATES.test(path), path).toBe(false)
  })

  it('withoutRuntime keeps only JSON-LD and the islands, and leaves an unmarked page alone', () => {
    expect(withoutRuntime(page(false), 'v1')).toBeNull()
    const html = withoutRuntime(page(true), 'v1')!
    expect(html.match(/<script[^>]*>/g)).toEqual([
      `<script async="" src="${ISLANDS_PATH}?v=v1">`,
      '<script type="application/ld+json">',
    ])
    expect(html).not.toContain('rel="preload"')
  })
})

describe('the islands script', () => {
  it('is immutable at its version, revalidated at its plain address, compressed as the client accepts', async () => {
    const base = await startHost(WRITERS['in one piece']!, () => page(true))
    const versioned = await fetch(`${base}${ISLANDS_PATH}?v=${islands.version}`, {
      headers: { 'accept-encoding': 'br' },
    })
    expect(versioned.status).toBe(200)
    expect(versioned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(versioned.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(versioned.headers.get('content-encoding')).toBe('br')
    const raw = Buffer.from(await versioned.arrayBuffer())
    // fetch decodes brotli itself: the body is the script
    expect(raw.equals(islands.body) || zlib.brotliDecompressSync(raw).equals(islands.body)).toBe(true)
    for (const address of [ISLANDS_PATH, `${ISLANDS_PATH}?v=an-old-version`]) {
      const plain = await fetch(`${base}${address}`, { headers: { 'accept-encoding': 'identity' } })
      expect(plain.headers.get('cache-control'), address).toBe('public, max-age=0, must-revalidate')
      expect(Buffer.from(await plain.arrayBuffer()).equals(islands.body)).toBe(true)
      const etag = plain.headers.get('etag')!
      const again = await fetch(`${base}${address}`, { headers: { 'if-none-match': etag } })
      expect(again.status).toBe(304)
    }
  })
})
