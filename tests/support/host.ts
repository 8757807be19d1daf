import http from 'node:http'
import type { BlockList } from 'node:net'

import { afterAll } from 'vitest'

import { staffSessionCheck } from '../../src/http/staff-session'
import { createLogger } from '../../src/log'
import { createHost, type Host, type HostOptions } from '../../src/server/host'

/** Real sockets for tests: an agent that keeps one connection, so every request shares one socket. */
export const oneSocket = () => new http.Agent({ keepAlive: true, maxSockets: 1 })

export type Sent = { status: number; headers: http.IncomingHttpHeaders; body: string }

/**
 * One HTTP request over a real socket. `chunks` are written one by one without a Content-Length
 * (chunked transfer encoding); the answer is whatever the server sends, even while the body is
 * still being written (a 413), and write errors after that answer are ignored.
 */
export const send = (
  base: string,
  path: string,
  options: {
    method?: string
    headers?: http.OutgoingHttpHeaders
    body?: Buffer | string
    chunks?: Buffer[]
    agent?: http.Agent
  } = {},
): Promise<Sent> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, base)
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: options.agent,
      },
      (response) => {
        const parts: Buffer[] = []
        response.on('data', (part: Buffer) => parts.push(part))
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(parts).toString(),
          }),
        )
        response.on('error', reject)
      },
    )
    request.on('error', reject)
    if (options.chunks) {
      const chunks = [...options.chunks]
      const writeNext = () => {
        const chunk = chunks.shift()
        if (!chunk) return void request.end()
        if (request.destroyed) return
        if (request.write(chunk)) setImmediate(writeNext)
        else request.once('drain', writeNext)
      }
      writeNext()
    } else {
      request.end(options.body)
    }
  })

/**
 * The express host in front of Payload's own request handling (what Next does in production):
 * limits, client address and all, with the body read from the socket as Next reads it.
 */
export const startPayloadHost = async (
  options: { trustedProxies?: BlockList; maxBodyBytes?: number; maxUploadBytes?: number } = {},
): Promise<{ host: Host; base: string; logs: string[] }> => {
  const { default: configPromise } = await import('../../payload.config')
  const { handleEndpoints } = await import('payload')
  const config = await configPromise
  const logs: string[] = []
  const handle: HostOptions['handle'] = async (incoming, outgoing) => {
    const chunks: Buffer[] = []
    try {
      for await (const chunk of incoming) chunks.push(chunk as Buffer)
    } catch {
      return
    }
    const headers = new Headers()
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === 'string') headers.set(name, value)
      else if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    }
    const method = incoming.method ?? 'GET'
    const request = new Request(`http://localhost:3000${incoming.url}`, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
    })
    const response = await handleEndpoints({ config: configPromise, request })
    outgoing.writeHead(response.status, Object.fromEntries(response.headers.entries()))
    outgoing.end(Buffer.from(await response.arrayBuffer()))
  }
  const host = createHost({
    handle,
    checkDatabase: () => Promise.resolve(),
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    maxUploadBytes: options.maxUploadBytes ?? 8 * 1024 * 1024,
    uploads: {
      paths: config.collections
        .filter((collection) => collection.upload)
        .map((collection) => `${config.routes.api}/${collection.slug}`),
      isStaff: staffSessionCheck(config.secret, `${config.cookiePrefix}-token`),
    },
    trustedProxies: options.trustedProxies,
    logger: createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(line) } }),
  })
  afterAll(() => host.close())
  const port = await host.listen(0, '127.0.0.1')
  return { host, base: `http://127.0.0.1:${port}`, logs }
}
