import { errorSentence } from '../../../http/error-sentences'

/** A refused action's code (from the query string or the action's state) as the service's sentence; nothing without one. */
export const ErrorBox = ({ code, fallback }: { code: string | null | undefined; fallback?: string }) =>
  code ? (
    <p role="alert" className="error-box">
      {errorSentence(code, fallback)}
    </p>
  ) : null

/** One row's action (download, revoke): a form with the row's id, so it works without JavaScript. */
export const RowAction = ({
  action,
  name,
  value,
  label,
  description,
}: {
  action: (form: FormData) => Promise<void>
  name: string
  value: string | number
  label: string
  /** What the button does to which row, for screen readers ("Download version 1.2.0"). */
  description: string
}) => (
  <form action={action}>
    <input type="hidden" name={name} value={value} />
    <button type="submit" className="button-secondary button-small" aria-label={description}>
      {label}
    </button>
  </form>
)
