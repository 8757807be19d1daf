import type { Payload } from 'payload'

import { email_unsubscribes } from '../db/schema.generated'
import { bare, executeOn, sql } from '../db/transaction'
import { addressOfUnsubscribeToken, emailHash } from './links'

/**
 * The one-click unsubscribe (RFC 8058): the token's address joins the list (as its SHA-256), once
 * however often it is posted. Checked before anything is written: a token not made here, or a body
 * other than `List-Unsubscribe=One-Click`, writes nothing.
 */
export const unsubscribe = async (
  payload: Payload,
  token: string,
  { oneClick }: { oneClick: boolean },
): Promise<'unsubscribed' | 'invalid_token' | 'not_one_click'> => {
  const address = addressOfUnsubscribeToken(payload.secret, token)
  if (!address) return 'invalid_token'
  if (!oneClick) return 'not_one_click'
  await executeOn(
    payload,
    undefined,
    sql`INSERT INTO ${email_unsubscribes} (${bare(email_unsubscribes.emailHash, email_unsubscribes.updatedAt, email_unsubscribes.createdAt)})
        VALUES (${emailHash(address)}, now(), now())
        ON CONFLICT (${bare(email_unsubscribes.emailHash)}) DO NOTHING`,
  )
  return 'unsubscribed'
}

/** Whether an address is on the list (the unsubscribe page, the data export). */
export const isUnsubscribed = async (payload: Payload, address: string): Promise<boolean> => {
  const rows = await executeOn(
    payload,
    undefined,
    sql`SELECT 1 FROM ${email_unsubscribes} WHERE ${email_unsubscribes.emailHash} = ${emailHash(address)}`,
  )
  return rows.length > 0
}
