import net from 'node:net'

/**
 * A port in [from, to] that nothing listens on right now (tests that must stay inside a port range).
 * Tried in a random order, so two files picking at once rarely collide.
 */
export const freePortIn = async (from: number, to: number): Promise<number> => {
  const candidates = Array.from({ length: to - from + 1 }, (_, index) => from + index).sort(() => Math.random() - 0.5)
  for (const port of candidates) {
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer()
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
    })
    if (free) return port
  }
  throw new Error(`no free port in ${from}-${to}`)
}
