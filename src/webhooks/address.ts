import dns from 'node:dns'
import net from 'node:net'

import ipaddr from 'ipaddr.js'

/**
 * Which webhook URLs and addresses the service may call (the SSRF guard). A URL must be https and every
 * address its host resolves to public; with `allowPrivate` (WEBHOOK_ALLOW_PRIVATE=true, for staging and
 * tests) http, loopback and private ranges are allowed too. Link-local, cloud metadata and reserved
 * addresses are always refused: when the URL is saved, and again when each delivery connects (the host's
 * DNS can change in between), through `safeLookup`, so the socket only ever connects to a checked address.
 */

/**
 * public: reachable on the internet. private: loopback, RFC 1918, carrier-grade NAT, unique local and other
 * non-global ranges (allowed only with `allowPrivate`). forbidden: never called.
 */
export type AddressClass = 'public' | 'private' | 'forbidden'

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string }

/** The sentences a refused URL or address is explained with (shown to the seller's admin and to support). */
export const WEBHOOK_URL_REASONS = {
  tooLong: 'Webhook URLs can be at most 2,048 characters long.',
  invalid: 'This is not a valid URL.',
  scheme: 'Webhook URLs must use https.',
  schemeAllowPrivate: 'Webhook URLs must use https or http.',
  credentials: 'Webhook URLs must not contain a user name or password.',
  forbidden: 'This URL points to a link-local, cloud metadata or reserved address, which is never allowed.',
  private:
    'This URL points to a private or loopback address; set WEBHOOK_ALLOW_PRIVATE=true to allow that outside production.',
  unresolvable: 'The host name could not be resolved.',
} as const

/** The longest webhook URL accepted, in characters. */
const MAX_WEBHOOK_URL_LENGTH = 2048

/** The `code` of the error `safeLookup` fails a connection with when an address is refused. */
export const WEBHOOK_ADDRESS_REFUSED = 'WEBHOOK_ADDRESS_REFUSED'

/** A connection refused by `safeLookup`: its message is one of WEBHOOK_URL_REASONS. */
class WebhookAddressRefusedError extends Error {
  readonly code = WEBHOOK_ADDRESS_REFUSED
  constructor(message: string) {
    super(message)
    this.name = 'WebhookAddressRefusedError'
  }
}

const SEVERITY: Record<AddressClass, number> = { public: 0, private: 1, forbidden: 2 }

/** The stricter of the classes. */
const worst = (...classes: AddressClass[]): AddressClass =>
  classes.reduce<AddressClass>((found, next) => (SEVERITY[next] > SEVERITY[found] ? next : found), 'public')

/**
 * Metadata services on addresses outside the link-local range: Alibaba Cloud's (100.100.100.200, inside
 * carrier-grade NAT) and Azure's WireServer (168.63.129.16, a public address only Azure hosts reach).
 */
const METADATA_V4 = ['100.100.100.200', '168.63.129.16']

/** AWS's instance services over IPv6 (metadata fd00:ec2::254, DNS ::253, NTP ::123): the counterpart of 169.254.169.x. */
const AWS_V6_SERVICES = ipaddr.IPv6.parseCIDR('fd00:ec2::/64')

/** Benchmarking (RFC 2544), which ipaddr.js counts as reserved: non-global, but a test network can use it. */
const BENCHMARKING_V4 = ipaddr.IPv4.parseCIDR('198.18.0.0/15')

