import http from 'node:http'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'

import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'

import { createLogger } from '../../src/log'
import { createHost, type Host, RESTORABLE_PAGES } from '../../src/server/host'
import { freePort } from '../support/net'

const pools: pg.Pool[] = []
const hosts: Host[] = []
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()))
  await Promise.all(pools.map((pool) => pool.end()))
})

const poolFor = (connectionString: string) => {
  const pool = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 1_000 })
  pool.on('error', () => undefined)
  pools.push(pool)
  return pool
}

/** A host whose "Next" answers /slow after `slowMs` and everything else at once. */
const startHost = async (databaseUrl: string, slowMs = 400) => {
  const pool = poolFor(databaseUrl)
  const logs: string[] = []
  const host = createHost({
    handle: async (req, res) => {
      if (req.url === '/slow') await new Promise((resolve) => setTimeout(resolve, slowMs))
      res.setHeader('content-type', 'text/plain')
      res.end(`next:${req.url}`)
    },
    checkDatabase: async () => {
      await pool.query('SELECT 1')
    },
    maxBodyBytes: 1_000,
    maxUploadBytes: 5_000,
    uploads: {
      paths: ['/api/releases'],
      isStaff: (headers) => Promise.resolve(headers.authorization === 'JWT staff-token'),
    },
    shutdownTimeoutMs: 3_000,
    logger: createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(line) } }),
  })
  hosts.push(host)
  const port = await host.listen(0, '127.0.0.1')
  return { host, logs, base: `http://127.0.0.1:${port}` }
}

describe('health and readiness', () => {
  it('/healthz answers while the process lives, /readyz when the database answers', async () => {
    const { base } = await startHost(process.env.DATABASE_URL!)
    const health = await fetch(`${base}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: 'ok' })
    const ready = await fetch(`${base}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: 'ready', database: 'ok' })
    expect(ready.headers.get('cache-control')).toBe('no-store')
  })

  it('/readyz is 503 when the database is unreachable, /healthz stays 200', async () => {
    const port = await freePort()
    const { base } = await startHost(`postgres://postgres@127.0.0.1:${port}/none`)
    const ready = await fetch(`${base}/readyz`)
    expect(ready.status).toBe(503)
    expect(await ready.json()).toEqual({ status: 'unavailable', database: 'unreachable' })
    expect((await fetch(`${base}/healthz`)).status).toBe(200)
  })

  it('everything else goes to Next untouched', async () => {
    const { base } = await startHost(process.env.DATABASE_URL!)
    const response = await fetch(`${base}/api/plans?limit=1`)
    expect(await response.text()).toBe('next:/api/plans?limit=1')
  })
})

describe('body limits', () => {
  it('refuses a declared body over the limit with 413 and the error shape, before Next sees it', async () => {
    const { base } = await startHost(process.env.DATABASE_URL!)
    const big = await fetch(`${base}/api/users`, {
      method: 'POST',
      body: 'x'.repeat(1_001),
      headers: { 'content-type': 'application/json' },
    })
    expect(big.status).toBe(413)
    expect(await big.json()).toEqual({
      errors: [{ code: 'payload_too_large', message: 'Request bodies are limited to 1000 bytes.' }],
    })
    const small = await fetch(`${base}/api/users`, {
      method: 'POST',
      body: 'x'.repeat(1_000),
      headers: { 'content-type': 'application/json' },
    })
    expect(small.status).toBe(200)
  })

  it('gives staff uploads their own larger limit, and only them', async () => {
    const { base } = await startHost(process.env.DATABASE_URL!)
    const form = (size: number) => {
      const data = new FormData()
      data.append('file', new Blob(['y'.repeat(size)]), 'kit.zip')
      return data
    }
    const upload = (path: string, size: number, authorization?: string) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        body: form(size),
        headers: authorization ? { authorization } : {},
      }).then((response) => response.status)
    expect(await upload('/api/releases', 2_000, 'JWT staff-token')).toBe(200)
    expect(await upload('/api/releases', 6_000, 'JWT staff-token')).toBe(413)
    expect(await upload('/api/releases', 2_000)).toBe(413)
    expect(await upload('/api/users', 2_000, 'JWT staff-token')).toBe(413)
  })
})

