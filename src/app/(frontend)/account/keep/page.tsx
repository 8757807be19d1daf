import type { Metadata } from 'next'

import { PRODUCT_NAME } from '../../../../config/product'
import { errorSentence } from '../../../../http/error-sentences'
import { keepAccount } from './actions'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = {
  title: `Keep your account · ${PRODUCT_NAME}`,
  robots: { index: false, follow: false },
  // The link's token is in this page's address: no other site is told it.
  referrer: 'no-referrer',
}

type Props = { searchParams: Promise<{ token?: string; kept?: string; error?: string }> }

/**
 * The deletion email's "Keep my account" link (src/privacy/deletion.ts). Opening it changes nothing (a
 * mail scanner may open links); the button posts the token, which works once, without signing in.
 */
const KeepAccountPage = async ({ searchParams }: Props) => {
  const { token, kept, error } = await searchParams
  return (
    <section className="auth">
      <h1>Keep your account</h1>
      {error ? (
        <p role="alert" className="error">
          {errorSentence(error)}
        </p>
      ) : null}
      {kept ? (
        <p role="status" className="notice" data-testid="account-kept">
          Your account stays: the deletion is cancelled and nothing was erased. You can sign in as before.
        </p>
      ) : typeof token === 'string' && token !== '' ? (
        <form action={keepAccount}>
          <p>Your account is waiting to be deleted. Press the button to cancel that and keep everything as it is.</p>
          <input type="hidden" name="token" value={token} />
          <button type="submit" data-testid="keep-account">
            Keep my account
          </button>
        </form>
      ) : (
        <p>Open the link from the email we sent when the deletion was asked for.</p>
      )}
    </section>
  )
}

export default KeepAccountPage
