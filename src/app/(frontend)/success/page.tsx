import Link from 'next/link'

type Props = { searchParams: Promise<{ session_id?: string }> }

/** Where the processor sends the buyer after paying. The webhook, not this page, grants the license. */
const SuccessPage = async ({ searchParams }: Props) => {
  const { session_id: sessionId } = await searchParams
  return (
    <section>
      <h1>Thank you for your purchase</h1>
      <p>
        Your payment is confirmed with the processor. Your license key is on its way to your inbox and appears in your
        dashboard within moments.
      </p>
      {sessionId ? <p className="muted">Reference: {sessionId.replace(/[^A-Za-z0-9_]/g, '').slice(0, 80)}</p> : null}
      <p>
        <Link href="/dashboard">Go to your dashboard</Link>
      </p>
    </section>
  )
}

export default SuccessPage
