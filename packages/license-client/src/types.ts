/** A public key as the service publishes it (`GET /api/licenses/public-key`): an Ed25519 JWK with its `kid`. */
export type PublicJwk = {
  kty: string
  crv?: string
  x?: string
  kid?: string
  alg?: string
  use?: string
}

/** A JWK Set, `{keys: [...]}`, as the service answers it. */
export type PublicJwkSet = { keys: PublicJwk[] }

/**
 * Where the client keeps what it learns: the activation, the newest certificate, the key set and the
 * latest time it has seen. Each value is a string (JSON); any method may return a promise.
 */
export type LicenseStorage = {
  get: (name: string) => string | null | undefined | Promise<string | null | undefined>
  set: (name: string, value: string) => void | Promise<void>
  delete: (name: string) => void | Promise<void>
}

/** The installation's identity: a string, or a function that returns one (or a promise of one). */
export type FingerprintSource = string | (() => string | Promise<string>)

export type LicenseClientOptions = {
  /** The service's origin, e.g. `https://kit.example.com` (its `SERVER_URL`). */
  serviceUrl: string
  /** Default: a JSON file under `$XDG_CONFIG_HOME/license-client/` (Node), `localStorage` (browsers). */
  storage?: LicenseStorage
  /**
   * 1 to 200 printable ASCII characters naming this installation. Default: a random install id kept in
   * the storage (Node adds a hash of the host name), so a copied certificate fails on another machine.
   */
  fingerprint?: FingerprintSource
  /** Pinned verification keys: nothing is ever fetched, and a certificate signed by any other key is refused. */
  publicKeys?: PublicJwkSet | PublicJwk[]
  /** Days a certificate keeps answering `GRACE` after its `exp` while the service cannot be reached. Default 7. */
  graceDays?: number
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch
  /** How long a request to the service may take before the client answers offline. Default 10 000 ms. */
  timeoutMs?: number
  /** The clock, in milliseconds since the epoch. Default `Date.now`; for tests. */
  now?: () => number
}

/** The update window a certificate carries (`upd`). */
export type UpdateWindowClaim = { policy: 'lifetime' | 'major' | 'months'; major?: number; until?: string }

/** A certificate's claims (docs/LICENSING.md, "License validation for apps"). */
export type CertificateClaims = {
  /** The license key the certificate speaks for. */
  license: string
  plan: string | null
  features: string[]
  /** The fingerprint of the installation it was issued to. */
  fpr?: string
  upd?: UpdateWindowClaim
  iss: string
  /** Issued at and expires at, in seconds since the epoch. */
  iat: number
  exp: number
}

/** What the service answers for a key that is not valid (its validation code). */
export type ServiceCode = 'SUSPENDED' | 'REVOKED' | 'EXPIRED' | 'NOT_FOUND' | 'NO_ACTIVATION'

export type CheckCode =
  | 'VALID'
  | 'GRACE'
  | 'EXPIRED'
  | 'CLOCK_ROLLBACK'
  | 'NOT_GENUINE'
  /** The service could not be reached and no certificate is stored. */
  | 'NO_CERTIFICATE'
  | ServiceCode

export type CheckResult = {
  status: 'valid' | 'grace' | 'invalid'
  code: CheckCode
  /** The certificate's claims, when a genuine certificate decided the answer. */
  claims?: CertificateClaims
  /** `online`: the service answered; `stored`: the stored certificate (or the stored clock) decided. */
  source: 'online' | 'stored'
}

export type VerifyResult = {
  /** Signed by a trusted key, with EdDSA, by this service, for the stored license and installation. */
  genuine: boolean
  code: 'VALID' | 'EXPIRED' | 'NOT_GENUINE'
  claims?: CertificateClaims
}

export type UpdateReason =
  'LIFETIME' | 'WITHIN_MAJOR' | 'NEWER_MAJOR' | 'WITHIN_WINDOW' | 'WINDOW_ENDED' | 'NO_CERTIFICATE' | 'NOT_GENUINE'

export type UpdateDecision = { allowed: boolean; reason: UpdateReason }

/** The activation as the service answers it (`POST /api/licenses/activate`). */
export type Activation = {
  id: number
  fingerprint: string
  label: string | null
  createdAt: string
  lastValidatedAt: string | null
  activations: { used: number; limit: number | null }
}
