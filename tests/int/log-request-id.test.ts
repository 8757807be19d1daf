/**
 * The host's request id and access lines over real HTTP: a well-formed `x-request-id` is kept and
 * echoed, anything else is replaced by a new UUID; every line written while the request is handled
 * carries the id (the shared context of src/log.ts), and the access line is JSON with the path but
 * not its query.
 */
import net from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createLogger } from '../../src/log'
import { createHost, type Host } from '../../src/server/host'
import { freePortIn } from '../support/ports'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

type Line = Record<string, unknown> & { msg?: string; requestId?: string }

const hostLines: string[] = []
const handlerLines: string[] = []
const parsed = (lines: string[]): Line[] => lines.map((line) => JSON.parse(line) as Line)
const accessLines = () => parsed(hostLines).filter((line) => line.msg === 'request')

let host: Host
let base = ''

beforeAll(async () => {
  // What the service's code writes while it handles a request: a logger of its own, the same shared context.
  const handlerLog = createLogger({
    level: 'info',
    destination: { write: (line: string) => void handlerLines.push(line) },
  })
  host = createHost({
    handle: async (req, res) => {
      handlerLog.info({ step: 'before' }, 'handling')
      await new Promise((resolve) => setTimeout(resolve, 5))
      handlerLog.info({ step: 'after' }, 'handled')
      res.setHeader('content-type', 'text/plain')
      res.end(`next:${String(req.headers['x-request-id'])}`)
    },
    checkDatabase: () => Promise.resolve(),
    maxBodyBytes: 1_000,
    maxUploadBytes: 1_000,
    logger: createLogger({ level: 'debug', destination: { write: (line: string) => void hostLines.push(line) } }),
  })
  const port = await host.listen(await freePortIn(4110, 4129), '127.0.0.1')
  base = `http://127.0.0.1:${port}`
})

afterAll(() => host?.close())

/** Wait for the access line of this request id (written when the response closes). */
const accessLineOf = async (requestId: string): Promise<Line> => {
  for (let tries = 0; tries < 100; tries++) {
    const line = accessLines().find((candidate) => candidate.requestId === requestId)
    if (line) return line
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`no access line for ${requestId}:\n${hostLines.join('')}`)
}

const send = async (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) => {
  const response = await fetch(`${base}${path}`, { ...init, headers })
  const body = await response.text()
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? '',
    body,
    headers: response.headers,
  }
}

describe('request id', () => {
  it('keeps and echoes a well-formed x-request-id, and hands it on to the handler', async () => {
    for (const id of ['abc', 'req-2024.01:7_X', 'a'.repeat(128)]) {
      const response = await send('/api/plans', { 'x-request-id': id })
      expect(response.requestId).toBe(id)
      expect(response.body).toBe(`next:${id}`)
    }
  })

  it.each([
    ['too long', 'a'.repeat(129)],
    ['a space', 'has space'],
    ['a slash', 'a/b'],
    ['markup', '<script>alert(1)</script>'],
    ['an encoded header injection', 'abc%0D%0ASet-Cookie:%20evil=1'],
    ['a quote', 'abc"def'],
  ])('replaces one with %s by a new UUID', async (_name, id) => {
    const response = await send('/api/plans', { 'x-request-id': id })
    expect(response.requestId).toMatch(UUID)
    expect(response.body).toBe(`next:${response.requestId}`)
    expect(response.headers.get('set-cookie')).toBeNull()
    expect(hostLines.join('')).not.toContain(id)
  })

  it('replaces two x-request-id headers (joined, they are no valid id)', async () => {
    const raw = await rawRequest(
      'GET /api/plans HTTP/1.1\r\nHost: x\r\nX-Request-Id: one\r\nX-Request-Id: two\r\nConnection: close\r\n\r\n',
    )
    const echoed = /^x-request-id: (.*)$/im.exec(raw)?.[1]?.trim()
    expect(echoed).toMatch(UUID)
  })

  it('never echoes a raw header injection', async () => {
    // A bare CR inside the value: Node refuses the request (400) or the id is replaced; it is never echoed.
    const raw = await rawRequest(
      'GET /api/plans HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc\rSet-Cookie: evil=1\r\nConnection: close\r\n\r\n',
    )
    expect(raw).toMatch(/^HTTP\/1\.1 (400|200)/)
    expect(raw).not.toMatch(/^set-cookie/im)
    expect(raw).not.toMatch(/^x-request-id: abc/im)
  })

  it('makes a UUID when there is none, a different one per request', async () => {
    const first = await send('/api/plans')
    const second = await send('/api/plans')
    expect(first.requestId).toMatch(UUID)
    expect(second.requestId).toMatch(UUID)
    expect(first.requestId).not.toBe(second.requestId)
  })
})

