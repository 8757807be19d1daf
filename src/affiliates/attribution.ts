import crypto from 'node:crypto'

import type { Payload, PayloadRequest } from 'payload'

import type { SqlRow } from '../db/rows'
import {
  affiliate_clicks,
  affiliate_referrals,
  affiliates,
  payment_history,
  user_subscriptions,
  users,
} from '../db/schema.generated'
import { bare, execute, executeOn, sql } from '../db/transaction'
import { readReferral, referralCookie, signReferral } from './referral'
import type { AffiliatesRuntime } from './runtime'
import { AFFILIATE_CODE } from './states'

const DAY_MS = 86_400_000

/** The visitor of one day: an HMAC of the day, the address and the code, so no address is stored or derivable. */
const visitorKey = (secret: string, day: string, address: string | null, code: string) =>
  crypto
    .createHmac('sha256', Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), 'affiliate-visitor/v1', 32)))
    .update(`${day}|${address ?? 'unknown'}|${code}`)
    .digest('base64url')

/**
 * A page visit through `?via=<code>` (the express host calls this for page GETs): for an active
 * affiliate, the day's click of this visitor (once per visitor, code and day) and the Set-Cookie of the
 * signed referral; null for an unknown, pending or disabled code. The page itself is not changed.
 */
export const recordReferralVisit = async (
  payload: Payload,
  runtime: AffiliatesRuntime,
  visit: { via: string; address: string | null; now?: Date },
): Promise<string | null> => {
  const code = visit.via.trim().toLowerCase()
  if (!AFFILIATE_CODE.test(code)) return null
  const [affiliate] = await executeOn<Pick<SqlRow<typeof affiliates>, 'id'>>(
    payload,
    undefined,
    sql`SELECT ${affiliates.id} FROM ${affiliates} WHERE ${affiliates.code} = ${code} AND ${affiliates.status} = 'active'`,
  )
  if (!affiliate) return null
  const now = visit.now ?? new Date()
  const day = now.toISOString().slice(0, 10)
  const key = visitorKey(payload.secret, day, visit.address, code)
  const c = affiliate_clicks
  const [click] = await executeOn<{ id: number }>(
    payload,
    undefined,
    sql`WITH inserted AS (
          INSERT INTO ${c} (${bare(c.affiliate, c.visitorKey, c.day, c.updatedAt, c.createdAt)})
          VALUES (${affiliate.id}, ${key}, ${day}, now(), now())
          ON CONFLICT (${bare(c.affiliate, c.visitorKey)}) DO NOTHING RETURNING ${c.id})
        SELECT id FROM inserted
        UNION ALL SELECT ${c.id} FROM ${c} WHERE ${c.affiliate} = ${affiliate.id} AND ${c.visitorKey} = ${key}
        LIMIT 1`,
  )
  if (!click) return null
  const value = signReferral(payload.secret, { code, clickId: Number(click.id), issuedAt: now.getTime() })
  return referralCookie(value, runtime.settings.cookieDays, runtime.serverUrl.startsWith('https://'))
}

/**
 * What a plan checkout tells the processor of its referral (`metadata.affiliate`, `affiliate_click`): a
 * signed, unexpired cookie of an active affiliate who is not the buyer. Anything else adds nothing.
 */
export const referralMetadata = async (
  req: PayloadRequest,
  runtime: AffiliatesRuntime | undefined,
  cookie: string | null,
  buyer: { id: number; email: string } | null,
): Promise<Record<string, string>> => {
  if (!runtime || !cookie) return {}
  const referral = readReferral(req.payload.secret, cookie, runtime.settings.cookieDays * DAY_MS)
  if (!referral) return {}
  const [affiliate] = await execute<{ id: number; user_id: number; email: string }>(
    req,
    sql`SELECT ${affiliates.id}, ${affiliates.user}, ${users.email} FROM ${affiliates}
        JOIN ${users} ON ${users.id} = ${affiliates.user}
        WHERE ${affiliates.code} = ${referral.code} AND ${affiliates.status} = 'active'`,
  )
  if (!affiliate) return {}
  if (buyer && (Number(affiliate.user_id) === buyer.id || affiliate.email.toLowerCase() === buyer.email.toLowerCase()))
    return {}
  return { affiliate: referral.code, affiliate_click: String(referral.clickId) }
}

/**
 * A paid or started checkout that carried an affiliate's code, in its webhook's transaction: the referred
 * sale (its payment intent or subscription), once; payments of it already recorded (their events came
 * first) get their commission synced.
 */
export const recordReferral = async (
  req: PayloadRequest,
  sale: {
    metadata: Record<string, string> | null | undefined
    kind: 'purchase' | 'subscription'
    processorRef: string | null
    checkoutSessionId: string
  },
): Promise<void> => {
  const code = sale.metadata?.affiliate
  if (!code || !sale.processorRef) return
  const [affiliate] = await execute<{ id: number }>(
    req,
    sql`SELECT ${affiliates.id} FROM ${affiliates} WHERE ${affiliates.code} = ${code}`,
  )
  if (!affiliate) return
  const clickId = Number(sale.metadata?.affiliate_click)
  const userId = Number(sale.metadata?.user_id)
  const r = affiliate_referrals
  const [inserted] = await execute<{ id: number }>(
    req,
    sql`INSERT INTO ${r} (${bare(r.affiliate, r.processorRef, r.kind, r.click, r.user, r.checkoutSessionId, r.updatedAt, r.createdAt)})
        VALUES (${affiliate.id}, ${sale.processorRef}, ${sale.kind},
          (SELECT ${affiliate_clicks.id} FROM ${affiliate_clicks} WHERE ${affiliate_clicks.id} = ${Number.isSafeInteger(clickId) ? clickId : null} AND ${affiliate_clicks.affiliate} = ${affiliate.id}),
          (SELECT ${users.id} FROM ${users} WHERE ${users.id} = ${Number.isSafeInteger(userId) ? userId : null}),
          ${sale.checkoutSessionId}, now(), now())
        ON CONFLICT (${bare(r.processorRef)}) DO NOTHING RETURNING ${r.id}`,
  )
  if (!inserted) return
  const payments = await execute<{ id: number }>(
    req,
    sale.kind === 'purchase'
      ? sql`SELECT ${payment_history.id} FROM ${payment_history} WHERE ${payment_history.processorPaymentId} = ${sale.processorRef}`
      : sql`SELECT ${payment_history.id} FROM ${payment_history} JOIN ${user_subscriptions} ON ${user_subscriptions.id} = ${payment_history.subscription}
            WHERE ${user_subscriptions.processorSubscriptionId} = ${sale.processorRef}`,
  )
  for (const payment of payments) {
    await req.payload.jobs.queue({ task: 'syncCommission', input: { paymentId: Number(payment.id) }, req })
  }
}
