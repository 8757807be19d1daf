'use client'

import { Button, toast, useAuth, useDocumentInfo } from '@payloadcms/ui'
import { useRouter } from 'next/navigation'
import { useState } from 'react'

type Delivery = {
  outcome: 'succeeded' | 'failed'
  responseStatus: number | null
  durationMs: number | null
  error: string | null
}
type Answer = { secret?: string; previousSecretExpiresAt?: string; delivery?: Delivery; errors?: { message: string }[] }

/** POST to an admin action (endpoints/webhook-endpoints.ts) with the admin's session cookie. */
const post = async (path: string): Promise<{ ok: boolean; answer: Answer }> => {
  try {
    const response = await fetch(path, { method: 'POST', credentials: 'include' })
    return { ok: response.ok, answer: (await response.json().catch(() => ({}))) as Answer }
  } catch {
    return { ok: false, answer: { errors: [{ message: 'The server could not be reached. Try again.' }] } }
  }
}

/** One sentence about an attempt, as the delivery's row says it. */
const deliverySentence = (delivery: Delivery): string =>
  delivery.outcome === 'succeeded'
    ? `Delivered: the receiver answered ${delivery.responseStatus} in ${delivery.durationMs} ms.`
    : `Failed${delivery.responseStatus ? ` (HTTP ${delivery.responseStatus})` : ''}: ${delivery.error ?? 'no answer'}`

type Result = { ok: boolean; text: string } | null

/** What the last action did: a status line, or an alert when it failed. */
const ActionResult = ({ result }: { result: Result }) =>
  result && (
    <p className={result.ok ? 'webhook-result' : 'staff-actions__error'} role={result.ok ? 'status' : 'alert'}>
      {result.text}
    </p>
  )

/** Shows a secret once, with a copy button; gone when the page is left. */
const SecretOnce = ({ secret, note }: { secret: string; note: string }) => (
  <div className="webhook-secret" role="status">
    <p className="webhook-secret__note">{note}</p>
    <code className="webhook-secret__value">{secret}</code>
    <Button
      buttonStyle="secondary"
      margin={false}
      onClick={() => void navigator.clipboard?.writeText(secret).then(() => toast.success('Secret copied.'))}
      size="small"
    >
      Copy secret
    </Button>
  </div>
)

/**
 * The webhook endpoint's actions in its sidebar: show the signing secret (once), rotate it, send a
 * test event. Each answers here; the page refreshes to show the dates and the delivery.
 */
export const WebhookEndpointActions = () => {
  const { id, data } = useDocumentInfo()
  const router = useRouter()
  const [busy, setBusy] = useState(false)
  const [secret, setSecret] = useState<{ value: string; note: string } | null>(null)
  const [result, setResult] = useState<Result>(null)
  const [confirmRotate, setConfirmRotate] = useState(false)
  if (!id) return <p className="staff-actions__none">Save the endpoint to get its signing secret.</p>
  const run = async (path: string, onDone: (answer: Answer) => void) => {
    setBusy(true)
    setResult(null)
    const { ok, answer } = await post(path)
    setBusy(false)
    if (!ok) {
      setResult({ ok: false, text: answer.errors?.[0]?.message ?? 'The action failed.' })
      return
    }
    onDone(answer)
    router.refresh()
  }
  const shown = Boolean((data as { secretShownAt?: string | null } | undefined)?.secretShownAt)
  return (
    <div className="staff-actions">
      <p className="staff-actions__title">Signing secret and tests</p>
      {secret && <SecretOnce note={secret.note} secret={secret.value} />}
      {confirmRotate ? (
        <div className="staff-actions__confirm">
          <p className="staff-actions__none">
            A new secret signs from now on. The current one also signs for 24 hours, so your receiver can switch without
            missing an event.
          </p>
          <div className="staff-actions__buttons">
            <Button
              buttonStyle="primary"
              disabled={busy}
              margin={false}
              onClick={() =>
                run(`/api/staff/webhook-endpoints/${id}/rotate-secret`, (answer) => {
                  setConfirmRotate(false)
                  const until = answer.previousSecretExpiresAt
                    ? new Date(answer.previousSecretExpiresAt).toLocaleString()
                    : 'tomorrow'
                  setSecret({
                    value: answer.secret!,
                    note: `Copy the new secret now: it is not shown again. The old one signs too until ${until}.`,
                  })
                })
              }
              size="small"
            >
              {busy ? 'Working…' : 'Rotate secret'}
            </Button>
            <Button
              buttonStyle="secondary"
              disabled={busy}
              margin={false}
              onClick={() => setConfirmRotate(false)}
              size="small"
            >
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        <div className="staff-actions__buttons">
          {!shown && !secret && (
            <Button
              buttonStyle="primary"
              disabled={busy}
              margin={false}
              onClick={() =>
                run(`/api/staff/webhook-endpoints/${id}/reveal-secret`, (answer) =>
                  setSecret({
                    value: answer.secret!,
                    note: 'Copy this secret into your receiver now: it is shown only once.',
                  }),
                )
              }
              size="small"
            >
              Show signing secret
            </Button>
          )}
          <Button
            buttonStyle="secondary"
            disabled={busy}
            margin={false}
            onClick={() => setConfirmRotate(true)}
            size="small"
          >
            Rotate secret
          </Button>
          <Button
            buttonStyle="secondary"
            disabled={busy}
            margin={false}
            onClick={() =>
              run(`/api/staff/webhook-endpoints/${id}/test`, (answer) => {
                const delivery = answer.delivery!
                setResult({ ok: delivery.outcome === 'succeeded', text: `Test event: ${deliverySentence(delivery)}` })
              })
            }
            size="small"
          >
            {busy ? 'Sending…' : 'Send test event'}
          </Button>
        </div>
      )}
      <ActionResult result={result} />
    </div>
  )
}

/** "Send again" on a delivery's page: the same event, with its id, to its endpoint now. */
export const WebhookDeliveryActions = () => {
  const { id } = useDocumentInfo()
  const { user } = useAuth<{ roles?: string[] }>()
  const router = useRouter()
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<Result>(null)
  // Only admins reach a delivery; the endpoint checks it again.
  if (!id || !user?.roles?.includes('admin')) return null
  const sendAgain = async () => {
    setBusy(true)
    setResult(null)
    const { ok, answer } = await post(`/api/staff/webhook-deliveries/${id}/send-again`)
    setBusy(false)
    if (!ok) {
      setResult({ ok: false, text: answer.errors?.[0]?.message ?? 'The action failed.' })
      return
    }
    setResult({ ok: answer.delivery!.outcome === 'succeeded', text: deliverySentence(answer.delivery!) })
    router.refresh()
  }
  return (
    <div className="staff-actions">
      <p className="staff-actions__title">Admin actions</p>
      <p className="staff-actions__none">
        Sends this event again, with the same event id, and records the attempt as a new delivery.
      </p>
      <div className="staff-actions__buttons">
        <Button buttonStyle="secondary" disabled={busy} margin={false} onClick={sendAgain} size="small">
          {busy ? 'Sending…' : 'Send again'}
        </Button>
      </div>
      <ActionResult result={result} />
    </div>
  )
}