describe('graceful shutdown', () => {
  it('stops accepting, lets in-flight requests finish, then resolves', async () => {
    const { host, logs, base } = await startHost(process.env.DATABASE_URL!, 500)
    const inFlight = fetch(`${base}/slow`).then(async (response) => ({
      status: response.status,
      text: await response.text(),
    }))
    await new Promise((resolve) => setTimeout(resolve, 100))
    const closed = host.close()
    await expect(fetch(`${base}/healthz`)).rejects.toThrow()
    expect(await inFlight).toEqual({ status: 200, text: 'next:/slow' })
    await closed
    expect(host.server.listening).toBe(false)
    // It finished because the request did, not because the shutdown timeout cut it off.
    expect(logs.filter((line) => line.includes('still open'))).toEqual([])
  })

  it('closes connections that are still open after the timeout', async () => {
    const { host, logs, base } = await startHost(process.env.DATABASE_URL!, 60_000)
    const { port } = new URL(base)
    const stuck = new Promise<string>((resolve) => {
      const request = http.get({ host: '127.0.0.1', port, path: '/slow' }, () => resolve('answered'))
      request.on('error', () => resolve('cut off'))
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    await host.close()
    expect(await stuck).toBe('cut off')
    expect(logs.some((line) => line.includes('still open after 3000 ms'))).toBe(true)
  })
})

describe('compression', () => {
  const page = `<!doctype html><html><body>${'<p>The kit ships with everything a launch needs.</p>'.repeat(400)}</body></html>`
  const archive = Buffer.alloc(50_000, 7)

  /** A host whose "Next" answers a page, a zip, a streamed page (flushed in two parts) and a tiny reply. */
  const startCompressingHost = async () => {
    let releaseStream = () => undefined as void
    const streamReleased = new Promise<void>((resolve) => (releaseStream = resolve))
    const host = createHost({
      handle: async (req, res) => {
        if (req.url === '/kit.zip') {
          res.setHeader('content-type', 'application/zip')
          res.end(archive)
        } else if (req.url === '/streamed') {
          res.setHeader('content-type', 'text/html; charset=utf-8')
          res.write(page)
          ;(res as unknown as { flush: () => void }).flush()
          await streamReleased
          res.end('<p>late part</p>')
        } else if (req.url?.startsWith('/cached')) {
          // As Next sends a page from its cache: in one piece, shared-cacheable.
          res.setHeader('content-type', 'text/html; charset=utf-8')
          res.setHeader('cache-control', 's-maxage=60, stale-while-revalidate=31535940')
          res.end(req.url === '/cached/changed' ? `${page}<p>changed</p>` : page)
        } else if (req.url === '/account') {
          res.setHeader('content-type', 'text/html; charset=utf-8')
          res.setHeader('cache-control', 'private, no-cache, no-store, max-age=0, must-revalidate')
          res.end(page)
        } else if (req.url === '/small') {
          res.setHeader('content-type', 'application/json')
          res.end('{"ok":true}')
        } else {
          res.setHeader('content-type', 'text/html; charset=utf-8')
          res.end(page)
        }
      },
      checkDatabase: () => Promise.resolve(),
      maxBodyBytes: 1_000,
      maxUploadBytes: 5_000,
      logger: createLogger({ level: 'silent', destination: { write: () => undefined } }),
    })
    hosts.push(host)
    const port = await host.listen(0, '127.0.0.1')
    return { port, releaseStream, stats: host.compression }
  }

  /** The raw response: headers and the bytes as sent, not decoded. */
  const raw = (port: number, path: string, acceptEncoding?: string) =>
    rawWith(port, path, acceptEncoding ? { 'accept-encoding': acceptEncoding } : {})

  const rawWith = (port: number, path: string, headers: http.OutgoingHttpHeaders) =>
    new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, path, headers }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }))
      })
      request.on('error', reject)
    })

  it('sends pages brotli- or gzip-compressed as the client accepts, and plain to a client that accepts neither', async () => {
    const { port } = await startCompressingHost()
    const brotli = await raw(port, '/', 'gzip, deflate, br')
    expect(brotli.headers['content-encoding']).toBe('br')
    expect(brotli.headers.vary).toMatch(/accept-encoding/i)
    expect(brotli.body.length).toBeLessThan(page.length / 10)
    expect(zlib.brotliDecompressSync(brotli.body).toString()).toBe(page)

    const gzip = await raw(port, '/', 'gzip')
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(zlib.gunzipSync(gzip.body).toString()).toBe(page)

    const plain = await raw(port, '/')
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body.toString()).toBe(page)
  })

  it('compresses a page any cache may keep once per body and encoding, and sends the kept bytes after', async () => {
    const { port, stats } = await startCompressingHost()
    const first = await raw(port, '/cached', 'gzip, deflate, br')
    const second = await raw(port, '/cached', 'br')
    expect(first.headers['content-encoding']).toBe('br')
    expect(first.headers['content-length']).toBe(String(first.body.length))
    expect(first.headers.vary).toMatch(/accept-encoding/i)
    expect(second.body.equals(first.body)).toBe(true)
    expect(zlib.brotliDecompressSync(second.body).toString()).toBe(page)
    expect(stats).toEqual({ memoHits: 1, memoMisses: 1 })

    // Another encoding, another body (the page rendered again): compressed anew.
    const gzip = await raw(port, '/cached', 'gzip')
    expect(zlib.gunzipSync(gzip.body).toString()).toBe(page)
    const changed = await raw(port, '/cached/changed', 'br')
    expect(zlib.brotliDecompressSync(changed.body).toString()).toBe(`${page}<p>changed</p>`)
    expect(stats).toEqual({ memoHits: 1, memoMisses: 3 })

    // A private page asked for without credentials is compressed as it is sent, never kept.
    const account = await raw(port, '/account', 'br')
    expect(account.headers['content-encoding']).toBe('br')
    expect(zlib.brotliDecompressSync(account.body).toString()).toBe(page)
    await raw(port, '/account', 'br')
    expect(stats).toEqual({ memoHits: 1, memoMisses: 3 })

    // A client that accepts neither gets the page as it is.
    const plain = await raw(port, '/cached')
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body.toString()).toBe(page)
  })

  it('gives a kept page an ETag from its bytes, answers 304 to a request that holds it, and a new one when it changes', async () => {
    const { port } = await startCompressingHost()
    const first = await raw(port, '/cached', 'br')
    const etag = first.headers.etag!
    expect(etag).toMatch(/^W\/"[A-Za-z0-9+/]{27}"$/)
    expect((await raw(port, '/cached', 'gzip')).headers.etag).toBe(etag)
    const again = await rawWith(port, '/cached', { 'accept-encoding': 'br', 'if-none-match': etag })
    expect(again.body.length).toBe(0)
    expect(again.headers.etag).toBe(etag)
    expect(again.headers['content-length']).toBeUndefined()
    const stale = await rawWith(port, '/cached/changed', { 'accept-encoding': 'br', 'if-none-match': etag })
    expect(stale.headers.etag).not.toBe(etag)
    expect(zlib.brotliDecompressSync(stale.body).toString()).toBe(`${page}<p>changed</p>`)
    // A personal answer has no ETag from the host (nothing kept, nothing to compare).
    expect((await raw(port, '/account', 'br')).headers.etag).toBeUndefined()
  })

  it('sends a personal answer (a session or an API key, not shared-cacheable) uncompressed: no BREACH oracle', async () => {
    const { port, stats } = await startCompressingHost()
    const credentials = [
      { cookie: 'theme=dark; payload-token=eyJ.session.jwt' },
      { cookie: 'payload-token=x' },
      { authorization: 'Bearer kit_live_0123456789' },
    ]
    for (const headers of credentials) {
      // The account page with the visitor's guess in the query: the same bytes as sent, no Content-Encoding.
      const personal = await rawWith(port, '/account?q=KIT-7Q2MD', {
        'accept-encoding': 'gzip, deflate, br',
        ...headers,
      })
      expect(personal.headers['content-encoding']).toBeUndefined()
      expect(personal.body.toString()).toBe(page)
      // So is an answer with no Cache-Control at all (a streamed page, Payload's JSON).
      expect(
        (await rawWith(port, '/', { 'accept-encoding': 'br', ...headers })).headers['content-encoding'],
      ).toBeUndefined()
      // A shared-cacheable page is the same for everyone: still compressed, from the kept copy.
      expect(
        (await rawWith(port, '/cached', { 'accept-encoding': 'br', ...headers })).headers['content-encoding'],
      ).toBe('br')
    }
    expect(stats.memoHits + stats.memoMisses).toBe(credentials.length)
    // A cookie that only looks alike is no session.
    expect(
      (await rawWith(port, '/account', { 'accept-encoding': 'br', cookie: 'not-payload-token=1' })).headers[
        'content-encoding'
      ],
    ).toBe('br')
  })

  it('leaves archives and replies under 1 KiB as they are', async () => {
    const { port } = await startCompressingHost()
    const zip = await raw(port, '/kit.zip', 'gzip, br')
    expect(zip.headers['content-encoding']).toBeUndefined()
    expect(zip.body.equals(archive)).toBe(true)
    const small = await raw(port, '/small', 'gzip, br')
    expect(small.headers['content-encoding']).toBeUndefined()
    expect(small.body.toString()).toBe('{"ok":true}')
  })

  it('passes a streamed page on as it is flushed, not only at its end', async () => {
    const { port, releaseStream } = await startCompressingHost()
    // The client decodes as bytes arrive; the handler holds the end back until the client has read the
    // whole first part. Without the flush, this would wait forever (the test's timeout).
    const decoded = await new Promise<string>((resolve, reject) => {
      const request = http.get(
        { host: '127.0.0.1', port, path: '/streamed', headers: { 'accept-encoding': 'gzip' } },
        (response) => {
          expect(response.headers['content-encoding']).toBe('gzip')
          let text = ''
          const gunzip = zlib.createGunzip()
          gunzip.on('data', (chunk: Buffer) => {
            text += chunk.toString()
            if (text.endsWith('</html>')) releaseStream()
          })
          gunzip.on('end', () => resolve(text))
          gunzip.on('error', reject)
          response.pipe(gunzip)
        },
      )
      request.on('error', reject)
    })
    expect(decoded).toBe(`${page}<p>late part</p>`)
  })

  it('still refuses an oversized body with a readable 413 to a client that accepts compression', async () => {
    const { port } = await startCompressingHost()
    const response = await fetch(`http://127.0.0.1:${port}/api/users`, {
      method: 'POST',
      body: 'x'.repeat(1_001),
      headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip, br' },
    })
    expect(response.status).toBe(413)
    expect((await response.json()).errors[0].code).toBe('payload_too_large')
  })
})

