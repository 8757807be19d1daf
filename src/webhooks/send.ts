import http from 'node:http'
import https from 'node:https'
import { performance } from 'node:perf_hooks'

import { checkWebhookUrl, safeLookup, WEBHOOK_ADDRESS_REFUSED, WEBHOOK_URL_REASONS } from './address'

/**
 * The result of one delivery attempt. ok only for a 2xx answer. `status` is the receiver's, null when none
 * came; `excerpt` the start of its body (up to 1,000 characters, null when empty); `message` one sentence
 * on what went wrong (null when ok), never a secret or a header value.
 */
export type SendOutcome = {
  ok: boolean
  status: number | null
  durationMs: number
  excerpt: string | null
  error: null | 'timeout' | 'redirect' | 'address_refused' | 'dns' | 'connection' | 'tls' | 'status' | 'secret'
  message: string | null
}

const WEBHOOK_USER_AGENT = 'starter-kit-webhooks/1'

/** The most of a response body read for the excerpt; the rest is never read. */
const EXCERPT_BYTES = 4096
const EXCERPT_CHARS = 1000

/** Headers set here, whatever the caller passes (framing and identity are not the caller's to change). */
const OWN_HEADERS = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'host',
  'connection',
  'transfer-encoding',
  'expect',
])

/** getaddrinfo's failures, as Node names them. */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA'])

const isTlsCode = (code: string) =>
  code.startsWith('ERR_TLS_') ||
  code.startsWith('ERR_SSL_') ||
  code === 'EPROTO' ||
  /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME_MISMATCH/.test(code)

type Failure = Pick<SendOutcome, 'error' | 'message'>

/** What a connection error before any response means for the delivery. */
const connectionFailure = (error: NodeJS.ErrnoException): Failure => {
  const code = typeof error.code === 'string' ? error.code : ''
  if (code === WEBHOOK_ADDRESS_REFUSED) return { error: 'address_refused', message: error.message }
  if (DNS_CODES.has(code)) return { error: 'dns', message: WEBHOOK_URL_REASONS.unresolvable }
  if (isTlsCode(code)) return { error: 'tls', message: `The TLS connection to the receiver failed (${code}).` }
  if (code === 'ECONNREFUSED') return { error: 'connection', message: 'The receiver refused the connection.' }
  return {
    error: 'connection',
    message: code ? `The connection to the receiver failed (${code}).` : 'The connection to the receiver failed.',
  }
}

/** What an answer's status means for the delivery. */
const statusResult = (status: number): Failure & { ok: boolean } => {
  if (status >= 200 && status < 300) return { ok: true, error: null, message: null }
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      error: 'redirect',
      message: `The receiver answered with a redirect (HTTP ${status}), and redirects are not followed.`,
    }
  }
  return { ok: false, error: 'status', message: `The receiver answered with HTTP ${status}.` }
}

/** The first 1,000 characters of what was read of the body, as UTF-8 (a surrogate pair is never cut in half). */
const excerptOf = (chunks: Buffer[]): string | null => {
  const bytes = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES)
  let text = new TextDecoder('utf-8').decode(bytes).slice(0, EXCERPT_CHARS)
  if (/[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, -1)
  return text === '' ? null : text
}

/** The caller's headers without those this module sets. */
const outgoingHeaders = (headers: Record<string, string>, body: string): Record<string, string | number> => {
  const outgoing: Record<string, string | number> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!OWN_HEADERS.has(name.toLowerCase())) outgoing[name] = value
  }
  outgoing['content-type'] = 'application/json'
  outgoing['user-agent'] = WEBHOOK_USER_AGENT
  outgoing['content-length'] = Buffer.byteLength(body)
  return outgoing
}

/**
 * One delivery attempt: POST `body` to `url` with `headers` (the signature's among them), as JSON. The URL is
 * checked again first (`checkWebhookUrl`: DNS may have changed since it was saved), and the connection
 * resolves its host through `safeLookup`, so it only reaches a checked address. Everything (the check, the
 * connection, TLS, sending, the response head and the excerpt) shares one `timeoutMs` budget; when it runs
 * out before the response head the attempt is a timeout and the socket is destroyed. Once the head has
 * come the status decides, and the excerpt is whatever was read by then. Redirects are not followed. At
 * most 4 KiB of the body is read, then the connection is closed. Never throws.
 */
export const postWebhook = (
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendOutcome> =>
  new Promise<SendOutcome>((resolve) => {
    const started = performance.now()
    let request: http.ClientRequest | null = null
    let response: http.IncomingMessage | null = null
    let status: number | null = null
    let checked = false
    let done = false
    const chunks: Buffer[] = []
    let received = 0

    const finish = (result: Failure & { ok: boolean }) => {
      if (done) return
      done = true
      clearTimeout(timer)
      response?.destroy()
      request?.destroy()
      resolve({ ...result, status, durationMs: Math.round(performance.now() - started), excerpt: excerptOf(chunks) })
    }
    /** The outcome once the response head has come: its status decides. */
    const answered = () => {
      if (status !== null) finish(statusResult(status))
    }

    const timer = setTimeout(() => {
      if (status !== null) return answered()
      const message = checked
        ? `The receiver did not answer within ${options.timeoutMs} ms.`
        : `The host name could not be resolved within ${options.timeoutMs} ms.`
      finish({ ok: false, error: 'timeout', message })
    }, options.timeoutMs)

    const send = (target: URL) => {
      const client = target.protocol === 'https:' ? https : http
      request = client.request({
        method: 'POST',
        protocol: target.protocol,
        // An IPv6 literal without its brackets; Node puts them back in the Host header.
        hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: target.port ? Number(target.port) : undefined,
        path: `${target.pathname}${target.search}`,
        headers: outgoingHeaders(headers, body),
        // A connection of its own: a pooled socket would skip the lookup.
        agent: false,
        lookup: safeLookup({ allowPrivate: options.allowPrivate }),
      })
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (status !== null) return answered()
        finish({ ok: false, ...connectionFailure(error) })
      })
      request.on('response', (incoming) => {
        response = incoming
        status = incoming.statusCode ?? null
        incoming.on('data', (chunk: Buffer) => {
          if (received >= EXCERPT_BYTES) return
          chunks.push(chunk)
          received += chunk.length
          if (received >= EXCERPT_BYTES) answered()
        })
        incoming.on('end', answered)
        incoming.on('error', answered)
        incoming.on('close', answered)
      })
      request.end(body)
    }

    checkWebhookUrl(url, { allowPrivate: options.allowPrivate })
      .then((check) => {
        if (done) return
        checked = true
        if (!check.ok) {
          const unresolvable = check.reason === WEBHOOK_URL_REASONS.unresolvable
          return finish({ ok: false, error: unresolvable ? 'dns' : 'address_refused', message: check.reason })
        }
        try {
          send(check.url)
        } catch {
          // http.request throws on a header name or value it cannot send.
          finish({
            ok: false,
            error: 'connection',
            message: 'The request could not be sent: a header name or value is not valid in HTTP.',
          })
        }
      })
      .catch(() => finish({ ok: false, error: 'connection', message: 'The request could not be sent.' }))
  })
