import net from 'node:net'

import { blockListFamily, canonicalAddress } from './ip-address'

/**
 * The header the express host sets to the client address it derived from the socket (after deleting
 * any copy the client sent). Next and Payload see only the Fetch API request, not the socket, so this
 * is how the one derivation reaches route handlers, server actions and Payload's hooks.
 */
export const CLIENT_ADDRESS_HEADER = 'x-kit-client-address'

/**
 * The operator's TRUSTED_PROXIES: comma-separated addresses or CIDRs (`10.0.0.0/8, 2001:db8::/32`).
 * Empty (the default) trusts no proxy: the socket's peer is the client. Throws on an entry it cannot read.
 */
export const parseTrustedProxies = (value: string | undefined): net.BlockList => {
  const list = new net.BlockList()
  for (const entry of (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [address = '', prefixText, ...rest] = entry.split('/')
    const family = net.isIP(address)
    const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : Number(prefixText)
    const maxPrefix = family === 6 ? 128 : 32
    if (!family || rest.length > 0 || !/^\d{1,3}$/.test(String(prefix)) || prefix > maxPrefix) {
      throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR (such as 10.0.0.0/8 or 2001:db8::/32)`)
    }
    list.addSubnet(address, prefix, blockListFamily(address))
  }
  return list
}

const isTrusted = (trusted: net.BlockList, address: string) => trusted.check(address, blockListFamily(address))

/**
 * The client address of a request (docs/DEPLOYMENT.md, "Client addresses behind the balancer"): the
 * socket's peer, or, when the peer is a trusted proxy, the right-most X-Forwarded-For hop that is not a trusted proxy (each proxy
 * appends the address it was connected from, so hops left of the first untrusted one are the
 * client's own claims). When every hop is a trusted proxy, the left-most one. Null when there is no
 * usable address (a hop that is not an IP): such requests share one rate-limit bucket.
 */
export const resolveClientAddress = (
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: net.BlockList,
): string | null => {
  const socketAddress = canonicalAddress(peer)
  if (!socketAddress || !isTrusted(trusted, socketAddress)) return socketAddress
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean)
  let address = socketAddress
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = canonicalAddress(hops[index])
    if (!hop) return null
    address = hop
    if (!isTrusted(trusted, hop)) return hop
  }
  return address
}

/**
 * The request's client address as the host derived it, or null. The only place route handlers,
 * server actions and hooks learn it: nothing else reads X-Forwarded-For.
 */
export const clientAddress = (headers: Headers | undefined | null): string | null =>
  canonicalAddress(headers?.get(CLIENT_ADDRESS_HEADER))
