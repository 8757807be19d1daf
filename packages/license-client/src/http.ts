/**
 * A refusal of `activate` or `deactivate` by the service (`code` is its error code, e.g.
 * `activation_limit_reached`, `license_revoked`, `deactivation_limit`), or `unreachable` when no usable
 * answer came (network error, timeout, a body that is not the service's).
 */
export class LicenseClientError extends Error {
  readonly code: string
  /** The HTTP status, when the service answered. */
  readonly status: number | undefined
  /** Seconds to wait before trying again (`Retry-After`), when the service said so. */
  readonly retryAfter: number | undefined
  /** The rest of the service's error object (e.g. `{used, limit}` for `activation_limit_reached`). */
  readonly details: Record<string, unknown>

  constructor(
    code: string,
    message: string,
    options: { status?: number; retryAfter?: number; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause })
    this.name = 'LicenseClientError'
    this.code = code
    this.status = options.status
    this.retryAfter = options.retryAfter
    this.details = options.details ?? {}
  }
}

/** The most an answer of the service may weigh: a certificate is under 2 KiB, a key set a few hundred bytes per key. */
const MAX_ANSWER_BYTES = 64 * 1024

export type Answer = { status: number; headers: Headers; body: unknown }

/** Reads at most MAX_ANSWER_BYTES; JSON or null (a body that is not JSON, or too large, is null). */
const readJson = async (response: Response): Promise<unknown> => {
  if (!response.body) return null
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel()
      return null
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown
  } catch {
    return null
  }
}

/**
 * One request to the service with a deadline for the whole exchange (connect, headers and body): the
 * answer, or null when none came in time or the network failed.
 */
export const request = async (
  fetchImpl: typeof fetch,
  url: string,
  init: { method: 'GET' | 'POST'; body?: unknown },
  timeoutMs: number,
): Promise<Answer | null> => {
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const response = await fetchImpl(url, {
      method: init.method,
      headers:
        init.body === undefined
          ? { accept: 'application/json' }
          : { accept: 'application/json', 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal,
      redirect: 'error',
      cache: 'no-store',
    })
    const body = await readJson(response)
    return { status: response.status, headers: response.headers, body }
  } catch {
    return null
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export { isRecord }

/** The service's error (`{errors: [{code, message, ...details}]}`) as a LicenseClientError. */
export const refusal = (answer: Answer): LicenseClientError => {
  const first = isRecord(answer.body) && Array.isArray(answer.body.errors) ? (answer.body.errors[0] as unknown) : null
  const retry = Number(answer.headers.get('retry-after'))
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : undefined
  if (!isRecord(first) || typeof first.code !== 'string')
    return new LicenseClientError(
      'unreachable',
      `The service answered ${answer.status} without an error the client knows.`,
      {
        status: answer.status,
        retryAfter,
      },
    )
  const { code, message, ...details } = first
  return new LicenseClientError(code, typeof message === 'string' ? message : code, {
    status: answer.status,
    retryAfter,
    details,
  })
}
