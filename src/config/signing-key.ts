import crypto, { type KeyObject } from 'node:crypto'

// Every message names the variable and, in a set, a key's position: never the value, which is a secret.
const NOT_A_KEY = 'LICENSE_SIGNING_KEY is not an Ed25519 private key (PKCS#8 PEM or private JWK)'
const EMPTY_SET = 'LICENSE_SIGNING_KEY holds no key: its JWK Set is empty'
const NOT_A_SET = 'LICENSE_SIGNING_KEY is not a JWK Set: its "keys" is not an array'
const STRAY_TEXT = 'LICENSE_SIGNING_KEY holds text outside its PEM blocks (a key cut short or pasted incompletely?)'

/** A single key keeps the message it always had; in a set the position tells the seller which one to fix. */
const notAKey = (position: number, count: number) =>
  count === 1
    ? NOT_A_KEY
    : `LICENSE_SIGNING_KEY key ${position} of ${count} is not an Ed25519 private key (PKCS#8 PEM or private JWK)`

/** One candidate as Node reads it: a PEM block, or a JWK object. */
type Candidate = { format: 'pem'; key: string } | { format: 'jwk'; key: unknown }

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g

/**
 * PEM blocks one after another (`cat new.pem old.pem`). Text outside the blocks is refused rather than
 * skipped: it is most often a second key whose END line got lost, which would otherwise vanish silently.
 */
const pemCandidates = (text: string): Candidate[] => {
  const pem = text.replace(/\\n/g, '\n') // env files often hold the PEM on one line with `\n` escapes
  const blocks = pem.match(PEM_BLOCK) ?? []
  if (blocks.length === 0) throw new Error(NOT_A_KEY)
  if (pem.replace(PEM_BLOCK, '').trim() !== '') throw new Error(STRAY_TEXT)
  return blocks.map((key) => ({ format: 'pem', key }))
}

/** A private JWK, or a JWK Set `{"keys": [jwk, ...]}` of them. */
const jwkCandidates = (text: string): Candidate[] => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new Error(NOT_A_KEY)
  }
  if (json === null || typeof json !== 'object' || !('keys' in json)) return [{ format: 'jwk', key: json }]
  const { keys } = json
  if (!Array.isArray(keys)) throw new Error(NOT_A_SET)
  if (keys.length === 0) throw new Error(EMPTY_SET)
  return keys.map((key: unknown) => ({ format: 'jwk', key }))
}

const toPrivateKey = (candidate: Candidate, position: number, count: number): KeyObject => {
  let key: KeyObject
  try {
    key =
      candidate.format === 'pem'
        ? crypto.createPrivateKey({ key: candidate.key, format: 'pem' })
        : crypto.createPrivateKey({ key: candidate.key as crypto.JsonWebKey, format: 'jwk' })
  } catch {
    throw new Error(notAKey(position, count))
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(notAKey(position, count))
  return key
}

/** The public point identifies a key: two entries with the same one would publish the same `kid` twice. */
const publicPointOf = (key: KeyObject) => crypto.createPublicKey(key).export({ format: 'jwk' }).x

const refuseDuplicates = (keys: KeyObject[]) => {
  const seen = new Map<string | undefined, number>()
  keys.forEach((key, index) => {
    const point = publicPointOf(key)
    const first = seen.get(point)
    if (first !== undefined)
      throw new Error(
        `LICENSE_SIGNING_KEY holds the same key twice (keys ${first} and ${index + 1}); list each key once`,
      )
    seen.set(point, index + 1)
  })
}

/**
 * The Ed25519 private keys of LICENSE_SIGNING_KEY, in order (the first signs, all are published): one or
 * more PKCS#8 PEM blocks one after another (with real or `\n`-escaped newlines, as env files hold them),
 * a private JWK, or a JWK Set of private JWKs. Refuses an empty set, any key that is not an Ed25519
 * private key, and the same key twice.
 */
export const parseSigningKeys = (text: string): KeyObject[] => {
  const trimmed = text.trim()
  if (trimmed === '') throw new Error(NOT_A_KEY)
  const candidates = trimmed.startsWith('{') ? jwkCandidates(trimmed) : pemCandidates(trimmed)
  const keys = candidates.map((candidate, index) => toPrivateKey(candidate, index + 1, candidates.length))
  refuseDuplicates(keys)
  return keys
}
