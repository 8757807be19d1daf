import net from 'node:net'

/** The family of an address as `net.BlockList` names it (anything that is not IPv6 as IPv4). */
export const blockListFamily = (address: string): 'ipv4' | 'ipv6' => (net.isIP(address) === 6 ? 'ipv6' : 'ipv4')

/**
 * One spelling per address: IPv4-mapped IPv6 (`::ffff:192.0.2.1`, how a dual-stack socket reports an
 * IPv4 peer) becomes plain IPv4, IPv6 is lower-case and compressed. Null for anything that is not an IP.
 */
export const canonicalAddress = (value: string | undefined | null): string | null => {
  if (!value) return null
  let candidate = value.trim()
  // Some proxies write `[v6]:port` or `v4:port`.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(candidate)
  if (bracketed) candidate = bracketed[1]!
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(candidate)) candidate = candidate.slice(0, candidate.lastIndexOf(':'))
  const family = net.isIP(candidate)
  if (family === 4) return candidate
  if (family !== 6) return null
  const compressed = new URL(`http://[${candidate}]/`).hostname.slice(1, -1)
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(compressed)
  if (mapped) return mapped[1]!
  // URL prints a mapped IPv4 as hex (::ffff:c000:201): turn that back into dotted form.
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed)
  if (hexMapped) {
    const high = parseInt(hexMapped[1]!, 16)
    const low = parseInt(hexMapped[2]!, 16)
    return [high >> 8, high & 255, low >> 8, low & 255].join('.')
  }
  return compressed
}

/** The eight groups of an IPv6 address as written (`::` filled with `0`), for taking its prefix. */
const ipv6Groups = (address: string): string[] => {
  const [head = '', tail = ''] = address.split('::')
  const left = head ? head.split(':') : []
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : []
  return [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
}

/** Requests with no usable client address are counted together, never skipped. */
const UNKNOWN_ADDRESS = 'unknown'

/**
 * The rate-limit bucket of a client address: an IPv4 address, or the /64 of an IPv6 one (one
 * subscriber holds a whole /64 and could rotate through it otherwise).
 */
export const addressBucket = (address: string | null): string => {
  if (!address) return UNKNOWN_ADDRESS
  if (net.isIP(address) !== 6) return address
  const groups = ipv6Groups(address.toLowerCase())
  return `${groups
    .slice(0, 4)
    .map((group) => group.padStart(4, '0'))
    .join(':')}::/64`
}

/**
 * The client's address, truncated before it is stored (IPv4 to /24, IPv6 to /48): enough to spot
 * abuse, not enough to single out a person.
 */
export const truncatedAddress = (raw: string | null | undefined): string | null => {
  const address = raw
    ?.split(',')[0]
    ?.trim()
    .replace(/^::ffff:/, '')
  if (!address) return null
  if (net.isIPv4(address)) return `${address.split('.').slice(0, 3).join('.')}.0`
  if (net.isIPv6(address)) return `${ipv6Groups(address).slice(0, 3).join(':')}::`
  return null
}
