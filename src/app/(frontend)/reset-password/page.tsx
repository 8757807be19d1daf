import { cookies } from 'next/headers'

import { AUTH_ERRORS } from '../../../auth/messages'
import { RECOVERY_COOKIE } from '../../../auth/recovery'
import { ScriptFree } from '../_components/ScriptFree'
import { sendPasswordReset, setNewPassword } from './actions'

type Props = { searchParams: Promise<{ error?: string; sent?: string; step?: string; confirmed?: string }> }

const ResetPasswordPage = async ({ searchParams }: Props) => {
  const { error, sent, step, confirmed } = await searchParams
  const recovering = step === 'new' && Boolean((await cookies()).get(RECOVERY_COOKIE)?.value)
  return (
    <section className="auth">
      <ScriptFree />
      <h1>{recovering ? (confirmed ? 'Choose your password' : 'Choose a new password') : 'Reset your password'}</h1>
      {error ? (
        <p role="alert" className="error">
          {AUTH_ERRORS[error] ?? 'Something went wrong. Please try again.'}
        </p>
      ) : null}
      {sent ? (
        <p role="status" className="notice">
          If that address has an account, a reset link is on its way. It works once, within an hour.
        </p>
      ) : null}
      {recovering && confirmed ? (
        <p role="status" className="notice">
          Your email address is confirmed. The link was opened in another browser than the one that signed up, so choose
          a password now to finish: the one given at sign-up no longer works.
        </p>
      ) : null}
      {recovering ? (
        <form action={setNewPassword}>
          <label>
            New password <input type="password" name="password" autoComplete="new-password" minLength={10} required />
          </label>
          <button type="submit">Save and sign in</button>
        </form>
      ) : (
        <form action={sendPasswordReset}>
          <label>
            Email <input type="email" name="email" autoComplete="email" required />
          </label>
          <button type="submit">Email me a reset link</button>
        </form>
      )}
    </section>
  )
}

export default ResetPasswordPage
