import type { Metadata } from 'next'
import Link from 'next/link'

import { PRODUCT_NAME } from '../../../../config/product'
import { ScriptFree } from '../../_components/ScriptFree'
import { addressOfUnsubscribeToken } from '../../../../recovery/links'
import { getPayloadClient } from '../../../_lib/session'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = {
  title: `Unsubscribe · ${PRODUCT_NAME}`,
  robots: { index: false, follow: false },
  // The link's token is in this page's address: no other site is told it.
  referrer: 'no-referrer',
}

type Props = { params: Promise<{ token: string }>; searchParams: Promise<{ done?: string }> }

/** "ana@example.com" → "a••@example.com": enough to recognise one's own address. */
const masked = (address: string) => {
  const [name = '', domain = ''] = address.split('@')
  return `${name.slice(0, 1)}${'•'.repeat(Math.min(Math.max(name.length - 1, 2), 6))}@${domain}`
}

/**
 * The recovery email's unsubscribe link. Opening it changes nothing (mail scanners open links); the
 * button posts `List-Unsubscribe=One-Click` to the same URL a mail client's own unsubscribe uses.
 */
const UnsubscribePage = async ({ params, searchParams }: Props) => {
  const { token } = await params
  const { done } = await searchParams
  const address = addressOfUnsubscribeToken((await getPayloadClient()).secret, token)
  return (
    <section className="auth" data-testid="unsubscribe">
      <ScriptFree />
      <h1>Unsubscribe</h1>
      {!address ? (
        <p role="alert" className="error">
          This unsubscribe link is not valid. Use the link from the latest email we sent you.
        </p>
      ) : done ? (
        <p role="status" className="notice" data-testid="unsubscribed">
          Done: {masked(address)} gets no more reminders about unfinished checkouts. Receipts, licenses and sign-in
          links still arrive.
        </p>
      ) : (
        <form method="post" action={`/api/email/unsubscribe/${encodeURIComponent(token)}`}>
          <p>
            Stop reminder emails about unfinished checkouts to {masked(address)}? Receipts, licenses and sign-in links
            still arrive.
          </p>
          <input type="hidden" name="List-Unsubscribe" value="One-Click" />
          <button type="submit" data-testid="unsubscribe-button">
            Unsubscribe
          </button>
        </form>
      )}
      <p>
        <Link href="/">Back to {PRODUCT_NAME}</Link>
      </p>
    </section>
  )
}

export default UnsubscribePage
