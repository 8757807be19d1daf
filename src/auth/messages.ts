import { ERROR_SENTENCES } from '../http/error-sentences'

/**
 * What a sign-in, sign-up or reset error code means, for people: the service's sentences, with the
 * two that say more on a sign-in form (what to do next there).
 */
export const AUTH_ERRORS: Record<string, string> = {
  ...ERROR_SENTENCES,
  invalid_credentials:
    'That email and password do not match a confirmed account. New here? Confirm your email first (we can send a new confirmation link below).',
  invalid_request: 'Something was missing from that sign-in. Please start again.',
}