describe('log lines', () => {
  it("carry the request's id in the handler's lines, before and after an await", async () => {
    const { requestId } = await send('/api/plans', { 'x-request-id': 'handler-lines-1' })
    const mine = parsed(handlerLines).filter((line) => line.requestId === requestId)
    expect(mine.map((line) => line.step)).toEqual(['before', 'after'])
    // Nothing leaks into lines written outside a request.
    createLogger({ destination: { write: (line: string) => void handlerLines.push(line) } }).info('outside')
    expect(parsed(handlerLines).at(-1)).not.toHaveProperty('requestId')
  })

  it('write one JSON access line per request: method, path without its query, status, duration, request id; no header', async () => {
    const secretQuery = 'token=sign-in-token-0123456789abcdef&signature=0123456789abcdef0123456789abcdef'
    const { requestId } = await send(`/auth/callback?${secretQuery}`, {
      authorization: 'Bearer kit_secret_api_key_0123456789',
      cookie: 'payload-token=jwt.value.here',
    })
    const line = await accessLineOf(requestId)
    expect(line).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      path: '/auth/callback',
      status: 200,
      requestId,
    })
    expect(typeof line.durationMs).toBe('number')
    expect(line.durationMs as number).toBeGreaterThanOrEqual(0)
    expect(accessLines().filter((candidate) => candidate.requestId === requestId)).toHaveLength(1)
    const everything = hostLines.join('') + handlerLines.join('')
    for (const secret of [
      'sign-in-token-0123456789abcdef',
      '0123456789abcdef0123456789abcdef',
      'kit_secret_api_key_0123456789',
      'jwt.value.here',
    ]) {
      expect(everything).not.toContain(secret)
    }
  })

  it('log a refused body (413) with its status, and echo the id on it too', async () => {
    const response = await send(
      '/api/users',
      { 'x-request-id': 'too-big-1', 'content-type': 'application/json' },
      { method: 'POST', body: 'x'.repeat(2_000) },
    )
    expect(response.status).toBe(413)
    expect(response.requestId).toBe('too-big-1')
    expect(await accessLineOf('too-big-1')).toMatchObject({ method: 'POST', path: '/api/users', status: 413 })
  })

  it('put health checks at debug, not info', async () => {
    const health = await send('/healthz', { 'x-request-id': 'health-1' })
    const ready = await send('/readyz', { 'x-request-id': 'ready-1' })
    expect(health.requestId).toBe('health-1')
    expect(ready.requestId).toBe('ready-1')
    expect(await accessLineOf('health-1')).toMatchObject({ level: 'debug', path: '/healthz', status: 200 })
    expect(await accessLineOf('ready-1')).toMatchObject({ level: 'debug', path: '/readyz', status: 200 })
  })
})

const rawRequest = (text: string) =>
  new Promise<string>((resolve, reject) => {
    const { port } = new URL(base)
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text))
    let received = ''
    socket.on('data', (chunk) => (received += chunk.toString()))
    socket.on('end', () => resolve(received))
    socket.on('error', reject)
  })
