import { controlUrl, serverUrl } from './settings'
import type { PayAnswer, PayRequest } from './standins'

export type Call = {
  method?: string
  /** `JWT <token>` or `Bearer <api key>`. */
  authorization?: string
  json?: unknown
  form?: FormData
  /** A client address for the per-address rate limits (the bench server trusts 127.0.0.1 as a proxy). */
  address?: string
  /** Statuses that count as success; default any 2xx. */
  expect?: number[]
}

/** One request to the server; anything but an expected status throws with the answer's body. */
export const api = async <T>(path: string, call: Call = {}): Promise<T> => {
  const headers: Record<string, string> = { origin: serverUrl }
  if (call.authorization) headers.authorization = call.authorization
  if (call.address) headers['x-forwarded-for'] = call.address
  if (call.json !== undefined) headers['content-type'] = 'application/json'
  const method = call.method ?? (call.json !== undefined || call.form ? 'POST' : 'GET')
  const response = await fetch(`${serverUrl}${path}`, {
    method,
    headers,
    body: call.form ?? (call.json !== undefined ? JSON.stringify(call.json) : undefined),
  })
  const text = await response.text()
  const ok = call.expect ? call.expect.includes(response.status) : response.ok
  if (!ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`)
  return (text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T
}

/** The n-th client address of the benchmarking range 198.18.0.0/15 (RFC 2544). */
export const clientAddress = (n: number): string => `198.18.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`

/** Runs `task` over `items`, `width` at a time, keeping the order of the results. */
export const inParallel = async <T, R>(
  items: T[],
  width: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> => {
  const results = new Array<R>(items.length)
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await task(items[index] as T, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane))
  return results
}

/** Pays checkout sessions on the processor stand-in, through the stand-ins process's control server. */
export const payOnStandIn = async (request: PayRequest): Promise<PayAnswer> => {
  const response = await fetch(`${controlUrl}/pay`, { method: 'POST', body: JSON.stringify(request) })
  if (!response.ok) throw new Error(`the stand-in could not pay: ${await response.text()}`)
  return (await response.json()) as PayAnswer
}
