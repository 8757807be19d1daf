import crypto from 'node:crypto'

import { generateCodeVerifier } from 'arctic'
import type { Payload, PayloadRequest } from 'payload'

import { enforceRateLimit } from '../auth/rate-limit'
import { consumeAuthToken, issueAuthToken } from '../auth/tokens'
import type { SqlRow } from '../db/rows'
import { community_grants, discord_links } from '../db/schema.generated'
import { bare, execute, executeOn, inTransaction, sql } from '../db/transaction'
import type { ErrorCode } from '../http/error-sentences'
import { clientAddress } from '../http/client-address'
import { ServiceError } from '../http/errors'
import type { User } from '../payload-types'
import { type DiscordFailure, discordFailure } from './discord'
import type { CommunityRuntime } from './runtime'
import { entitledRoles, type SyncOutcome, syncCommunityRoles } from './sync'

/**
 * Connecting a customer's Discord account (docs/COMMUNITY.md):
 * 1. `GET /api/community/discord/connect` (signed in, entitled): a single-use `state`, stored hashed
 *    for this user for 10 minutes, and a PKCE verifier, both in a signed HttpOnly cookie scoped to the
 *    callback (SameSite=Lax: the way back from Discord is a cross-site navigation); then to Discord.
 * 2. The callback needs the cookie's state equal to the query's and the stored state unused: it is used
 *    up at once, so a replayed or forged callback links nothing; the account is the one the state was
 *    issued to (a session the request carries must be the same account). It trades the
 *    code for the customer's token, reads who they are, refuses an account linked to another customer,
 *    adds them to the server with that token, lets Discord forget the token (never stored), records
 *    the link, and gives the roles (src/community/sync.ts), or leaves them to the queued job.
 * Every failure goes back to the dashboard with a code, linking nothing.
 */

export const STATE_COOKIE = 'kit-discord'
const STATE_TTL_SECONDS = 600
export const CALLBACK_PATH = '/api/community/discord/callback'

/** Why a callback linked nothing: a code the dashboard explains (src/http/error-sentences.ts). */
type ConnectRefusal = Extract<
  ErrorCode,
  'invalid_state' | 'access_denied' | 'discord_already_linked' | 'discord_unavailable' | 'feature_required'
>

/** Where every callback outcome lands: the dashboard, with `joined` or a refusal. */
export type ConnectOutcome = 'joined' | ConnectRefusal

const refuseConnect = (code: ConnectRefusal): ConnectRefusal => code

const mac = (secret: string, value: string) =>
  crypto.createHmac('sha256', secret).update(`discord-state.${value}`).digest('base64url')

const cookie = (runtime: CommunityRuntime, value: string, maxAge: number) =>
  `${STATE_COOKIE}=${value}; Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${runtime.secureCookies ? '; Secure' : ''}`

export const clearStateCookie = (runtime: CommunityRuntime) => cookie(runtime, '', 0)

const notEntitled = () => new ServiceError(403, 'feature_required', 'Your licenses include no Discord community role.')

/** Step 1: where to send the customer, and the cookie to set. */
export const startDiscordConnect = async (
  req: PayloadRequest,
  runtime: CommunityRuntime,
  user: User,
): Promise<{ location: string; cookie: string }> => {
  if ((await entitledRoles(req.payload, user.id)).length === 0) throw notEntitled()
  await enforceRateLimit(req.payload, 'community_connect', { address: clientAddress(req.headers), email: user.email })
  const state = await issueAuthToken(req, {
    purpose: 'discord_state',
    email: user.email,
    userId: user.id,
    ttlMs: STATE_TTL_SECONDS * 1000,
  })
  const verifier = generateCodeVerifier()
  const value = `${state}.${verifier}`
  return {
    location: runtime.discord().authorizationUrl(state, verifier),
    cookie: cookie(runtime, `${value}.${mac(runtime.secret, value)}`, STATE_TTL_SECONDS),
  }
}

/** The state and verifier of the signed cookie, or null when it is missing or was not made here. */
const readCookie = (runtime: CommunityRuntime, raw: string | undefined) => {
  const [state, verifier, signature] = (raw ?? '').split('.')
  if (!state || !verifier || !signature) return null
  const expected = Buffer.from(mac(runtime.secret, `${state}.${verifier}`))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null
  return { state, verifier }
}

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && crypto.timingSafeEqual(left, right)
}

/** Another customer holds this Discord account: linked to it, or with roles on it still being taken back. */
const heldByAnother = async (payload: Payload, userId: number, discordUserId: string): Promise<boolean> => {
  const rows = await executeOn(
    payload,
    undefined,
    sql`SELECT 1 FROM ${discord_links} WHERE ${discord_links.discordUserId} = ${discordUserId} AND ${discord_links.user} <> ${userId}
        UNION ALL
        SELECT 1 FROM ${community_grants} WHERE ${community_grants.discordUserId} = ${discordUserId} AND ${community_grants.user} <> ${userId}
        LIMIT 1`,
  )
  return rows.length > 0
}

const isUniqueViolation = (error: unknown) =>
  (error as { code?: string } | null)?.code === '23505' ||
  (error as { cause?: { code?: string } } | null)?.cause?.code === '23505'

