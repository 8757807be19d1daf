import type { Metadata } from 'next'
import Link from 'next/link'
import { headers } from 'next/headers'

import { enforceRateLimit } from '../../../auth/rate-limit'
import { type CheckoutView, checkoutView, retrieveCheckoutSession } from '../../../billing/checkout-status'
import { PRODUCT_NAME } from '../../../config/product'
import { clientAddress } from '../../../http/client-address'
import { ERROR_SENTENCES } from '../../../http/error-sentences'
import { ServiceError } from '../../../http/errors'
import { currentUser, getPayloadClient } from '../../_lib/session'
import { CopyButton } from '../_components/CopyButton'
import { LICENSE_STATUS_WORDS } from '../dashboard/words'
import { sendCheckoutSignInLink } from './actions'
import { Refresher } from './Refresher'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: `Thank you · ${PRODUCT_NAME}`, robots: { index: false } }

type Props = { searchParams: Promise<{ session_id?: string; sent?: string; link_error?: string }> }

/** The service's sentences, with the two the sign-in link form says in its own words. */
const LINK_ERRORS: Record<string, string> = {
  ...ERROR_SENTENCES,
  rate_limited: 'Too many sign-in links were asked for. Please wait a few minutes and try again.',
  invalid_request: 'That checkout cannot send a sign-in link. Sign in with your checkout email instead.',
}

const load = async (sessionId: string | undefined): Promise<CheckoutView | 'rate_limited' | 'unavailable'> => {
  if (!sessionId) return { kind: 'unknown' }
  const payload = await getPayloadClient()
  const viewer = await currentUser()
  try {
    await enforceRateLimit(payload, 'checkout_status', { address: clientAddress(await headers()) })
    return await checkoutView(payload, await retrieveCheckoutSession(payload, sessionId), viewer)
  } catch (error) {
    return error instanceof ServiceError && error.code === 'rate_limited' ? 'rate_limited' : 'unavailable'
  }
}

/**
 * Where the processor sends the buyer after paying. The webhook, not this page, grants the license:
 * the page asks the processor whether the checkout is paid, shows the license to its buyer once the
 * webhook has granted it (checking again with a backoff meanwhile), and shows anyone else no more
 * than the masked checkout email with a way to sign in.
 */
const SuccessPage = async ({ searchParams }: Props) => {
  const { session_id: sessionId, sent, link_error: linkError } = await searchParams
  const view = await load(sessionId)
  const signInHref = `/sign-in?next=${encodeURIComponent(`/success?session_id=${sessionId ?? ''}`)}`
  return (
    <section className="success card">
      {view === 'rate_limited' || view === 'unavailable' ? (
        <>
          <h1>Thank you</h1>
          <p>
            {view === 'rate_limited'
              ? 'This page was reloaded very often; please wait a few minutes.'
              : 'We could not reach the payment processor to confirm this checkout just now.'}{' '}
            If you paid, your license is on its way to your inbox and to your <Link href="/dashboard">dashboard</Link>.
          </p>
        </>
      ) : view.kind === 'unknown' ? (
        <>
          <h1>We could not find that checkout</h1>
          <p>
            The link may be incomplete. If you paid, your license is in your inbox and on your{' '}
            <Link href="/dashboard">dashboard</Link>.
          </p>
        </>
      ) : view.kind === 'unpaid' ? (
        <>
          <h1>Your payment is not complete</h1>
          <p>Nothing was charged for this checkout yet. You can start again from the pricing page.</p>
          <a className="button" href="/pricing">
            Back to pricing
          </a>
        </>
      ) : view.kind === 'owner' ? (
        <>
          <h1>Thank you for your purchase</h1>
          {view.license ? (
            <div data-testid="success-license">
              <p>Your {view.planName ?? ''} license is ready. It is also in your inbox and on your dashboard.</p>
              <p className="license-key">
                <code>{view.license.key}</code> <CopyButton text={view.license.key} label="Copy key" />
              </p>
              <p className="muted">
                {LICENSE_STATUS_WORDS[view.license.status].label}:{' '}
                {LICENSE_STATUS_WORDS[view.license.status].explanation}
              </p>
              <a className="button" href="/dashboard#download">
                Download the kit
              </a>
            </div>
          ) : (
            <div data-testid="success-waiting">
              <p>Your payment is confirmed. We are preparing your license; this usually takes a few seconds.</p>
              <Refresher />
              <noscript>
                <meta httpEquiv="refresh" content="5" />
              </noscript>
            </div>
          )}
        </>
      ) : view.kind === 'sign_in' ? (
        <>
          <h1>Thank you for your purchase</h1>
          <p>Sign in with the account you bought with to see your license.</p>
          <a className="button" href={signInHref}>
            Sign in
          </a>
        </>
      ) : view.kind === 'other_account' ? (
        <>
          <h1>This purchase belongs to another account</h1>
          <p>
            You are signed in with a different account from the one that paid. Sign out and sign in with the checkout
            email to see it, or go to <Link href="/dashboard">your dashboard</Link>.
          </p>
        </>
      ) : (
        <>
          <h1>Thank you for your purchase</h1>
          <p>
            Your license is on its way to{' '}
            {view.maskedEmail ? <strong>{view.maskedEmail}</strong> : 'your checkout email'}. To see it on your
            dashboard and download the kit, sign in with that address: we can email you a sign-in link (it creates your
            account the first time).
          </p>
          {sent ? (
            <p role="status" className="notice">
              A sign-in link is on its way to {view.maskedEmail ?? 'your checkout email'}. It works once, within 10
              minutes.
            </p>
          ) : (
            <form action={sendCheckoutSignInLink}>
              <input type="hidden" name="sessionId" value={sessionId ?? ''} />
              <button type="submit">Email me a sign-in link</button>
            </form>
          )}
          {linkError ? (
            <p role="alert" className="error-box">
              {LINK_ERRORS[linkError] ?? 'That did not work; please try again in a minute.'}
            </p>
          ) : null}
          <p className="muted">
            Already have an account with that email? <a href={signInHref}>Sign in</a>.
          </p>
        </>
      )}
    </section>
  )
}

export default SuccessPage
