'use client'

import { Button, toast, useDocumentInfo } from '@payloadcms/ui'
import { useRouter } from 'next/navigation'
import { useState } from 'react'

/** On a processor event's page: run a failed event again. */
export const RetryEventButton = () => {
  const { id, data } = useDocumentInfo()
  const router = useRouter()
  const [busy, setBusy] = useState(false)
  if (!id || (data?.status !== 'failed' && data?.status !== 'received')) return null
  const retry = async () => {
    setBusy(true)
    try {
      const response = await fetch(`/api/processor_events/${id}/retry`, { method: 'POST', credentials: 'include' })
      const body = (await response.json()) as { outcome?: string; errors?: { message: string }[] }
      if (response.ok) toast.success(`Event ${body.outcome}`)
      else toast.error(body.errors?.[0]?.message ?? 'The event failed again.')
      router.refresh()
    } finally {
      setBusy(false)
    }
  }
  return (
    <Button buttonStyle="secondary" disabled={busy} onClick={retry} size="medium">
      {busy ? 'Running…' : 'Run again'}
    </Button>
  )
}
