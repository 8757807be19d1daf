import type { Payload } from 'payload'

import type { SqlRow } from '../db/rows'
import { checkout_recoveries } from '../db/schema.generated'
import { executeOn, sql } from '../db/transaction'
import { unsealRecoveryUrl, verifyRecoverSignature } from './links'

/** Where the recovery page sends someone whose link leads nowhere, and why. */
export type ReopenRefusal = 'invalid' | 'expired' | 'complete'

/**
 * GET /checkout/recover/<session>?t=<signature>, the recovery email's link: the processor's recovery
 * URL for a signed, known checkout whose link still works; otherwise why not, for the page at
 * `/checkout/recovery?link=`. Writes nothing (mail scanners open links too).
 */
export const reopenCheckout = async (
  payload: Payload,
  sessionId: string,
  signature: string | null,
): Promise<{ url: string } | { refused: ReopenRefusal }> => {
  if (!verifyRecoverSignature(payload.secret, sessionId, signature)) return { refused: 'invalid' }
  const c = checkout_recoveries
  const [row] = await executeOn<Pick<SqlRow<typeof c>, 'status' | 'recovery_url' | 'recovery_expires_at'>>(
    payload,
    undefined,
    sql`SELECT ${c.status}, ${c.recoveryUrl}, ${c.recoveryExpiresAt} FROM ${c} WHERE ${c.checkoutSessionId} = ${sessionId}`,
  )
  if (!row) return { refused: 'invalid' }
  if (row.status === 'recovered') return { refused: 'complete' }
  if (!row.recovery_url) return { refused: 'invalid' }
  if (!row.recovery_expires_at || new Date(row.recovery_expires_at).getTime() <= Date.now())
    return { refused: 'expired' }
  // Sealed under a PAYLOAD_SECRET since rotated: the link cannot be opened any more.
  const url = unsealRecoveryUrl(payload.secret, row.recovery_url)
  return url ? { url } : { refused: 'invalid' }
}
