import { redirect } from 'next/navigation'

import type { ErrorCode } from '../../http/error-sentences'
import { ServiceError } from '../../http/errors'

/** The product's name in the emails the pages' actions send. */

/** A refusal's stable code (the pages say it in words); anything unexpected is `unavailable`. */
export const codeOf = (error: unknown) => (error instanceof ServiceError ? error.code : 'unavailable')

/** A form field as trimmed text ('' when missing or a file). */
export const field = (form: FormData, name: string) => {
  const value = form.get(name)
  return typeof value === 'string' ? value.trim() : ''
}

/** Back to the form's page with `?error=` (and the form's `next`), so the form works without JS. */
export const back = (page: string, error: ErrorCode, form: FormData): never => {
  const params = new URLSearchParams({ error })
  const next = field(form, 'next')
  if (next) params.set('next', next)
  redirect(`${page}?${params.toString()}`)
}
