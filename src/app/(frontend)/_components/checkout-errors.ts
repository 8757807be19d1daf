import { ERROR_SENTENCES } from '../../../http/error-sentences'

/** The human sentence for each code a failed checkout comes back with: the service's own, said about checkout. No server imports: the notice reads it in the browser. */
export const CHECKOUT_ERRORS: Record<string, string> = {
  ...ERROR_SENTENCES,
  rate_limited: 'Too many checkout attempts from here. Please wait a few minutes and try again.',
}
