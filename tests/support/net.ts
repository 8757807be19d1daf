import net from 'node:net'

/** A TCP port nothing listens on right now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/**
 * A JSON value read without a schema (an answer's body, a webhook's data): tests read hostile and
 * broken shapes on purpose and expect() is the type check, so reads from it go unchecked, as the
 * no-unsafe-* rules are off under tests/ in eslint.config.mjs for the same reason.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests' one deliberately untyped JSON type (see above); every other use names it
export type UntypedJson = any

/** A response body as JSON when it parses, else as its text (a file, an HTML page, an empty redirect). */
export const jsonOrText = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