/** Global unicast IPv6 (2000::/3): other "unicast" space ipaddr.js reports is unallocated or IPv4-compatible. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')

const IPV4_CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  unspecified: 'forbidden',
  broadcast: 'forbidden',
  multicast: 'forbidden',
  linkLocal: 'forbidden',
  reserved: 'forbidden',
  loopback: 'private',
  private: 'private',
  carrierGradeNat: 'private',
  benchmarking: 'private',
  as112: 'private',
  amt: 'private',
}

const IPV6_CLASSES: Record<string, AddressClass> = {
  unspecified: 'forbidden',
  linkLocal: 'forbidden',
  multicast: 'forbidden',
  reserved: 'forbidden',
  discard: 'forbidden',
  loopback: 'private',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  benchmarking: 'private',
  amt: 'private',
  as112v6: 'private',
  deprecatedOrchid: 'private',
  orchid2: 'private',
  droneRemoteIdProtocolEntityTags: 'private',
  segmentRouting: 'private',
}

const classifyV4 = (address: ipaddr.IPv4): AddressClass => {
  if (METADATA_V4.includes(address.toString())) return 'forbidden'
  if (address.match(BENCHMARKING_V4)) return 'private'
  // A range a later ipaddr.js adds is non-global: private until looked at.
  return IPV4_CLASSES[address.range()] ?? 'private'
}

/** The IPv4 address in four bytes of an IPv6 address. */
const v4At = (bytes: number[], ...indexes: number[]): ipaddr.IPv4 =>
  new ipaddr.IPv4(indexes.map((index) => bytes[index] ?? 0))

/**
 * The IPv4 addresses an IPv6 address carries to the IPv4 internet (NAT64, SIIT, 6to4, Teredo), or null
 * for one that carries none.
 */
const embeddedV4 = (address: ipaddr.IPv6, range: string): ipaddr.IPv4[] | null => {
  const bytes = address.toByteArray()
  if (range === '6to4') return [v4At(bytes, 2, 3, 4, 5)]
  if (range === 'rfc6145') return [v4At(bytes, 12, 13, 14, 15)]
  if (range === 'teredo') {
    // The server's address in clear, the client's (where packets end up) with every bit inverted.
    const client = new ipaddr.IPv4([12, 13, 14, 15].map((index) => (bytes[index] ?? 0) ^ 0xff))
    return [v4At(bytes, 4, 5, 6, 7), client]
  }
  if (range === 'rfc6052') {
    if (address.parts[2] !== 1) return [v4At(bytes, 12, 13, 14, 15)]
    // The local-use prefix 64:ff9b:1::/48 may be any of RFC 6052's lengths from /48 on: each place that can hold the IPv4
    // address, but for those that read the zeros around it (0.0.0.0/8, which no NAT64 translates to).
    const candidates = [
      v4At(bytes, 6, 7, 9, 10),
      v4At(bytes, 7, 9, 10, 11),
      v4At(bytes, 9, 10, 11, 12),
      v4At(bytes, 12, 13, 14, 15),
    ]
    return candidates.filter((candidate) => candidate.octets[0] !== 0)
  }
  return null
}

const classifyV6 = (address: ipaddr.IPv6): AddressClass => {
  if (address.match(AWS_V6_SERVICES)) return 'forbidden'
  const range = address.range()
  const embedded = embeddedV4(address, range)
  if (embedded) {
    const carried = worst(...embedded.map(classifyV4))
    // The local-use NAT64 prefix only exists inside a network.
    return range === 'rfc6052' && address.parts[2] === 1 ? worst('private', carried) : carried
  }
  if (range === 'unicast') return address.match(GLOBAL_UNICAST_V6) ? 'public' : 'forbidden'
  return IPV6_CLASSES[range] ?? 'private'
}

/**
 * An address as ipaddr.js reads it, IPv4-mapped IPv6 as IPv4 (what `ipaddr.process` does). A dotted IPv4
 * tail is turned into hex groups first: ipaddr.js 2.5 reads `::1.2.3.4` (IPv4-compatible, how glibc prints
 * ::102:304) as if it were IPv4-mapped. The zone of a scoped address (`fe80::1%eth0`) is dropped.
 */
