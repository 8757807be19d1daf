import Link from 'next/link'

import { signIn } from '../../../auth/actions'
import { AUTH_ERRORS } from '../../../auth/messages'

type Props = { searchParams: Promise<{ error?: string; next?: string }> }

const SignInPage = async ({ searchParams }: Props) => {
  const { error, next } = await searchParams
  return (
    <section className="auth">
      <h1>Sign in</h1>
      {error ? <p role="alert" className="error">{AUTH_ERRORS[error] ?? 'Something went wrong. Please try again.'}</p> : null}
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
        No account yet? <Link href={next ? `/sign-up?next=${encodeURIComponent(next)}` : '/sign-up'}>Sign up</Link>
      </p>
    </section>
  )
}

export default SignInPage
