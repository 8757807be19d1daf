import { openSupportRequest } from './actions'
import type { SupportThread } from './data'
import { ErrorBox } from './parts'
import { formatDate, SUPPORT_STATUS_WORDS } from './words'

type Props = { threads: SupportThread[]; canFile: boolean; error?: string }

/**
 * Priority support (feature `support`): the customer's requests with their threads, and the form to
 * open one. Requests filed earlier stay readable after the plan that opened the form has ended.
 */
export const SupportSection = ({ threads, canFile, error }: Props) => (
  <section className="card" id="support" aria-labelledby="support-heading">
    <h2 id="support-heading">Support</h2>
    <ErrorBox code={error} fallback="Your request could not be sent; please try again." />
    {threads.length === 0 ? (
      <div className="empty">
        <p>No requests yet. Ask anything about the kit below: your plan’s requests are answered first, by email.</p>
      </div>
    ) : (
      <ul className="item-list" data-testid="support-requests">
        {threads.map((thread) => (
          <li key={thread.id} data-status={thread.status}>
            <div className="item-main">
              <strong>{thread.subject}</strong>
              <p className="item-detail">
                <span className="status">{SUPPORT_STATUS_WORDS[thread.status]}</span>
                <span className="muted"> · filed {formatDate(thread.createdAt)}</span>
              </p>
              <details>
                <summary>
                  The conversation ({thread.replies.length === 1 ? '1 reply' : `${thread.replies.length} replies`})
                </summary>
                <ol className="thread">
                  <li>
                    <p className="muted">You, {formatDate(thread.createdAt)}</p>
                    <p className="thread-text">{thread.message}</p>
                  </li>
                  {thread.replies.map((reply) => (
                    <li key={reply.id}>
                      <p className="muted">
                        {reply.fromStaff ? 'Support' : 'You'}, {formatDate(reply.createdAt)}
                      </p>
                      <p className="thread-text">{reply.body}</p>
                    </li>
                  ))}
                </ol>
              </details>
            </div>
          </li>
        ))}
      </ul>
    )}
    {canFile ? (
      <>
        <h3>Open a request</h3>
        <form action={openSupportRequest} className="stacked-fields">
          <label>
            Subject
            <input type="text" name="subject" required maxLength={200} />
          </label>
          <label>
            What happened, and what you expected
            <textarea name="message" required maxLength={5000} rows={5} />
          </label>
          <button type="submit">Send to support</button>
        </form>
      </>
    ) : (
      <p className="muted">New requests come with a plan that includes priority support.</p>
    )}
  </section>
)
