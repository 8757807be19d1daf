import net from 'node:net'

/**
 * The client's address, truncated before it is stored (IPv4 to /24, IPv6 to /48): enough to spot
 * abuse, not enough to single out a person.
 */
export const truncatedAddress = (raw: string | null | undefined): string | null => {
  const address = raw?.split(',')[0]?.trim().replace(/^::ffff:/, '')
  if (!address) return null
  if (net.isIPv4(address)) return `${address.split('.').slice(0, 3).join('.')}.0`
  if (net.isIPv6(address)) {
    const [head = ''] = address.split('::')
    const groups = head.split(':').filter(Boolean)
    return `${[...groups, '0', '0', '0'].slice(0, 3).join(':')}::`
  }
  return null
}
