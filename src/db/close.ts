import type { Payload } from 'payload'

type InternalPool = {
  ended?: boolean
  end: () => Promise<void>
  _clients?: { release?: (destroy?: boolean) => void }[]
  _idle?: { client: unknown }[]
}

// PATCH: pool-close
/**
 * Close what `payload.destroy()` leaves open: the connection pool. The postgres adapter checks out
 * one client at connect time to watch for resets and never releases it, so `pool.end()` alone would
 * wait forever; call this only once requests have drained, since it also ends busy clients.
 */
export const closePayload = async (payload: Payload): Promise<void> => {
  await payload.destroy()
  const pool = payload.db.pool as unknown as InternalPool | undefined
  if (!pool || pool.ended) return
  const idle = new Set((pool._idle ?? []).map((entry) => entry.client))
  const busy = (pool._clients ?? []).filter((client) => !idle.has(client))
  const ending = pool.end()
  for (const client of busy) {
    // A client still connecting has no release yet (pg-pool adds it once connected): the ending pool
    // ends it then.
    if (typeof client.release !== 'function') continue
    // A query still in flight releases its client again when it fails on the closed connection,
    // and pg-pool throws that second release as an uncaught exception: make releasing idempotent.
    const release = client.release.bind(client)
    let released = false
    client.release = (destroy?: boolean) => {
      if (released) return
      released = true
      release(destroy)
    }
    try {
      client.release(true)
    } catch {
      // released meanwhile
    }
  }
  await ending
}