/** Record the link (the account replacing any earlier one), and queue the sync that gives the roles. */
const recordLink = (payload: Payload, userId: number, account: { id: string; username: string }) =>
  inTransaction(payload, async (tx) => {
    await execute<Pick<SqlRow<typeof discord_links>, 'id'>>(
      tx,
      sql`INSERT INTO ${discord_links} (${bare(discord_links.user, discord_links.discordUserId, discord_links.discordUsername, discord_links.linkedAt)})
          VALUES (${userId}, ${account.id}, ${account.username}, now())
          ON CONFLICT (${bare(discord_links.user)}) DO UPDATE SET ${bare(discord_links.discordUserId)} = EXCLUDED.${bare(discord_links.discordUserId)},
            ${bare(discord_links.discordUsername)} = EXCLUDED.${bare(discord_links.discordUsername)}, ${bare(discord_links.linkedAt)} = now(),
            ${bare(discord_links.updatedAt)} = now()
          RETURNING ${discord_links.id}`,
    )
    await tx.payload.jobs.queue({ task: 'syncCommunityRoles', input: { userId }, req: tx })
  })

/** Run a sync now for a quicker answer; when Discord or another process is in the way, the queued job does it. */
const syncNow = async (payload: Payload, runtime: CommunityRuntime, userId: number): Promise<SyncOutcome | null> => {
  try {
    return await syncCommunityRoles(payload, runtime.deps, userId)
  } catch (error) {
    payload.logger.info({ msg: 'community: roles left to the queued sync', userId, why: (error as Error).message })
    return null
  }
}

const outcomeOf = (failure: DiscordFailure): ConnectRefusal =>
  failure.kind === 'invalid_grant'
    ? refuseConnect('invalid_state')
    : failure.kind === 'invalid_user_token'
      ? refuseConnect('access_denied')
      : refuseConnect('discord_unavailable')

/**
 * Step 2: the callback's outcome (the caller redirects to the dashboard with it and clears the cookie).
 * The way back from Discord is a cross-site navigation, on which Payload does not read its session
 * cookie (its CSRF check): the account is the one the state was issued to, and the state must come with
 * the signed cookie of the browser that asked for it. A session the request does carry must be that account's.
 */
export const finishDiscordConnect = async (
  req: PayloadRequest,
  runtime: CommunityRuntime,
  session: User | null,
  input: { code?: string; state?: string; error?: string; cookie?: string },
): Promise<ConnectOutcome> => {
  const refused = (why: string) => {
    req.payload.logger.info({ msg: 'community: a Discord callback was refused', userId: session?.id ?? null, why })
    return refuseConnect('invalid_state')
  }
  const pending = readCookie(runtime, input.cookie)
  if (!pending) return refused(input.cookie ? 'the state cookie is not ours' : 'no state cookie')
  if (!input.state || !sameText(pending.state, input.state)) return refused('the state is not the cookie’s')
  const consumed = await consumeAuthToken(req.payload, 'discord_state', input.state)
  if (!consumed?.userId) return refused('the state is unknown, used or expired')
  if (session && consumed.userId !== session.id) return refused('the state was issued to another account')
  const user = { id: consumed.userId }
  if (input.error) return refuseConnect('access_denied')
  if (!input.code) return refuseConnect('invalid_state')
  const discord = runtime.discord()
  let accessToken: string
  try {
    accessToken = await discord.exchangeCode(input.code, pending.verifier)
  } catch (error) {
    return outcomeOf(discordFailure(error, 'user'))
  }
  try {
    const account = await discord.userOf(accessToken)
    // A refund may have landed while the customer was on Discord.
    if ((await entitledRoles(req.payload, user.id)).length === 0) return refuseConnect('feature_required')
    if (await heldByAnother(req.payload, user.id, account.id)) return refuseConnect('discord_already_linked')
    await discord.addMember(account.id, accessToken)
    try {
      await recordLink(req.payload, user.id, account)
    } catch (error) {
      if (isUniqueViolation(error)) return refuseConnect('discord_already_linked')
      throw error
    }
  } catch (error) {
    if (error instanceof ServiceError) throw error
    const failure = discordFailure(error, 'user')
    req.payload.logger.warn({ msg: 'community: connecting Discord failed', userId: user.id, kind: failure.kind })
    return outcomeOf(failure)
  } finally {
    await discord.revokeUserToken(accessToken)
  }
  await syncNow(req.payload, runtime, user.id)
  return 'joined'
}

/** DELETE /api/community/discord: the link goes at once; the roles come off now, or through the queued job. */
export const disconnectDiscord = async (payload: Payload, runtime: CommunityRuntime, userId: number) => {
  const unlinked = await inTransaction(payload, async (tx) => {
    const rows = await execute(
      tx,
      sql`UPDATE ${discord_links} SET ${bare(discord_links.discordUserId)} = NULL, ${bare(discord_links.discordUsername)} = NULL,
            ${bare(discord_links.updatedAt)} = now()
          WHERE ${discord_links.user} = ${userId} AND ${discord_links.discordUserId} IS NOT NULL RETURNING ${discord_links.id}`,
    )
    if (rows.length > 0) await tx.payload.jobs.queue({ task: 'syncCommunityRoles', input: { userId }, req: tx })
    return rows.length > 0
  })
  if (unlinked) await syncNow(payload, runtime, userId)
}