describe('pages that may come back from the back-forward cache', () => {
  const NO_STORE = 'private, no-cache, no-store, max-age=0, must-revalidate'

  it('lose no-store on the listed pages only, for GET and HEAD only', async () => {
    const host = createHost({
      handle: (_req, res) => {
        res.setHeader('cache-control', NO_STORE)
        res.setHeader('content-type', 'text/html')
        res.end('<p>page</p>')
      },
      checkDatabase: () => Promise.resolve(),
      maxBodyBytes: 1_000,
      maxUploadBytes: 5_000,
      restorablePages: RESTORABLE_PAGES,
      logger: createLogger({ level: 'silent', destination: { write: () => undefined } }),
    })
    hosts.push(host)
    const base = `http://127.0.0.1:${await host.listen(0, '127.0.0.1')}`
    const cacheControl = async (path: string, method = 'GET') =>
      (await fetch(`${base}${path}`, { method })).headers.get('cache-control')
    expect(RESTORABLE_PAGES).toEqual(['/sign-in', '/sign-up'])
    expect(await cacheControl('/sign-in')).toBe('private, no-cache, max-age=0, must-revalidate')
    expect(await cacheControl('/sign-up?next=%2Fdashboard')).toBe('private, no-cache, max-age=0, must-revalidate')
    expect(await cacheControl('/sign-in', 'HEAD')).toBe('private, no-cache, max-age=0, must-revalidate')
    // A sign-in form's post (a server action), the account's pages and the token-carrying links keep no-store.
    expect(await cacheControl('/sign-in', 'POST')).toBe(NO_STORE)
    expect(await cacheControl('/dashboard')).toBe(NO_STORE)
    expect(await cacheControl('/reset-password?token=abc')).toBe(NO_STORE)
    expect(await cacheControl('/sign-in/extra')).toBe(NO_STORE)
  })
})

