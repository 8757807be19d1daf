import crypto from 'node:crypto'

import type { PayloadRequest } from 'payload'

import type { SqlRow } from '../db/rows'
import { affiliate_commissions, affiliate_payouts, affiliates } from '../db/schema.generated'
import { bare, execute, sql } from '../db/transaction'
import { ServiceError } from '../http/errors'
import { csvCell } from '../staff/insights'
import { inStaffTransaction, recordAudit } from '../staff/audit'

export type RecordedPayout = { id: number; currency: string; amount: number; commissions: number; reference: string }

/**
 * An admin records a payout (money sent outside the service): under the affiliate's row lock, every
 * available commission and adjustment of each currency (or of `currency`) whose total is positive is
 * marked paid by one new payout per currency; a negative total waits for the next sales. Two admins at
 * once: the second waits for the lock, then finds nothing available (409 `nothing_available`).
 */
export const recordPayout = async (
  req: PayloadRequest,
  affiliateId: number,
  { reason, currency }: { reason: string; currency?: string },
): Promise<RecordedPayout[]> =>
  inStaffTransaction(req, async (tx) => {
    const [affiliate] = await execute<Pick<SqlRow<typeof affiliates>, 'id' | 'code' | 'payout_email'>>(
      tx,
      sql`SELECT ${affiliates.id}, ${affiliates.code}, ${affiliates.payoutEmail} FROM ${affiliates}
          WHERE ${affiliates.id} = ${affiliateId} FOR UPDATE`,
    )
    if (!affiliate) throw new ServiceError(404, 'not_found', 'There is no such affiliate.')
    const c = affiliate_commissions
    const available = sql`${c.affiliate} = ${affiliateId} AND ${c.status} = 'pending' AND ${c.availableAt} <= now()
      AND ${c.payout} IS NULL ${currency ? sql`AND ${c.currency} = ${currency.toLowerCase()}` : sql``}`
    const totals = await execute<{ currency: string; total: string }>(
      tx,
      sql`SELECT ${c.currency} AS currency, sum(${c.amount}) AS total FROM ${c} WHERE ${available}
          GROUP BY ${c.currency} HAVING sum(${c.amount}) > 0 ORDER BY ${c.currency}`,
    )
    if (totals.length === 0) {
      throw new ServiceError(409, 'nothing_available', 'This affiliate has no available commission to pay out.')
    }
    const payouts: RecordedPayout[] = []
    for (const { currency: code } of totals) {
      const p = affiliate_payouts
      const reference = `po_${crypto.randomBytes(9).toString('base64url')}`
      const [payout] = await execute<{ id: number }>(
        tx,
        sql`INSERT INTO ${p} (${bare(p.affiliate, p.reference, p.currency, p.amount, p.commissions, p.payoutEmail, p.reason, p.recordedBy)},
              ${bare(p.updatedAt, p.createdAt)})
            VALUES (${affiliateId}, ${reference}, ${code}, 0, 0, ${affiliate.payout_email}, ${reason},
              ${typeof req.user?.id === 'number' ? req.user.id : null}, now(), now())
            RETURNING ${p.id}`,
      )
      // The payout's amount is what the rows it marked add up to, read back from them.
      const marked = await execute<{ amount: string }>(
        tx,
        sql`UPDATE ${c} SET ${bare(c.status)} = 'paid', ${bare(c.payout)} = ${payout!.id}, ${bare(c.updatedAt)} = now()
            WHERE ${available} AND ${c.currency} = ${code} RETURNING ${c.amount}`,
      )
      const amount = marked.reduce((sum, row) => sum + Number(row.amount), 0)
      await execute(
        tx,
        sql`UPDATE ${p} SET ${bare(p.amount)} = ${amount}, ${bare(p.commissions)} = ${marked.length} WHERE ${p.id} = ${payout!.id}`,
      )
      payouts.push({ id: Number(payout!.id), currency: code, amount, commissions: marked.length, reference })
    }
    await recordAudit(tx, {
      action: 'affiliate.payout',
      targetCollection: 'affiliates',
      targetId: String(affiliateId),
      reason,
      before: null,
      after: {
        payouts: payouts.map(({ id, currency: code, amount, commissions }) => ({
          id,
          currency: code,
          amount,
          commissions,
        })),
      },
    })
    return payouts
  })

/** GET /api/staff/affiliates/payouts.csv: every payout, oldest first. */
export const payoutsCsv = async (req: PayloadRequest): Promise<string> => {
  const p = affiliate_payouts
  const rows = await execute<{
    id: number
    code: string
    payout_email: string | null
    currency: string
    amount: string
    commissions: string
    created_at: Date | string
  }>(
    req,
    sql`SELECT ${p.id}, ${affiliates.code} AS code, ${p.payoutEmail}, ${p.currency}, ${p.amount}, ${p.commissions}, ${p.createdAt}
        FROM ${p} JOIN ${affiliates} ON ${affiliates.id} = ${p.affiliate} ORDER BY ${p.createdAt}, ${p.id}`,
  )
  const lines = ['payout_id,affiliate_code,payout_email,currency,amount,commissions,created_at']
  for (const row of rows) {
    lines.push(
      [
        Number(row.id),
        csvCell(row.code),
        csvCell(row.payout_email ?? ''),
        csvCell(row.currency),
        Number(row.amount),
        Number(row.commissions),
        new Date(row.created_at).toISOString(),
      ].join(','),
    )
  }
  return `${lines.join('\r\n')}\r\n`
}
