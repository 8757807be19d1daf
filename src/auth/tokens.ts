import crypto from 'node:crypto'

import type { Payload, PayloadRequest } from 'payload'

import type { SqlRow } from '../db/rows'
import { auth_tokens } from '../db/schema.generated'
import { bare, execute, executeOn, sql } from '../db/transaction'

export type TokenPurpose = 'magic_link' | 'verify_email' | 'email_change' | 'deletion_cancel' | 'discord_state'

export const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex')

// PATCH: reset-token-hash
/**
 * Payload's reset-password token as the users row keeps it: its SHA-256, so a copy of the table
 * (or a staff read of it) holds no usable link. Payload's resetPassword is then given this form.
 */
export const storedResetToken = (token: string) => `sha256:${hashToken(token)}`

/**
 * A new single-use token for `email`: 256 random bits, stored hashed. Any earlier unused token of
 * the same purpose for that email (or, for an email change, for that user) is superseded, so only
 * the newest link works.
 */
export const issueAuthToken = async (
  req: PayloadRequest,
  options: { purpose: TokenPurpose; email: string; userId?: number | null; next?: string | null; ttlMs: number },
): Promise<string> => {
  const token = crypto.randomBytes(32).toString('base64url')
  const sameUser =
    options.purpose === 'email_change' && options.userId ? sql` OR ${auth_tokens.user} = ${options.userId}` : sql``
  await execute(
    req,
    sql`UPDATE ${auth_tokens} SET ${bare(auth_tokens.supersededAt)} = now(), ${bare(auth_tokens.updatedAt)} = now()
        WHERE ${auth_tokens.purpose} = ${options.purpose} AND ${auth_tokens.consumedAt} IS NULL AND ${auth_tokens.supersededAt} IS NULL
          AND (${auth_tokens.email} = ${options.email}${sameUser})`,
  )
  await req.payload.create({
    collection: 'auth_tokens',
    data: {
      tokenHash: hashToken(token),
      purpose: options.purpose,
      email: options.email,
      user: options.userId ?? null,
      next: options.next ?? null,
      expiresAt: new Date(Date.now() + options.ttlMs).toISOString(),
    },
    req,
    overrideAccess: true,
  })
  return token
}

export type ConsumedToken = { email: string; userId: number | null; next: string | null }

/**
 * Use a token once: a single UPDATE claims it, so a double click or two tabs get one success and one
 * refusal. Unknown, used, superseded and expired tokens all give null.
 */
export const consumeAuthToken = async (
  payload: Payload,
  purpose: TokenPurpose,
  token: string,
): Promise<ConsumedToken | null> => {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null
  const [row] = await executeOn<Pick<SqlRow<typeof auth_tokens>, 'email' | 'user_id' | 'next'>>(
    payload,
    undefined,
    sql`UPDATE ${auth_tokens} SET ${bare(auth_tokens.consumedAt)} = now(), ${bare(auth_tokens.updatedAt)} = now()
        WHERE ${auth_tokens.tokenHash} = ${hashToken(token)} AND ${auth_tokens.purpose} = ${purpose} AND ${auth_tokens.consumedAt} IS NULL
          AND ${auth_tokens.supersededAt} IS NULL AND ${auth_tokens.expiresAt} > now()
        RETURNING ${auth_tokens.email}, ${auth_tokens.user}, ${auth_tokens.next}`,
  )
  return row ? { email: row.email, userId: row.user_id, next: row.next } : null
}
