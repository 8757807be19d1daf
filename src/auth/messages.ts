/** What a sign-in or sign-up error code means, for people. */
export const AUTH_ERRORS: Record<string, string> = {
  missing_fields: 'Enter your email address and password.',
  invalid_credentials: 'That email and password do not match a confirmed account. New here? Confirm your email first (we can send a new confirmation link below).',
  weak_password: 'Use a password of at least 10 characters.',
  rate_limited: 'Too many attempts. Please wait a few minutes and try again.',
  invalid_link: 'That link is not valid any more: it was used, replaced by a newer one, or expired. Ask for a new one.',
  invalid_request: 'Something was missing from that sign-in. Please start again.',
  invalid_state: 'That sign-in did not start here or took too long. Please try again.',
  oauth_denied: 'The sign-in was cancelled at the provider.',
  oauth_failed: 'The provider did not confirm the sign-in. Please try again.',
  oauth_email_unverified: 'Your email address is not verified with that provider. Verify it there, or sign in another way.',
  oauth_no_email: 'The provider did not share an email address with us.',
  account_unverified: 'This account has no confirmed email address yet: sign in with a sign-in link first.',
  unknown_provider: 'That sign-in provider is not available.',
  sign_up_failed: 'We could not create that account. If you already have one, sign in instead.',
}
