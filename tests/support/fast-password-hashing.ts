import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'

/**
 * Before each test file: PBKDF2 runs a hundredth of the rounds it is asked for, in this test process only.
 *
 * Payload hashes a password with 600,000 rounds of PBKDF2-SHA256 (about 90 ms of one core here), and a test
 * user costs two (sign-up and sign-in): the suite would spend about a third of its CPU on key stretching.
 * Hashing and checking both go through the same function, so every path (a right or a wrong password, a
 * legacy hash, the constant-time answer for an unknown email) behaves as in production, only cheaper. The
 * production build's tests and the browser scenarios run the real server, with the real rounds.
 */
const FACTOR = 100
const fewer = (iterations: number) => Math.max(1, Math.ceil(iterations / FACTOR))

const { pbkdf2, pbkdf2Sync } = crypto
crypto.pbkdf2 = (password, salt, iterations, keylen, digest, callback) =>
  pbkdf2(password, salt, fewer(iterations), keylen, digest, callback)
crypto.pbkdf2Sync = (password, salt, iterations, keylen, digest) =>
  pbkdf2Sync(password, salt, fewer(iterations), keylen, digest)
syncBuiltinESMExports()
