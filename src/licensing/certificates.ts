import crypto, { type KeyObject } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { SignJWT } from 'jose'

import { parseSigningKeys } from '../config/signing-key'
import type { FeatureKey } from '../plans/features'

/** The longest a certificate lives: a revoked license stops working within this time, offline. */
export const CERTIFICATE_MAX_TTL_SECONDS = 14 * 24 * 60 * 60

/**
 * The longest a certificate lives on a plan that limits activations. A deactivated installation keeps
 * its certificate until `exp`, so with 14 days the daily deactivation cap (3) would let about the limit
 * plus 42 machines hold valid certificates at once; with 72 hours, at most the limit plus 9.
 */
export const ACTIVATION_CERTIFICATE_TTL_SECONDS = 72 * 60 * 60

export type SigningKeySettings = {
  /**
   * LICENSE_SIGNING_KEY: one or more Ed25519 private keys (PKCS#8 PEM blocks one after another, a private
   * JWK, or a JWK Set). The first signs; every one is published, so certificates signed before a rotation
   * keep verifying.
   */
  configured: string | undefined
  /** Where development and tests keep a generated key when none is configured. */
  generatedFile: string
  /** Production never generates one (its start-up checks refuse to run without it). */
  isProduction: boolean
  /** The certificates' issuer (`iss`): the service's public address. */
  issuer: string
}

/** The public half as apps import it (`importJWK`, `createLocalJWKSet`). */
export type PublicSigningJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' }

type SigningKey = { privateKey: KeyObject; publicJwk: PublicSigningJwk }

/** The keys in their configured order: `[0]` signs, all of them are published. Never empty. */
type KeySet = [SigningKey, ...SigningKey[]]

/** The public JWK with its RFC 7638 thumbprint as `kid`, so a rotated key gets a new `kid` by itself. */
export const publicJwkOf = (privateKey: KeyObject): PublicSigningJwk => {
  const { x } = crypto.createPublicKey(privateKey).export({ format: 'jwk' })
  if (typeof x !== 'string') throw new Error('an Ed25519 public key without x')
  const kid = crypto
    .createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url')
  return { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' }
}

const isErrorCode = (error: unknown, code: string) => (error as NodeJS.ErrnoException | null)?.code === code

/**
 * Development and tests: the key in `file`, generated (mode 0600) when there is none. The new key is
 * written aside and hard-linked into place, so processes starting together all end up with the one
 * that won and never read a half-written file. A generated file holds one key; it is read like the
 * variable, so a developer may try a rotation by editing it.
 */
const readOrGenerate = (file: string, onGenerated: (file: string) => void): KeyObject[] => {
  try {
    return parseSigningKeys(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    if (!isErrorCode(error, 'ENOENT'))
      throw new Error(`The license signing key in ${file} is unreadable; delete the file to generate a new one.`, {
        cause: error,
      })
  }
  const pem = crypto.generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' })
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const aside = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`
  fs.writeFileSync(aside, pem, { mode: 0o600 })
  try {
    fs.linkSync(aside, file)
    onGenerated(file)
  } catch (error) {
    if (!isErrorCode(error, 'EEXIST')) throw error
  } finally {
    fs.rmSync(aside, { force: true })
  }
  return parseSigningKeys(fs.readFileSync(file, 'utf8'))
}

export type CertificateClaims = {
  /** The license key the certificate speaks for. */
  license: string
  /** The plan's slug (null only if the plan was deleted). */
  plan: string | null
  features: FeatureKey[]
  /** The installation's fingerprint, when the app sent one (`fpr`). */
  fingerprint?: string
  /** The license's update window (`upd`), so an app can tell which releases it may install. */
  updates?: CertificateUpdates
}

/** The update window as the `upd` claim carries it: `major` only for `major`, `until` (ISO date) only for `months`. */
type CertificateUpdates = { policy: 'lifetime' | 'major' | 'months'; major?: number; until?: string }

/** Members in a fixed order, whatever order the caller built them in: the token's bytes stay reproducible. */
const updClaim = ({ policy, major, until }: CertificateUpdates) => ({
  policy,
  ...(major !== undefined ? { major } : {}),
  ...(until !== undefined ? { until } : {}),
})

const payloadOf = (claims: CertificateClaims) => ({
  license: claims.license,
  plan: claims.plan,
  features: claims.features,
  ...(claims.fingerprint !== undefined ? { fpr: claims.fingerprint } : {}),
  ...(claims.updates !== undefined ? { upd: updClaim(claims.updates) } : {}),
})

/** Where a generated key is announced (Payload's logger): the file's path only, never the key. */
export type KeyLogger = { info: (details: { file: string }, message: string) => void }

export type LicenseSigner = {
  /** The published key set: `{keys: [jwk, ...]}`, every configured key in order, the private halves never included. */
  publicKeys: () => { keys: PublicSigningJwk[] }
  /**
   * A compact JWS (`alg: EdDSA`, the first key's `kid`) of the claims with `iat` now and `exp` 14 days
   * ahead (`maxTtlSeconds`, when shorter: a plan that limits activations), or the license's own end
   * (`notAfter`) when that comes first.
   */
  sign: (claims: CertificateClaims, notAfter: Date | null, now?: Date, maxTtlSeconds?: number) => Promise<string>
}

/**
 * The certificate signer. The keys are read (or, outside production, generated) on first use, not at
 * config load: `next build` loads the config without secrets.
 */
export const licenseCertificates = (settings: SigningKeySettings): ((logger: KeyLogger) => LicenseSigner) => {
  let loaded: KeySet | undefined
  const privateKeys = (logger: KeyLogger): KeyObject[] => {
    if (settings.configured) return parseSigningKeys(settings.configured)
    if (settings.isProduction) throw new Error('LICENSE_SIGNING_KEY is not set')
    return readOrGenerate(settings.generatedFile, (file) =>
      logger.info({ file }, 'generated a development license signing key'),
    )
  }
  const load = (logger: KeyLogger): KeySet => {
    if (loaded) return loaded
    const [first, ...rest] = privateKeys(logger).map((privateKey) => ({
      privateKey,
      publicJwk: publicJwkOf(privateKey),
    }))
    // parseSigningKeys never returns an empty list; this keeps the type honest if that ever changes.
    if (!first) throw new Error('LICENSE_SIGNING_KEY holds no key')
    loaded = [first, ...rest]
    return loaded
  }
  return (logger) => {
    const keys = load(logger)
    const [{ privateKey, publicJwk }] = keys
    return {
      publicKeys: () => ({ keys: keys.map((key) => key.publicJwk) }),
      sign: async (claims, notAfter, now = new Date(), maxTtlSeconds = CERTIFICATE_MAX_TTL_SECONDS) => {
        const issuedAt = Math.floor(now.getTime() / 1000)
        const latest = issuedAt + Math.min(maxTtlSeconds, CERTIFICATE_MAX_TTL_SECONDS)
        const expiresAt = notAfter ? Math.min(latest, Math.floor(notAfter.getTime() / 1000)) : latest
        return new SignJWT(payloadOf(claims))
          .setProtectedHeader({ alg: 'EdDSA', kid: publicJwk.kid, typ: 'JWT' })
          .setIssuer(settings.issuer)
          .setIssuedAt(issuedAt)
          .setExpirationTime(expiresAt)
          .sign(privateKey)
      },
    }
  }
}

export type LicenseCertificates = ReturnType<typeof licenseCertificates>
