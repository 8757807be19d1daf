import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { inDeliveryContext } from './queries'

/**
 * A real HTTP server in front of Payload's request handling, for callers that need an address
 * (the processor stand-in delivering webhooks). The config is imported on the first request, so
 * this can start before the environment the config reads is complete. Each request runs in
 * `inDeliveryContext`, so recordDeliveries (./queries.ts) counts its statements and no one else's.
 */
export const startEndpointServer = async (): Promise<{ url: string; close: () => Promise<void> }> => {
  // Node ignores what a request listener returns; handle answers 500 itself on any error, so nothing awaits it.
  const server = http.createServer((incoming, outgoing) => void inDeliveryContext(() => handle(incoming, outgoing)))
  const handle = async (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => {
    try {
      const chunks: Buffer[] = []
      for await (const chunk of incoming) chunks.push(chunk as Buffer)
      const body = Buffer.concat(chunks)
      const headers = new Headers()
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === 'string') headers.set(name, value)
        else if (Array.isArray(value)) for (const item of value) headers.append(name, item)
      }
      const request = new Request(`http://localhost:3000${incoming.url}`, {
        method: incoming.method,
        headers,
        body: incoming.method === 'GET' || incoming.method === 'HEAD' ? undefined : body,
      })
      const { default: config } = await import('../../payload.config')
      const { handleEndpoints } = await import('payload')
      const response = await handleEndpoints({ config, request })
      outgoing.writeHead(response.status, Object.fromEntries(response.headers.entries()))
      outgoing.end(Buffer.from(await response.arrayBuffer()))
    } catch (error) {
      outgoing.writeHead(500, { 'content-type': 'text/plain' })
      outgoing.end(String(error))
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
