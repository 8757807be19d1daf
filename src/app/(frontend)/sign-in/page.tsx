import Link from 'next/link'

import { AUTH_ERRORS } from '../../../auth/messages'
import { ScriptFree } from '../_components/ScriptFree'
import { OAuthButtons } from '../_components/OAuthButtons'
import { sendConfirmationAgain, sendMagicLink, signIn } from './actions'

type Props = {
  searchParams: Promise<{
    error?: string
    next?: string
    sent?: string
    confirmation_sent?: string
    /** `seat`: a team invitation's link sent them here, its token waiting in a cookie (src/teams/claim-link.ts). */
    notice?: string
  }>
}

const SignInPage = async ({ searchParams }: Props) => {
  const { error, next, sent, confirmation_sent: confirmationSent, notice } = await searchParams
  const nextQuery = next ? `?next=${encodeURIComponent(next)}` : ''
  return (
    <section className="auth">
      <ScriptFree />
      <h1>Sign in</h1>
      {notice === 'seat' ? (
        <p role="status" className="notice" data-testid="seat-sign-in-notice">
          Sign in, or <Link href={`/sign-up${nextQuery}`}>create an account</Link>, with the email address the
          invitation was sent to. Your seat is claimed as soon as you do.
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="error">
          {AUTH_ERRORS[error] ?? 'Something went wrong. Please try again.'}
        </p>
      ) : null}
      {sent ? (
        <p role="status" className="notice">
          If that address can sign in, a sign-in link is on its way. It works once, within 10 minutes.
        </p>
      ) : null}
      {confirmationSent ? (
        <p role="status" className="notice">
          If that address has an account waiting for confirmation, a new confirmation link is on its way.
        </p>
      ) : null}
      <form action={signIn}>
        <input type="hidden" name="next" value={next ?? ''} />
        <label>
          Email <input type="email" name="email" autoComplete="email" required />
        </label>
        <label>
          Password <input type="password" name="password" autoComplete="current-password" required />
        </label>
        <button type="submit">Sign in</button>
      </form>
      <p>
        <Link href="/reset-password">Forgot your password?</Link>
      </p>
      <OAuthButtons next={next} />
      <h2>Or get a sign-in link</h2>
      <form action={sendMagicLink}>
        <input type="hidden" name="next" value={next ?? ''} />
        <label>
          Email <input type="email" name="email" autoComplete="email" required />
        </label>
        <button type="submit">Email me a link</button>
      </form>
      <h2>Signed up but not confirmed yet?</h2>
      <p>A password works once the email address is confirmed.</p>
      <form action={sendConfirmationAgain}>
        <label>
          Email <input type="email" name="email" autoComplete="email" required />
        </label>
        <button type="submit">Email me a new confirmation link</button>
      </form>
      <p>
        No account yet? <Link href={`/sign-up${nextQuery}`}>Sign up</Link>
      </p>
    </section>
  )
}

export default SignInPage
