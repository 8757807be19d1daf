import type { AffiliateFigures } from '../../../affiliates/figures'
import { CopyButton } from '../_components/CopyButton'
import { applyAffiliate } from './affiliate-actions'
import { ErrorBox } from './parts'
import { formatAmount, INVALID_EMAIL } from './words'

type Props = {
  /** The account's affiliate figures (src/affiliates/figures.ts), or null when it never applied. */
  figures: AffiliateFigures | null
  /** The account's email: the payout email's first value. */
  email: string
  /** AFFILIATE_HOLD_DAYS: how long a commission waits for a refund before it can be paid out. */
  holdDays: number
  /** `?affiliate=applied` after the form. */
  done?: string
  /** `?affiliate_error=`: why the application was refused. */
  error?: string
}

/** "30%", "12.5%": an affiliate's rate in basis points. */
const ratePercent = (bps: number) =>
  new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 2 }).format(bps / 10_000)

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

/** How long a commission is held, in the program's description. */
const holdWords = (holdDays: number) =>
  holdDays > 0
    ? `held for ${plural(holdDays, 'day', 'days')} (the refund period) and then paid`
    : 'paid once it is earned'

/** The application form: an optional code of their own, and where the commissions are paid. */
const ApplyForm = ({ email }: { email: string }) => (
  <form action={applyAffiliate} className="stacked-fields" data-testid="affiliate-apply">
    <label>
      Your code (optional)
      <input
        type="text"
        name="code"
        maxLength={32}
        pattern="[A-Za-z0-9\-]{3,32}"
        autoComplete="off"
        aria-describedby="affiliate-code-hint"
      />
      <span id="affiliate-code-hint" className="field-hint">
        3 to 32 letters, digits or hyphens; we make one up if you leave it empty
      </span>
    </label>
    <label>
      Payout email
      <input type="email" name="payoutEmail" required maxLength={254} defaultValue={email} autoComplete="email" />
    </label>
    <button type="submit">Apply</button>
  </form>
)

/** The link with its Copy button, the rate, visits and sales, and the money per currency. */
const Figures = ({ figures, holdDays }: { figures: AffiliateFigures; holdDays: number }) => (
  <>
    <div className="inline-fields affiliate-link">
      <label>
        Your link
        <input type="text" readOnly value={figures.link} data-testid="affiliate-link" />
      </label>
      <CopyButton text={figures.link} label="Copy link" />
    </div>
    <p data-testid="affiliate-stats">
      Your commission: <strong>{ratePercent(figures.rateBps)}</strong> of each sale net of tax. Your link brought{' '}
      <strong>{plural(figures.clicks, 'visit', 'visits')}</strong> and{' '}
      <strong>{plural(figures.sales, 'sale', 'sales')}</strong>.
    </p>
    <h3>Commissions</h3>
    {figures.commissions.length === 0 ? (
      <p className="muted">No commissions yet.</p>
    ) : (
      <>
        <table className="payments" data-testid="affiliate-commissions">
          <thead>
            <tr>
              <th scope="col">Currency</th>
              <th scope="col">Pending</th>
              <th scope="col">Available</th>
              <th scope="col">Paid</th>
            </tr>
          </thead>
          <tbody>
            {figures.commissions.map((row) => (
              <tr key={row.currency} data-currency={row.currency}>
                <td data-label="Currency">{row.currency.toUpperCase()}</td>
                <td data-label="Pending">{formatAmount(row.pending, row.currency)}</td>
                <td data-label="Available">{formatAmount(row.available, row.currency)}</td>
                <td data-label="Paid">{formatAmount(row.paid, row.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">
          {holdDays > 0
            ? `Pending: still in the ${plural(holdDays, 'day', 'days')} a buyer can ask for a refund, or in a dispute. `
            : 'Pending: in a dispute. '}
          Available: due in the next payout, to {figures.payoutEmail}. Paid: sent to you.
        </p>
      </>
    )}
  </>
)

/**
 * The affiliate program (docs/AFFILIATES.md), for every signed-in customer: the form to apply, then
 * the application waiting for approval, then the link with its visits, sales and commissions. A plain
 * form posting to the server action, so it works without JavaScript.
 */
export const AffiliateSection = ({ figures, email, holdDays, done, error }: Props) => (
  <section className="card" id="affiliate" aria-labelledby="affiliate-heading" data-testid="affiliate">
    <h2 id="affiliate-heading">Affiliate program</h2>
    {done === 'applied' && figures ? (
      <p role="status" className="notice" data-testid="affiliate-notice">
        {figures.status === 'active' ? 'You are in: share your link below.' : 'Thank you: your application is in.'}
      </p>
    ) : null}
    <ErrorBox
      code={error}
      fallback={error === INVALID_EMAIL ? 'Enter the email address your commissions are paid to.' : undefined}
      sentence={
        error === 'invalid_request'
          ? 'That code cannot be used: choose 3 to 32 letters, digits or hyphens, or leave it empty.'
          : null
      }
    />
    {!figures ? (
      <>
        <p>
          Recommend us and earn money: share your own link, and each sale it brings earns you a commission of the sale
          net of tax, {holdWords(holdDays)} to your payout email.
        </p>
        <ApplyForm email={email} />
      </>
    ) : figures.status === 'pending' ? (
      <p data-testid="affiliate-status">
        Your application is waiting for approval. Your code is <code>{figures.code}</code>; we email{' '}
        {figures.payoutEmail} once it is approved, and your link appears here.
      </p>
    ) : (
      <>
        {figures.status === 'disabled' ? (
          <p data-testid="affiliate-status">
            <strong>Your affiliate account is disabled:</strong> your link no longer earns new commissions. What you
            earned before stays below; contact support with any question.
          </p>
        ) : (
          <p data-testid="affiliate-status">
            Share your link: each sale it brings earns you a commission, {holdWords(holdDays)} to {figures.payoutEmail}.
          </p>
        )}
        <Figures figures={figures} holdDays={holdDays} />
      </>
    )}
  </section>
)
