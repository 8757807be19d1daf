import type { Payload } from 'payload'
import { describe, expect, it } from 'vitest'

import { closePayload } from '../../src/db/close'

/*
 * closePayload ends busy clients itself (the adapter never releases the one it watches resets with).
 * A client pg-pool is still connecting sits in the pool's list without a `release` yet: the teardown
 * once threw "Cannot read properties of undefined (reading 'bind')" on one, failing a test file's
 * afterAll in a full run. Such a client is left to the ending pool.
 */
describe('closePayload', () => {
  it('releases busy clients once, and passes over a client still connecting', async () => {
    const released: (boolean | undefined)[] = []
    const busy = { release: (destroy?: boolean) => void released.push(destroy) }
    const connecting = {}
    const idle = { release: () => void released.push(undefined) }
    let ended = false
    const pool = {
      ended: false,
      _clients: [busy, connecting, idle],
      _idle: [{ client: idle }],
      end: () => Promise.resolve(void (ended = true)),
    }
    const payload = { destroy: () => Promise.resolve(), db: { pool } } as unknown as Payload

    await expect(closePayload(payload)).resolves.toBeUndefined()
    expect(ended).toBe(true)
    expect(released).toEqual([true])
    // A second release of the same client (its query failing on the closed connection) is a no-op.
    busy.release(true)
    expect(released).toEqual([true])
  })
})