const parseAddress = (ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null => {
  let text = ip
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '')
  if (text.includes(':')) {
    const tail = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text)
    if (tail) {
      const octets = tail.slice(2).map(Number)
      if (octets.some((octet) => octet > 255)) return null
      const [a = 0, b = 0, c = 0, d = 0] = octets
      text = `${tail[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
    }
    if (!ipaddr.IPv6.isValid(text)) return null
    const address = ipaddr.IPv6.parse(text)
    return address.isIPv4MappedAddress() ? address.toIPv4Address() : address
  }
  // Only the four-part decimal form: `net` and the URL parser already turned the others (0x7f.1) into it.
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : null
}

/**
 * How an IP address may be called. Anything that is not an IP address is forbidden. An IPv6 address that
 * carries an IPv4 one (IPv4-mapped, NAT64, 6to4, Teredo) is classed by the IPv4 address.
 */
export const classifyAddress = (ip: string): AddressClass => {
  const address = parseAddress(ip)
  if (!address) return 'forbidden'
  return address.kind() === 'ipv4' ? classifyV4(address as ipaddr.IPv4) : classifyV6(address as ipaddr.IPv6)
}

/** Why these addresses may not be called (one of WEBHOOK_URL_REASONS), or null when every one may. */
const refusalOf = (addresses: string[], allowPrivate: boolean): string | null => {
  const found = worst(...addresses.map(classifyAddress))
  if (found === 'forbidden') return WEBHOOK_URL_REASONS.forbidden
  if (found === 'private' && !allowPrivate) return WEBHOOK_URL_REASONS.private
  return null
}

const defaultResolve = async (hostname: string): Promise<string[]> =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

/**
 * Whether a webhook URL may be called, with the parsed URL when it may. Refused: over 2,048 characters,
 * not a URL, a scheme other than https (http too with `allowPrivate`), a user name or password, and a host
 * any of whose addresses is not allowed (see `classifyAddress`) or that does not resolve. An IP literal is
 * classified as it is. A fragment is never sent to the receiver, so it is dropped from the returned URL
 * rather than refused.
 */
export const checkWebhookUrl = async (
  raw: string,
  options: { allowPrivate: boolean; resolve?: (hostname: string) => Promise<string[]> },
): Promise<UrlCheck> => {
  const text = raw.trim()
  if (text.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: WEBHOOK_URL_REASONS.tooLong }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { ok: false, reason: WEBHOOK_URL_REASONS.invalid }
  }
  const schemeAllowed = url.protocol === 'https:' || (options.allowPrivate && url.protocol === 'http:')
  if (!schemeAllowed)
    return {
      ok: false,
      reason: options.allowPrivate ? WEBHOOK_URL_REASONS.schemeAllowPrivate : WEBHOOK_URL_REASONS.scheme,
    }
  if (url.username || url.password) return { ok: false, reason: WEBHOOK_URL_REASONS.credentials }
  url.hash = ''
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (!host) return { ok: false, reason: WEBHOOK_URL_REASONS.invalid }
  let addresses: string[]
  if (net.isIP(host)) {
    addresses = [host]
  } else {
    try {
      addresses = await (options.resolve ?? defaultResolve)(host)
    } catch {
      return { ok: false, reason: WEBHOOK_URL_REASONS.unresolvable }
    }
    if (addresses.length === 0) return { ok: false, reason: WEBHOOK_URL_REASONS.unresolvable }
  }
  const refusal = refusalOf(addresses, options.allowPrivate)
  return refusal ? { ok: false, reason: refusal } : { ok: true, url }
}

/**
 * A `lookup` for `http.request`/`https.request` (Node's `dns.lookup` signature, `all` honoured): resolves
 * with `dns.lookup` and fails the connection with a WebhookAddressRefusedError (`code`
 * WEBHOOK_ADDRESS_REFUSED) when any address is not allowed, so the socket connects only to an address
 * that was checked. Node does not call it for an IP literal: classify those before connecting.
 */
export const safeLookup =
  (options: { allowPrivate: boolean }): net.LookupFunction =>
  (hostname, lookupOptions, callback) => {
    dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, [])
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(WEBHOOK_URL_REASONS.unresolvable), { code: 'ENOTFOUND', hostname }), [])
      }
      const refusal = refusalOf(
        addresses.map((entry) => entry.address),
        options.allowPrivate,
      )
      if (refusal) return callback(new WebhookAddressRefusedError(refusal), [])
      if (lookupOptions.all) return callback(null, addresses)
      const [first] = addresses
      return callback(null, first!.address, first!.family)
    })
  }
