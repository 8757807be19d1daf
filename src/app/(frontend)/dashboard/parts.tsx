import { errorSentence } from '../../../http/error-sentences'

/**
 * A refused action's code (from the query string or the action's state) as the service's sentence, or
 * the `sentence` the section made of it (a limit's wait); nothing without a code.
 */
export const ErrorBox = ({
  code,
  fallback,
  sentence,
}: {
  code: string | null | undefined
  fallback?: string
  sentence?: string | null
}) =>
  code ? (
    <p role="alert" className="error-box">
      {sentence ?? errorSentence(code, fallback)}
    </p>
  ) : null

/** What a license's Team or Installations form came back with: why it was refused (and when to try again), whom it invited, or that it is done. */
export type SectionOutcome = { error?: string; retry: number | null; invited?: number; done: boolean }

/** The hidden inputs that name a row (and the license it belongs to) in a row's form. */
const HiddenFields = ({ fields }: { fields: Record<string, string | number> }) => (
  <>
    {Object.entries(fields).map(([name, value]) => (
      <input key={name} type="hidden" name={name} value={value} />
    ))}
  </>
)

/** One row's action (download, revoke): a form with the row's id, so it works without JavaScript. */
export const RowAction = ({
  action,
  name,
  value,
  fields = {},
  label,
  description,
}: {
  action: (form: FormData) => Promise<void>
  name: string
  value: string | number
  /** Other hidden fields the action needs, such as the license a row belongs to. */
  fields?: Record<string, string | number>
  label: string
  /** What the button does to which row, for screen readers ("Download version 1.2.0"). */
  description: string
}) => (
  <form action={action}>
    <HiddenFields fields={{ ...fields, [name]: value }} />
    <button type="submit" className="button-secondary button-small" aria-label={description}>
      {label}
    </button>
  </form>
)

/**
 * A row's action that takes something away from someone (a team member's seat): the first press only
 * opens what it will do and the button that does it. A <details>, so it works without JavaScript.
 */
export const ConfirmedRowAction = ({
  action,
  fields,
  label,
  description,
  consequence,
  confirmLabel,
}: {
  action: (form: FormData) => Promise<void>
  fields: Record<string, string | number>
  label: string
  /** The first button's accessible name, starting with its visible words ("Revoke the seat of ann@example.com"). */
  description: string
  /** What happens, in one sentence, before the button that does it. */
  consequence: string
  confirmLabel: string
}) => (
  <details className="confirm-action">
    <summary className="button button-secondary button-small" aria-label={description}>
      {label}
    </summary>
    <div className="confirm-action-body">
      <p>{consequence}</p>
      <form action={action}>
        <HiddenFields fields={fields} />
        <button type="submit" className="button-small button-danger">
          {confirmLabel}
        </button>
      </form>
    </div>
  </details>
)