describe("Next's built assets", () => {
  it('are sent as the brotli or gzip copy the build wrote, cached for a year; the rest goes on to Next', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-static-'))
    fs.mkdirSync(path.join(dir, 'chunks'))
    const script = `console.log(${JSON.stringify('the kit '.repeat(500))})`
    fs.writeFileSync(path.join(dir, 'chunks', 'app.js'), script)
    fs.writeFileSync(path.join(dir, 'chunks', 'app.js.br'), zlib.brotliCompressSync(script))
    fs.writeFileSync(path.join(dir, 'chunks', 'app.js.gz'), zlib.gzipSync(script))
    fs.writeFileSync(path.join(dir, 'chunks', 'uncopied.js'), script)
    fs.writeFileSync(path.join(dir, '.secret'), 'not for anyone')
    const host = createHost({
      handle: (req, res) => {
        res.statusCode = 404
        res.end(`next:${req.url}`)
      },
      checkDatabase: () => Promise.resolve(),
      maxBodyBytes: 1_000,
      maxUploadBytes: 5_000,
      staticAssets: { urlPath: '/_next/static', dir },
      logger: createLogger({ level: 'silent', destination: { write: () => undefined } }),
    })
    hosts.push(host)
    const port = await host.listen(0, '127.0.0.1')
    const get = (urlPath: string, acceptEncoding?: string) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const request = http.get(
          {
            host: '127.0.0.1',
            port,
            path: urlPath,
            headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {},
          },
          (response) => {
            const chunks: Buffer[] = []
            response.on('data', (chunk: Buffer) => chunks.push(chunk))
            response.on('end', () =>
              resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
            )
          },
        )
        request.on('error', reject)
      })

    const brotli = await get('/_next/static/chunks/app.js', 'gzip, deflate, br')
    expect(brotli.status).toBe(200)
    expect(brotli.headers['content-encoding']).toBe('br')
    expect(brotli.headers['content-type']).toMatch(/javascript/)
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(brotli.headers.vary).toMatch(/accept-encoding/i)
    expect(zlib.brotliDecompressSync(brotli.body).toString()).toBe(script)

    const gzip = await get('/_next/static/chunks/app.js', 'gzip')
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(zlib.gunzipSync(gzip.body).toString()).toBe(script)

    // A build without the copies (next build alone): compressed as it is sent, still cached for a year.
    const uncopied = await get('/_next/static/chunks/uncopied.js', 'br')
    expect(uncopied.headers['content-encoding']).toBe('br')
    expect(uncopied.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(zlib.brotliDecompressSync(uncopied.body).toString()).toBe(script)

    const plain = await get('/_next/static/chunks/app.js')
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body.toString()).toBe(script)

    // Not there, hidden, or outside the folder: Next answers (its 404), never a file from elsewhere.
    for (const outside of [
      '/_next/static/chunks/missing.js',
      '/_next/static/.secret',
      '/_next/static/../host.test.ts',
      '/_next/static/%2e%2e/%2e%2e/package.json',
    ]) {
      const answer = await get(outside, 'br')
      expect([404, 403, 400]).toContain(answer.status)
      expect(answer.body.toString()).not.toContain('not for anyone')
      expect(answer.body.toString()).not.toContain('"name"')
    }
  })
})
