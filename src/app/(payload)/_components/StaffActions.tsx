'use client'

import { Button, toast, useDocumentInfo } from '@payloadcms/ui'
import { useRouter } from 'next/navigation'
import { useId, useState } from 'react'

import type { StaffActionKey } from '../../../../collections/staff-actions'

type Doc = Record<string, unknown>
type Answer = {
  to?: string
  repoAccess?: { status?: string }
  scheduledFor?: string
  grants?: { state: string }[]
  errors?: { message: string }[]
}

type Action = {
  label: string
  endpoint: (id: string | number) => string
  /** Whether the action applies to the document as saved. */
  applies: (doc: Doc) => boolean
  done: (answer: Answer) => string
}

const MAX_REASON = 500

/** Each action POSTs {reason} to its /api/staff/... endpoint (endpoints/staff.ts), which checks everything again. */
const ACTIONS: Record<StaffActionKey, Action> = {
  'license.revoke': {
    label: 'Revoke license',
    endpoint: (id) => `/api/staff/licenses/${id}/revoke`,
    applies: (doc) => doc.status !== 'revoked',
    done: () => 'License revoked.',
  },
  'license.restore': {
    label: 'Restore license',
    endpoint: (id) => `/api/staff/licenses/${id}/restore`,
    applies: (doc) => doc.status !== 'active',
    done: () => 'License restored.',
  },
  'license.resendEmail': {
    label: 'Resend license email',
    endpoint: (id) => `/api/staff/licenses/${id}/resend-email`,
    applies: (doc) => doc.status === 'active',
    done: (answer) => `License email queued for ${answer.to ?? 'the customer'}.`,
  },
  'repoAccess.resendInvitation': {
    label: 'Resend invitation',
    endpoint: (id) => `/api/staff/repo-access/${id}/resend-invitation`,
    applies: (doc) => doc.status === 'pending' || doc.status === 'failed',
    done: (answer) =>
      answer.repoAccess?.status === 'collaborator'
        ? 'The invitation was accepted already: now a collaborator.'
        : 'Invitation sent again.',
  },
  'apiKey.revoke': {
    label: 'Revoke API key',
    endpoint: (id) => `/api/staff/api-keys/${id}/revoke`,
    applies: (doc) => !doc.revokedAt,
    done: () => 'API key revoked: it opens nothing from now on.',
  },
  'seat.revoke': {
    label: 'Revoke seat',
    endpoint: (id) => `/api/staff/license-seats/${id}/revoke`,
    applies: (doc) => doc.status !== 'revoked',
    done: () => "Seat revoked: the member lost the license's access, and their repository access is being withdrawn.",
  },
  'user.scheduleDeletion': {
    label: 'Delete account (after the grace period)',
    endpoint: (id) => `/api/staff/users/${id}/deletion`,
    applies: (doc) => {
      const deletion = doc.deletion as { scheduledFor?: unknown; erasedAt?: unknown } | undefined
      const roles = Array.isArray(doc.roles) ? doc.roles : []
      return !deletion?.scheduledFor && !deletion?.erasedAt && roles.every((role) => role === 'customer')
    },
    done: (answer) =>
      `Deletion scheduled for ${answer.scheduledFor ? new Date(answer.scheduledFor).toUTCString() : 'the end of the grace period'}: the customer was emailed a link that cancels it.`,
  },
  'user.syncCommunity': {
    label: 'Sync community roles',
    endpoint: (id) => `/api/staff/users/${id}/community-sync`,
    // Customers who connected Discord at some point (the customer view's Discord join lists their link).
    applies: (doc) => ((doc.discordLink as { docs?: unknown[] } | undefined)?.docs?.length ?? 0) > 0,
    done: (answer) =>
      answer.grants
        ? `Discord checked: ${answer.grants.filter((grant) => grant.state === 'granted').length} role(s) given, ${answer.grants.filter((grant) => grant.state === 'failed').length} failed.`
        : 'Discord checked.',
  },
  'activation.remove': {
    label: 'Remove activation',
    endpoint: (id) => `/api/staff/license-activations/${id}/remove`,
    applies: (doc) => !doc.deactivatedAt,
    done: () =>
      "Activation removed: its place under the limit is free (not counted against the customer's daily deactivations).",
  },
}

/**
 * Support actions on a document's edit view (a `ui` field in the sidebar): pick an action, say why,
 * confirm. The staff session cookie authenticates the request; the page refreshes afterwards.
 */
export const StaffActions = ({ actions }: { actions: StaffActionKey[] }) => {
  const { id, data } = useDocumentInfo()
  const router = useRouter()
  const reasonId = useId()
  const [chosen, setChosen] = useState<StaffActionKey | null>(null)
  const [reason, setReason] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  if (!id) return null
  const available = actions.filter((key) => ACTIONS[key].applies(data ?? {}))
  const close = () => {
    setChosen(null)
    setReason('')
    setError(null)
  }
  const run = async (key: StaffActionKey) => {
    setBusy(true)
    setError(null)
    try {
      const response = await fetch(ACTIONS[key].endpoint(id), {
        method: 'POST',
        credentials: 'include',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason }),
      })
      const answer = (await response.json().catch(() => ({}))) as Answer
      if (!response.ok) {
        setError(answer.errors?.[0]?.message ?? `The action failed (${response.status}).`)
        return
      }
      toast.success(ACTIONS[key].done(answer))
      close()
      router.refresh()
    } catch {
      setError('The server could not be reached. Try again.')
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="staff-actions">
      <p className="staff-actions__title">Support actions</p>
      {available.length === 0 && <p className="staff-actions__none">Nothing to do in this state.</p>}
      {chosen === null ? (
        <div className="staff-actions__buttons">
          {available.map((key) => (
            <Button key={key} buttonStyle="secondary" margin={false} onClick={() => setChosen(key)} size="small">
              {ACTIONS[key].label}
            </Button>
          ))}
        </div>
      ) : (
        <div className="staff-actions__confirm">
          <label className="staff-actions__label" htmlFor={reasonId}>
            Why? <span>(required, kept in the audit log)</span>
          </label>
          <textarea
            autoFocus
            className="staff-actions__reason"
            id={reasonId}
            maxLength={MAX_REASON}
            onChange={(event) => setReason(event.target.value)}
            rows={3}
            value={reason}
          />
          <p className="staff-actions__count">
            {reason.length}/{MAX_REASON}
          </p>
          {error && (
            <p className="staff-actions__error" role="alert">
              {error}
            </p>
          )}
          <div className="staff-actions__buttons">
            <Button
              buttonStyle="primary"
              disabled={busy || reason.trim() === ''}
              margin={false}
              onClick={() => run(chosen)}
              size="small"
            >
              {busy ? 'Working…' : ACTIONS[chosen].label}
            </Button>
            <Button buttonStyle="secondary" disabled={busy} margin={false} onClick={close} size="small">
              Cancel
            </Button>
          </div>
        </div>
      )}
    </div>
  )
}
