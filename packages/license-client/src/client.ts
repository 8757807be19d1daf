import { compactVerify, decodeProtectedHeader, importJWK, type KeyLike } from 'jose'

import { type Answer, isRecord, LicenseClientError, refusal, request } from './http.js'
import type {
  Activation,
  CertificateClaims,
  CheckResult,
  LicenseClientOptions,
  LicenseStorage,
  PublicJwk,
  PublicJwkSet,
  ServiceCode,
  UpdateDecision,
  VerifyResult,
} from './types.js'
import { decideUpdate } from './update-window.js'

const HOUR_MS = 60 * 60 * 1000
const DAY_MS = 24 * HOUR_MS
/** An unknown `kid` fetches the key set again at most this often, whatever the kid. */
export const KEY_REFETCH_INTERVAL_MS = 5 * 60 * 1000
/** How far behind the latest time seen the clock may be before a check answers CLOCK_ROLLBACK. */
export const CLOCK_ROLLBACK_TOLERANCE_MS = HOUR_MS
const DEFAULT_GRACE_DAYS = 7
const DEFAULT_TIMEOUT_MS = 10_000

/** What the service's fingerprint rule accepts: 1 to 200 printable ASCII characters, no spaces at the ends. */
const FINGERPRINT = /^[\x21-\x7e](?:[\x20-\x7e]{0,198}[\x21-\x7e])?$/
const SERVICE_CODES: ReadonlySet<string> = new Set<ServiceCode>([
  'SUSPENDED',
  'REVOKED',
  'EXPIRED',
  'NOT_FOUND',
  'NO_ACTIVATION',
])

/** The license and installation this client speaks for, and the newest certificate the service gave it. */
type LicenseState = { license: string; fingerprint: string; activationId?: number; certificate?: string }
type KeyCache = { keys: PublicJwk[]; fetchedAt: number }

/** How a platform fills in what the options leave out (src/index.ts for Node, src/browser.ts for browsers). */
export type PlatformDefaults = {
  storage: () => LicenseStorage
  /** The default fingerprint, from the install id the client keeps. */
  fingerprint: (installId: string) => string | Promise<string>
}

export type LicenseClient = {
  /** Activates this installation, stores the activation, then checks online for a certificate. */
  activate: (key: string, options?: { label?: string }) => Promise<{ activation: Activation; check: CheckResult }>
  /**
   * Online first, then the stored certificate. Never throws for a license answer. With `key`, checks
   * that license from now on (a plan that limits activations answers NO_ACTIVATION until `activate`).
   */
  check: (options?: { key?: string }) => Promise<CheckResult>
  /** Ends this installation's activation on the service and forgets the license here. */
  deactivate: () => Promise<void>
  /** Signature (EdDSA, a trusted key), issuer, and the stored license and installation; no other request. */
  verifyCertificate: (jws: string) => Promise<VerifyResult>
  /** Whether the stored certificate's update window covers a release. */
  canUpdateTo: (release: { version: string; publishedAt: string | Date }) => Promise<UpdateDecision>
}

const normalizeKey = (key: string) => key.trim().toUpperCase()

