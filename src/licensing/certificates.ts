import crypto, { type KeyObject } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { SignJWT } from 'jose'

import { parseSigningKey } from '../config/signing-key'
import type { FeatureKey } from '../plans/features'

/** The longest a certificate lives: a revoked license stops working within this time, offline. */
export const CERTIFICATE_MAX_TTL_SECONDS = 14 * 24 * 60 * 60

export type SigningKeySettings = {
  /** LICENSE_SIGNING_KEY: an Ed25519 private key as PKCS#8 PEM or as a private JWK (JSON). */
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

type Signer = { privateKey: KeyObject; publicJwk: PublicSigningJwk }

/** The public JWK with its RFC 7638 thumbprint as `kid`, so a rotated key gets a new `kid` by itself. */
export const publicJwkOf = (privateKey: KeyObject): PublicSigningJwk => {
  const { x } = crypto.createPublicKey(privateKey).export({ format: 'jwk' })
  if (typeof x !== 'string') throw new Error('an Ed25519 public key without x')
  const kid = crypto.createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url')
  return { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' }
}

const isErrorCode = (error: unknown, code: string) => (error as NodeJS.ErrnoException | null)?.code === code

/**
 * Development and tests: the key in `file`, generated (mode 0600) when there is none. The new key is
 * written aside and hard-linked into place, so processes starting together all end up with the one
 * that won and never read a half-written file.
 */
const readOrGenerate = (file: string, onGenerated: (file: string) => void): KeyObject => {
  try {
    return parseSigningKey(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    if (!isErrorCode(error, 'ENOENT')) throw new Error(`The license signing key in ${file} is unreadable; delete the file to generate a new one.`)
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
  return parseSigningKey(fs.readFileSync(file, 'utf8'))
}

export type CertificateClaims = {
  /** The license key the certificate speaks for. */
  license: string
  /** The plan's slug (null only if the plan was deleted). */
  plan: string | null
  features: FeatureKey[]
  /** The installation's fingerprint, when the app sent one (`fpr`). */
  fingerprint?: string
}

/** Where a generated key is announced (Payload's logger): the file's path only, never the key. */
export type KeyLogger = { info: (details: { file: string }, message: string) => void }

export type LicenseSigner = {
  /** The published key set: `{keys: [jwk]}`, the private half never included. */
  publicKeys: () => { keys: PublicSigningJwk[] }
  /**
   * A compact JWS (`alg: EdDSA`, `kid`) of the claims with `iat` now and `exp` 14 days ahead, or the
   * license's own end (`notAfter`) when that comes first.
   */
  sign: (claims: CertificateClaims, notAfter: Date | null, now?: Date) => Promise<string>
}

/**
 * The certificate signer. The key is read (or, outside production, generated) on first use, not at
 * config load: `next build` loads the config without secrets.
 */
export const licenseCertificates = (settings: SigningKeySettings): ((logger: KeyLogger) => LicenseSigner) => {
  let loaded: Signer | undefined
  const load = (logger: KeyLogger): Signer => {
    if (loaded) return loaded
    let privateKey: KeyObject
    if (settings.configured) privateKey = parseSigningKey(settings.configured)
    else if (settings.isProduction) throw new Error('LICENSE_SIGNING_KEY is not set')
    else privateKey = readOrGenerate(settings.generatedFile, (file) => logger.info({ file }, 'generated a development license signing key'))
    loaded = { privateKey, publicJwk: publicJwkOf(privateKey) }
    return loaded
  }
  return (logger) => {
    const { privateKey, publicJwk } = load(logger)
    return {
      publicKeys: () => ({ keys: [publicJwk] }),
      sign: async (claims, notAfter, now = new Date()) => {
        const issuedAt = Math.floor(now.getTime() / 1000)
        const latest = issuedAt + CERTIFICATE_MAX_TTL_SECONDS
        const expiresAt = notAfter ? Math.min(latest, Math.floor(notAfter.getTime() / 1000)) : latest
        const payload = { license: claims.license, plan: claims.plan, features: claims.features, ...(claims.fingerprint !== undefined ? { fpr: claims.fingerprint } : {}) }
        return new SignJWT(payload)
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
