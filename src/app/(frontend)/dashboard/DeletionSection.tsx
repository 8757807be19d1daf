import type { DeletionStatus } from '../../../privacy/deletion'
import { cancelDeletionAction, requestDeletionAction } from './actions'
import { ErrorBox } from './parts'
import { formatDate } from './words'

type Props = {
  pending: DeletionStatus
  /** Whether the account has a password of its own: the form asks for it; otherwise a recent sign-in stands in. */
  hasPassword: boolean
  /** ACCOUNT_DELETION_GRACE_DAYS. */
  graceDays: number
  error?: string
  /** What the last form did: `scheduled` or `cancelled`. */
  done?: string
}

/**
 * Deleting the account (docs/PRIVACY.md): the form behind a <details> (no JavaScript needed), the date
 * of a pending deletion with its Cancel button.
 */
export const DeletionSection = ({ pending, hasPassword, graceDays, error, done }: Props) => (
  <section className="card" id="delete-account" aria-labelledby="delete-account-heading">
    <h2 id="delete-account-heading">Delete your account</h2>
    <ErrorBox code={error} />
    {done === 'cancelled' && !pending ? (
      <p role="status" className="notice">
        The deletion is cancelled: your account stays as it is.
      </p>
    ) : null}
    {pending ? (
      <div data-testid="deletion-pending">
        <p role="status" className="notice">
          {done === 'scheduled' ? 'Done. ' : ''}Your account will be deleted on{' '}
          <strong>{formatDate(pending.scheduledFor)}</strong>
          {pending.requestedBy === 'staff' ? ', as our team arranged with you' : ''}. We emailed you a link that keeps
          it; until then everything works as before.
        </p>
        <form action={cancelDeletionAction}>
          <button type="submit" className="button-secondary" data-testid="cancel-deletion">
            Keep my account
          </button>
        </form>
      </div>
    ) : (
      <>
        <p>
          We erase your profile, sign-in methods, API keys, installations, support messages and download history, end
          your licenses and team seats, and withdraw your repository access. Payments and invoices are kept, as tax law
          requires, without your name or email.{' '}
          {graceDays > 0
            ? `You can change your mind for ${graceDays} ${graceDays === 1 ? 'day' : 'days'}.`
            : 'This happens within minutes.'}
        </p>
        <details className="confirm-action">
          <summary className="button button-secondary">Delete my account…</summary>
          <form action={requestDeletionAction} className="confirm-action-body stacked-fields">
            {hasPassword ? (
              <label>
                Your password
                <input type="password" name="password" required autoComplete="current-password" maxLength={200} />
              </label>
            ) : (
              <p className="muted">
                Your account has no password: if you signed in more than 10 minutes ago, sign out and in again first.
              </p>
            )}
            <button type="submit" className="button-danger" data-testid="request-deletion">
              Delete my account
            </button>
          </form>
        </details>
      </>
    )}
  </section>
)