const originOf = (serviceUrl: string): string => {
  let url: URL
  try {
    url = new URL(serviceUrl)
  } catch {
    throw new TypeError(`serviceUrl must be an absolute URL, got ${JSON.stringify(serviceUrl)}`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('serviceUrl must be http(s)')
  return url.origin
}

const keysOf = (set: PublicJwkSet | PublicJwk[]): PublicJwk[] => (Array.isArray(set) ? set : set.keys)

/** Ed25519 public keys with a kid, from whatever the set holds (anything else is ignored). */
const usableKeys = (keys: unknown): PublicJwk[] =>
  Array.isArray(keys)
    ? keys.filter(
        (key): key is PublicJwk =>
          isRecord(key) &&
          key.kty === 'OKP' &&
          key.crv === 'Ed25519' &&
          typeof key.x === 'string' &&
          typeof key.kid === 'string' &&
          (key.alg === undefined || key.alg === 'EdDSA'),
      )
    : []

const isClaims = (value: unknown): value is CertificateClaims =>
  isRecord(value) &&
  typeof value.license === 'string' &&
  (value.plan === null || typeof value.plan === 'string') &&
  Array.isArray(value.features) &&
  value.features.every((feature) => typeof feature === 'string') &&
  (value.fpr === undefined || typeof value.fpr === 'string') &&
  (value.upd === undefined || (isRecord(value.upd) && typeof value.upd.policy === 'string')) &&
  typeof value.iss === 'string' &&
  Number.isFinite(value.iat) &&
  Number.isFinite(value.exp)

const parse = <T>(text: string | null | undefined, valid: (value: unknown) => value is T): T | null => {
  if (typeof text !== 'string') return null
  try {
    const value = JSON.parse(text) as unknown
    return valid(value) ? value : null
  } catch {
    return null
  }
}

const isState = (value: unknown): value is LicenseState =>
  isRecord(value) &&
  typeof value.license === 'string' &&
  typeof value.fingerprint === 'string' &&
  (value.activationId === undefined || Number.isInteger(value.activationId)) &&
  (value.certificate === undefined || typeof value.certificate === 'string')

const isKeyCache = (value: unknown): value is KeyCache =>
  isRecord(value) && Array.isArray(value.keys) && Number.isFinite(value.fetchedAt)

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
const isString = (value: unknown): value is string => typeof value === 'string'

const randomId = () => {
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

export const createClient = (options: LicenseClientOptions, platform: PlatformDefaults): LicenseClient => {
  const origin = originOf(options.serviceUrl)
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis)
  const now = options.now ?? Date.now
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const graceMs = (options.graceDays ?? DEFAULT_GRACE_DAYS) * DAY_MS
  if (!(graceMs >= 0)) throw new TypeError('graceDays must be 0 or more')
  const pinned = options.publicKeys ? usableKeys(keysOf(options.publicKeys)) : null
  if (pinned && pinned.length === 0) throw new TypeError('publicKeys holds no Ed25519 key with a kid')
  let storage: LicenseStorage | undefined = options.storage

  const store = () => (storage ??= platform.storage())
  // Every name starts with the service's origin, so one storage can serve several services.
  const name = (suffix: string) => `license-client ${origin} ${suffix}`
  const read = async <T>(suffix: string, valid: (value: unknown) => value is T): Promise<T | null> =>
    parse(await store().get(name(suffix)), valid)
  const write = async (suffix: string, value: unknown) => store().set(name(suffix), JSON.stringify(value))

  const currentState = async (): Promise<LicenseState | null> => {
    const license = await read('current', isString)
    return license === null ? null : read(`license ${license}`, isState)
  }
  const saveState = async (state: LicenseState) => {
    await write(`license ${state.license}`, state)
    await write('current', state.license)
  }

  /** The latest time seen: the clock at each check, and each certificate's `iat`. */
  const latestSeen = async () => (await read('clock', isNumber)) ?? 0
  const see = async (time: number) => {
    if (time > (await latestSeen())) await write('clock', time)
  }

  const fingerprint = async (): Promise<string> => {
    let value: string
    if (options.fingerprint === undefined) {
      let installId = await read('install', isString)
      if (installId === null) {
        installId = randomId()
        await write('install', installId)
      }
      value = await platform.fingerprint(installId)
    } else value = typeof options.fingerprint === 'string' ? options.fingerprint : await options.fingerprint()
    if (typeof value !== 'string' || !FINGERPRINT.test(value))
      throw new TypeError('fingerprint must be 1 to 200 printable ASCII characters without spaces at the ends')
    return value
  }

  // Keys imported once per client; the set itself lives in the storage (an app may start offline).
  const imported = new Map<string, Promise<KeyLike | Uint8Array>>()
  let lastFetchInProcess = -Infinity
  const importKey = (jwk: PublicJwk) => {
    const id = `${jwk.kid}:${jwk.x}`
    let key = imported.get(id)
    if (!key) {
      key = importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }, 'EdDSA')
      imported.set(id, key)
    }
    return key
  }

  /** The key set from the service, stored; null when it cannot be had. */
  const fetchKeys = async (): Promise<PublicJwk[] | null> => {
    const fetchedAt = now()
    lastFetchInProcess = fetchedAt
    await write('keys', { keys: (await read('keys', isKeyCache))?.keys ?? [], fetchedAt })
    const answer = await request(fetchImpl, `${origin}/api/licenses/public-key`, { method: 'GET' }, timeoutMs)
    if (!answer || answer.status !== 200 || !isRecord(answer.body)) return null
    const keys = usableKeys(answer.body.keys)
    if (keys.length === 0) return null
    await write('keys', { keys, fetchedAt })
    return keys
  }

  /** The key for `kid`: pinned keys only, or the stored set, fetched again at most once per 5 minutes. */
  const keyFor = async (kid: string): Promise<PublicJwk | null> => {
    if (pinned) return pinned.find((key) => key.kid === kid) ?? null
    const cached = await read('keys', isKeyCache)
    const known = usableKeys(cached?.keys).find((key) => key.kid === kid)
    if (known) return known
    const last = Math.max(cached?.fetchedAt ?? -Infinity, lastFetchInProcess)
    const time = now()
    // A last fetch in the future means the clock went back: the interval is counted from now instead.
    if (time - last < KEY_REFETCH_INTERVAL_MS && last <= time) return null
    return (await fetchKeys())?.find((key) => key.kid === kid) ?? null
  }

  const notGenuine: VerifyResult = { genuine: false, code: 'NOT_GENUINE' }

  /**
   * The certificate's signature, algorithm and issuer, and with a stored license, its binding: that
   * license, and this installation's fingerprint as it is now (not as stored: the storage may have been
   * copied from another machine).
   */
  const verify = async (jws: string, state: LicenseState | null): Promise<VerifyResult> => {
    if (typeof jws !== 'string' || jws.length > 16_384) return notGenuine
    let kid: unknown
    try {
      const header = decodeProtectedHeader(jws)
      if (header.alg !== 'EdDSA') return notGenuine
      kid = header.kid
    } catch {
      return notGenuine
    }
    if (typeof kid !== 'string') return notGenuine
    const jwk = await keyFor(kid)
    if (!jwk) return notGenuine
    let claims: unknown
    try {
      const { payload } = await compactVerify(jws, await importKey(jwk), { algorithms: ['EdDSA'] })
      claims = JSON.parse(new TextDecoder().decode(payload))
    } catch {
      return notGenuine
    }
    if (!isClaims(claims) || claims.iss.replace(/\/+$/, '') !== origin) return notGenuine
    if (state && (claims.license !== state.license || claims.fpr !== (await fingerprint()))) return notGenuine
    return { genuine: true, code: now() < claims.exp * 1000 ? 'VALID' : 'EXPIRED', claims }
  }

  /** What a genuine certificate says at `time`: valid until exp, grace for graceDays after, then expired. */
  const classify = (claims: CertificateClaims, time: number, source: CheckResult['source']): CheckResult => {
    const exp = claims.exp * 1000
    if (time < exp) return { status: 'valid', code: 'VALID', claims, source }
    if (time < exp + graceMs) return { status: 'grace', code: 'GRACE', claims, source }
    return { status: 'invalid', code: 'EXPIRED', claims, source }
  }

  /** The validation answer, or null when the service gave none the client can use. */
  const validateOnline = async (
    state: LicenseState,
  ): Promise<{ valid: true; certificate: string } | { valid: false; code: ServiceCode } | null> => {
    const answer = await request(
      fetchImpl,
      `${origin}/api/licenses/validate`,
      { method: 'POST', body: { key: state.license, fingerprint: state.fingerprint } },
      timeoutMs,
    )
    if (!answer || answer.status !== 200 || !isRecord(answer.body)) return null
    const { valid, code, certificate } = answer.body
    if (valid === true && code === 'VALID' && typeof certificate === 'string') return { valid: true, certificate }
    if (valid === false && typeof code === 'string' && SERVICE_CODES.has(code))
      return { valid: false, code: code as ServiceCode }
    return null
  }

  const post = async (path: string, body: unknown): Promise<Answer> => {
    const answer = await request(fetchImpl, `${origin}/api/licenses/${path}`, { method: 'POST', body }, timeoutMs)
    if (!answer) throw new LicenseClientError('unreachable', `The license service at ${origin} could not be reached.`)
    return answer
  }

  const check: LicenseClient['check'] = async (checkOptions = {}) => {
    const time = now()
    let state = await currentState()
    if (checkOptions.key !== undefined) {
      const license = normalizeKey(checkOptions.key)
      if (!state || state.license !== license) {
        state = (await read(`license ${license}`, isState)) ?? { license, fingerprint: await fingerprint() }
        await saveState(state)
      }
    }
    if (!state) return { status: 'invalid', code: 'NO_ACTIVATION', source: 'stored' }
    // The service decides for the installation this is now: a storage copied from another machine
    // validates with this machine's fingerprint (and its stored certificate no longer verifies).
    state = { ...state, fingerprint: await fingerprint() }
    if (time < (await latestSeen()) - CLOCK_ROLLBACK_TOLERANCE_MS)
      return { status: 'invalid', code: 'CLOCK_ROLLBACK', source: 'stored' }

    const online = await validateOnline(state)
    if (online?.valid) {
      const verified = await verify(online.certificate, state)
      if (!verified.genuine || !verified.claims) return { status: 'invalid', code: 'NOT_GENUINE', source: 'online' }
      await saveState({ ...state, certificate: online.certificate })
      await see(Math.max(time, verified.claims.iat * 1000))
      return classify(verified.claims, time, 'online')
    }
    await see(time)
    if (online) {
      // Revoked, expired, suspended...: the stored certificate must not keep the app going offline.
      const { certificate: _dropped, ...kept } = state
      await saveState(kept)
      return { status: 'invalid', code: online.code, source: 'online' }
    }
    if (!state.certificate) return { status: 'invalid', code: 'NO_CERTIFICATE', source: 'stored' }
    const verified = await verify(state.certificate, state)
    if (!verified.genuine || !verified.claims) return { status: 'invalid', code: 'NOT_GENUINE', source: 'stored' }
    return classify(verified.claims, time, 'stored')
  }

  return {
    activate: async (key, activateOptions = {}) => {
      if (typeof key !== 'string' || key.trim() === '') throw new TypeError('a license key is required')
      const license = normalizeKey(key)
      const state: LicenseState = { license, fingerprint: await fingerprint() }
      const answer = await post('activate', {
        key: license,
        fingerprint: state.fingerprint,
        ...(activateOptions.label ? { label: activateOptions.label } : {}),
      })
      if (
        (answer.status !== 200 && answer.status !== 201) ||
        !isRecord(answer.body) ||
        !Number.isInteger(answer.body.id)
      )
        throw refusal(answer)
      const activation = answer.body as Activation
      const previous = await read(`license ${license}`, isState)
      await saveState({
        ...state,
        activationId: activation.id,
        // A certificate this installation already holds for the key stays until the check replaces it.
        ...(previous?.fingerprint === state.fingerprint && previous.certificate
          ? { certificate: previous.certificate }
          : {}),
      })
      return { activation, check: await check() }
    },

    check,

    deactivate: async () => {
      const state = await currentState()
      if (!state) return
      if (state.activationId !== undefined) {
        const answer = await post('deactivate', { key: state.license, activationId: state.activationId })
        const gone = answer.status === 404 && refusal(answer).code === 'activation_not_found' // ended by support or the owner
        if (answer.status !== 204 && !gone) throw refusal(answer)
      }
      await store().delete(name(`license ${state.license}`))
      await store().delete(name('current'))
    },

    verifyCertificate: async (jws) => verify(jws, await currentState()),

    canUpdateTo: async (release) => {
      const state = await currentState()
      if (!state?.certificate) return { allowed: false, reason: 'NO_CERTIFICATE' }
      const verified = await verify(state.certificate, state)
      // An expired certificate still tells the window it was issued with; a forged one tells nothing.
      if (!verified.genuine || !verified.claims) return { allowed: false, reason: 'NOT_GENUINE' }
      return decideUpdate(verified.claims.upd, release)
    },
  }
}
