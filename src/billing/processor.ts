import Stripe from 'stripe'

/** The processor API version this code is written against; objects are read in its shape. */
const PROCESSOR_API_VERSION = '2026-10-28.endive' as const

export type KeyMode = 'test' | 'live'

/** sk_test_/rk_test_/pk_test_ keys are test mode, *_live_ keys live mode; anything else is not a key. */
export const keyMode = (key: string): KeyMode | null => {
  const match = /^(?:sk|rk|pk)_(test|live)_/.exec(key)
  return match ? (match[1] as KeyMode) : null
}

export type ProcessorOptions = {
  secretKey: string
  /** Another base URL for the API (the local stand-in, a staging double); the real one otherwise. */
  apiUrl?: string | null
  /** Per-request timeout; the processor answering slowly must not hold a customer's request. */
  timeoutMs?: number
}

/** The one processor client: pinned API version, no automatic retries (callers decide). */
export const createProcessorClient = (options: ProcessorOptions): Stripe => {
  const base = options.apiUrl ? new URL(options.apiUrl) : null
  return new Stripe(options.secretKey, {
    apiVersion: PROCESSOR_API_VERSION,
    maxNetworkRetries: 1,
    timeout: options.timeoutMs ?? 10_000,
    appInfo: { name: 'starter-kit-licensing' },
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
        }
      : {}),
  })
}

/** The id of an expandable field, whether it came as an id or as the object. */
export const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id
