import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { Webhook } from 'standardwebhooks'

import type { UntypedJson } from './net'

/** What a receiver path does with a delivery. */
export type Behaviour =
  | { kind: 'ok' }
  /** Fail (500) `times` times, then answer 200. */
  | { kind: 'fail'; times: number }
  /** Never answer (until the receiver closes). */
  | { kind: 'hang' }
  /** 302 to another path of this receiver. */
  | { kind: 'redirect'; to: string }

type Received = {
  path: string
  id: string
  timestamp: string
  signature: string
  body: string
  /** The event as parsed by `standardwebhooks` with the path's secret, or null when it did not verify. */
  verified: { type: string; timestamp: string; data: Record<string, UntypedJson> } | null
  /** Which of the path's secrets verified it. */
  verifiedWith: string[]
  status: number | null
}

/**
 * A seller's receiver over real HTTP: each path has a behaviour and the secrets it verifies with (as a
 * receiver would, with the `standardwebhooks` library); every request is recorded with what verified.
 */
export const startWebhookReceiver = async () => {
  const behaviours = new Map<string, Behaviour>()
  const secrets = new Map<string, string[]>()
  const failures = new Map<string, number>()
  const received: Received[] = []
  const hanging = new Set<http.ServerResponse>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!
      const body = Buffer.concat(chunks).toString('utf8')
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      }
      const verifiedWith: string[] = []
      let verified: Received['verified'] = null
      for (const secret of secrets.get(path) ?? []) {
        try {
          verified = new Webhook(secret).verify(body, headers) as Received['verified']
          verifiedWith.push(secret)
        } catch {
          // not this secret
        }
      }
      const record: Received = {
        path,
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        verified,
        verifiedWith,
        status: null,
      }
      received.push(record)
      const behaviour = behaviours.get(path) ?? { kind: 'ok' }
      const answer = (status: number, text: string, extra: Record<string, string> = {}) => {
        record.status = status
        res.writeHead(status, { 'content-type': 'text/plain', ...extra }).end(text)
      }
      if (behaviour.kind === 'hang') {
        hanging.add(res)
        return
      }
      if (behaviour.kind === 'redirect') return answer(302, 'moved', { location: behaviour.to })
      if (behaviour.kind === 'fail') {
        const failed = failures.get(path) ?? 0
        if (failed < behaviour.times) {
          failures.set(path, failed + 1)
          return answer(500, `receiver down (${failed + 1})`)
        }
      }
      if (!verified) return answer(400, 'signature did not verify')
      answer(200, 'ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    received,
    /** Set what `path` does and which secrets it verifies with. */
    route(path: string, behaviour: Behaviour, pathSecrets: string[] = []) {
      behaviours.set(path, behaviour)
      secrets.set(path, pathSecrets)
      failures.delete(path)
    },
    at: (path: string) => received.filter((record) => record.path === path),
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>
