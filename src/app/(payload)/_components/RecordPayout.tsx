'use client'

import { Button, Drawer, toast, useAuth, useDocumentInfo, useDrawerSlug, useModal } from '@payloadcms/ui'
import { useId, useState } from 'react'

import { formatMinorAmount } from '../../../plans/format'

/** One payout as POST /api/staff/affiliates/:id/payouts answers it (src/affiliates/payouts.ts). */
type Payout = { id: number; currency: string; amount: number; commissions: number; reference: string }
type Answer = { payouts?: Payout[]; errors?: { code?: string; message: string }[] }

type Result = { ok: true; lines: string[] } | { ok: false; text: string } | null

const MAX_REASON = 500
const CURRENCY = /^[A-Za-z]{3}$/

/** "Recorded a payout of $44.70 (1 commission)": what one currency's payout covered. */
export const payoutSentence = (payout: Pick<Payout, 'amount' | 'currency' | 'commissions'>): string =>
  `Recorded a payout of ${formatMinorAmount(payout.amount, payout.currency, { keepZeros: true })} (${payout.commissions} ${payout.commissions === 1 ? 'commission' : 'commissions'})`

/** Why nothing was recorded, with what to do about it where the endpoint's message leaves it out. */
const refusal = (status: number, answer: Answer): string => {
  const error = answer.errors?.[0]
  if (error?.code === 'nothing_available')
    return `${error.message} Commissions become available when their refund period ends; pending ones are not paid out yet.`
  return error?.message ?? `The payout could not be recorded (${status}).`
}

/**
 * "Record payout" on an affiliate's page (beside Save), for admins: a drawer asks what was sent and,
 * optionally, which currency, then POSTs to /api/staff/affiliates/:id/payouts, which marks every
 * available commission paid, one payout per currency, and writes the audit log. The money itself is
 * sent outside the service. Support sees the button disabled: only admins record payouts (the
 * endpoint checks it again).
 */
export const RecordPayout = () => {
  const { id, data } = useDocumentInfo()
  const { user } = useAuth<{ roles?: string[] }>()
  const { openModal, closeModal } = useModal()
  const slug = useDrawerSlug('record-payout')
  const reasonId = useId()
  const currencyId = useId()
  const [reason, setReason] = useState('')
  const [currency, setCurrency] = useState('')
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<Result>(null)
  if (!id) return null
  if (!user?.roles?.includes('admin')) {
    return (
      <Button
        buttonStyle="secondary"
        disabled
        margin={false}
        size="medium"
        tooltip="Only an admin can record a payout."
      >
        Record payout (admins only)
      </Button>
    )
  }
  const payoutEmail = (data as { payoutEmail?: string } | undefined)?.payoutEmail
  const currencyValid = currency.trim() === '' || CURRENCY.test(currency.trim())
  const open = () => {
    setResult(null)
    openModal(slug)
  }
  const record = async () => {
    setBusy(true)
    setResult(null)
    try {
      const response = await fetch(`/api/staff/affiliates/${id}/payouts`, {
        method: 'POST',
        credentials: 'include',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason, currency: currency.trim() === '' ? undefined : currency.trim() }),
      })
      const answer = (await response.json().catch(() => ({}))) as Answer
      if (!response.ok) {
        setResult({ ok: false, text: refusal(response.status, answer) })
        return
      }
      const lines = (answer.payouts ?? []).map((payout) => `${payoutSentence(payout)}.`)
      setResult({ ok: true, lines })
      toast.success(lines.join(' ') || 'Payout recorded.')
      setReason('')
      setCurrency('')
    } catch {
      setResult({ ok: false, text: 'The server could not be reached. Try again.' })
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <Button buttonStyle="secondary" margin={false} onClick={open} size="medium">
        Record payout
      </Button>
      <Drawer slug={slug} title="Record payout">
        <div className="staff-actions">
          <p className="staff-actions__none">
            Send the money first, outside this service{payoutEmail ? ` (to ${payoutEmail})` : ''}. Recording the payout
            then marks every available commission of this affiliate as paid, one payout per currency, and keeps your
            note in the audit log. Commissions still in their refund period stay pending for a later payout.
          </p>
          <label className="staff-actions__label" htmlFor={reasonId}>
            What you sent, and how <span>(required, kept in the audit log)</span>
          </label>
          <textarea
            className="staff-actions__reason"
            id={reasonId}
            maxLength={MAX_REASON}
            onChange={(event) => setReason(event.target.value)}
            placeholder="PayPal transfer of March commissions, reference 8XK2…"
            rows={3}
            value={reason}
          />
          <p className="staff-actions__count">
            {reason.length}/{MAX_REASON}
          </p>
          <label className="staff-actions__label" htmlFor={currencyId}>
            Only this currency <span>(optional)</span>
          </label>
          <input
            aria-describedby={`${currencyId}-hint`}
            aria-invalid={!currencyValid}
            className="staff-actions__reason"
            id={currencyId}
            maxLength={3}
            onChange={(event) => setCurrency(event.target.value)}
            placeholder="USD"
            type="text"
            value={currency}
          />
          <p className="staff-actions__none" id={`${currencyId}-hint`}>
            {currencyValid
              ? 'Three letters, such as USD or EUR. Leave it empty to record a payout in every currency with money available.'
              : 'A currency is three letters, such as USD or EUR.'}
          </p>
          {result &&
            (result.ok ? (
              <div className="webhook-result" role="status">
                {result.lines.map((line) => (
                  <p key={line}>{line}</p>
                ))}
              </div>
            ) : (
              <p className="staff-actions__error" role="alert">
                {result.text}
              </p>
            ))}
          <div className="staff-actions__buttons">
            <Button
              buttonStyle="primary"
              disabled={busy || reason.trim() === '' || !currencyValid}
              margin={false}
              onClick={record}
              size="small"
            >
              {busy ? 'Recording…' : 'Record payout'}
            </Button>
            <Button
              buttonStyle="secondary"
              disabled={busy}
              margin={false}
              onClick={() => closeModal(slug)}
              size="small"
            >
              {result?.ok ? 'Close' : 'Cancel'}
            </Button>
          </div>
        </div>
      </Drawer>
    </>
  )
}
