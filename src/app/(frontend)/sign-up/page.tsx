import Link from 'next/link'

import { AUTH_ERRORS } from '../../../auth/messages'
import { ScriptFree } from '../_components/ScriptFree'
import { OAuthButtons } from '../_components/OAuthButtons'
import { signUp } from './actions'

type Props = { searchParams: Promise<{ error?: string; next?: string; sent?: string }> }

const SignUpPage = async ({ searchParams }: Props) => {
  const { error, next, sent } = await searchParams
  if (sent) {
    return (
      <section className="auth">
        <ScriptFree />
        <h1>Check your email</h1>
        <p role="status">
          We sent a link to confirm your address. Open it to finish signing up; it works for 24 hours.
        </p>
      </section>
    )
  }
  return (
    <section className="auth">
      <ScriptFree />
      <h1>Create your account</h1>
      {error ? (
        <p role="alert" className="error">
          {AUTH_ERRORS[error] ?? 'Something went wrong. Please try again.'}
        </p>
      ) : null}
      <form action={signUp}>
        <input type="hidden" name="next" value={next ?? ''} />
        <label>
          Name <input type="text" name="name" autoComplete="name" />
        </label>
        <label>
          Email <input type="email" name="email" autoComplete="email" required />
        </label>
        <label>
          Password <input type="password" name="password" autoComplete="new-password" minLength={10} required />
        </label>
        <button type="submit">Sign up</button>
      </form>
      <OAuthButtons next={next} />
      <p>
        Already have an account?{' '}
        <Link href={next ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in'}>Sign in</Link>
      </p>
    </section>
  )
}

export default SignUpPage
