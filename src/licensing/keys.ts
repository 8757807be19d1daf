import crypto from 'node:crypto'

/** Crockford's base32: no I, L, O or U, so a key read aloud or typed is hard to get wrong. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const GROUPS = 4
const GROUP_LENGTH = 5

/**
 * A license key: `KIT-` and four groups of five base32 characters, 20 in all = 100 bits from the
 * operating system's CSPRNG. Uniqueness is also enforced by the database.
 */
export const generateLicenseKey = (): string => {
  const bytes = crypto.randomBytes(GROUPS * GROUP_LENGTH)
  // 256 is a multiple of 32, so `byte % 32` is uniform.
  const chars = [...bytes].map((byte) => ALPHABET[byte % ALPHABET.length])
  const groups: string[] = []
  for (let group = 0; group < GROUPS; group += 1) {
    groups.push(chars.slice(group * GROUP_LENGTH, (group + 1) * GROUP_LENGTH).join(''))
  }
  return `KIT-${groups.join('-')}`
}

export const LICENSE_KEY_PATTERN = /^KIT(-[0-9A-HJKMNP-TV-Z]{5}){4}$/
