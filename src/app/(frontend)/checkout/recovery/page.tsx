import type { Metadata } from 'next'
import Link from 'next/link'

import { PRODUCT_NAME } from '../../../../config/product'
import { ScriptFree } from '../../_components/ScriptFree'

export const metadata: Metadata = {
  title: `Your saved checkout · ${PRODUCT_NAME}`,
  robots: { index: false, follow: false },
}

type Props = { searchParams: Promise<{ link?: string }> }

/** Why the recovery email's link (/checkout/recover/<id>) opened no checkout: src/recovery/reopen.ts. */
const WORDS = {
  expired: {
    title: 'This checkout has expired',
    text: 'A saved checkout can be reopened for 30 days, and this one is older. Nothing was charged: choose your plan again to start a new checkout.',
    action: { href: '/pricing', label: 'See the plans' },
  },
  complete: {
    title: 'This checkout is already paid',
    text: 'You finished this purchase, so there is nothing left to pay. Your license and downloads are on your dashboard.',
    action: { href: '/dashboard', label: 'Go to my dashboard' },
  },
  invalid: {
    title: 'This link does not open a checkout',
    text: 'The link is incomplete or was changed. Open it again from the email, or choose your plan again to start a new checkout.',
    action: { href: '/pricing', label: 'See the plans' },
  },
} as const

const CheckoutRecoveryPage = async ({ searchParams }: Props) => {
  const { link } = await searchParams
  const words = link === 'expired' || link === 'complete' ? WORDS[link] : WORDS.invalid
  return (
    <section className="auth" data-testid="checkout-recovery">
      <ScriptFree />
      <h1>{words.title}</h1>
      <p>{words.text}</p>
      <p>
        <Link className="button" href={words.action.href}>
          {words.action.label}
        </Link>
      </p>
    </section>
  )
}

export default CheckoutRecoveryPage
