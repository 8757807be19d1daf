/**
 * Every stable error code the service answers with (the endpoints, Payload's own routes through
 * src/http/payload-errors.ts, and the pages' form actions), as a sentence for a customer. An error's
 * `message` explains one request to a developer; a page shows these. No imports: client components
 * read it too. tests/int/error-sentences.test.ts fails when a code is thrown without a sentence here.
 */
export const ERROR_SENTENCES = {
  // Any request
  invalid_request: 'Something was wrong with that request. Please check it and try again.',
  bad_request: 'Something was wrong with that request. Please check it and try again.',
  validation_error: 'Something you entered is missing or too long. Please check the form and try again.',
  payload_too_large: 'That was too large to send. Please shorten it and try again.',
  unauthenticated: 'Please sign in first.',
  forbidden: 'Your account is not allowed to do that.',
  not_found: 'We could not find that. It may have been removed.',
  conflict: 'That changed while you were working on it. Please reload the page and try again.',
  locked: 'This is being changed right now. Please try again in a minute.',
  rate_limited: 'Too many attempts in a short time. Please wait a few minutes and try again.',
  internal_error: 'Something went wrong on our side. Please try again; if it keeps happening, contact support.',
  unavailable: 'That could not be done right now. Please try again in a minute.',

  // Payload's own errors, named after their class (ERROR_CLASSES in src/http/payload-errors.ts)
  query_error: 'That search could not be run. Please change it and try again.',
  invalid_field_name: 'That search names a field that does not exist.',
  invalid_field_relationship: 'That search follows a relationship that does not exist.',
  missing_file: 'Please choose a file to upload.',
  file_upload_error: 'The file could not be uploaded. Please try again.',
  file_retrieval_error: 'The file could not be read. Please try again.',
  error_deleting_file: 'The file could not be deleted. Please try again.',

  // Signing in and the account
  missing_fields: 'Enter your email address and password.',
  invalid_credentials: 'That email and password do not match a confirmed account.',
  weak_password: 'Use a password of at least 10 characters.',
  current_password_incorrect: 'Your current password is not correct.',
  account_unverified: 'This account has no confirmed email address yet: sign in with a sign-in link first.',
  invalid_link: 'That link is not valid any more: it was used, replaced by a newer one, or expired. Ask for a new one.',
  link_expired: 'That link has expired. Ask for a new one.',
  invalid_state: 'That sign-in did not start here or took too long. Please try again.',
  unknown_provider: 'That sign-in provider is not available.',
  oauth_denied: 'The sign-in was cancelled at the provider.',
  oauth_failed: 'The provider did not confirm the sign-in. Please try again.',
  oauth_email_unverified:
    'Your email address is not verified with that provider. Verify it there, or sign in another way.',
  oauth_no_email: 'The provider did not share an email address with us.',
  email_unchanged: 'That is already your email address.',
  email_change_requires_confirmation:
    'Change your email address from your account page: we confirm the new address first.',

  // Buying and billing
  unknown_price: 'That plan is not for sale right now.',
  processor_mode_mismatch: 'That plan is misconfigured (test and live prices mixed). Please tell us.',
  processor_unavailable: 'The payment processor is not reachable right now. Please try again in a minute.',
  processor_not_configured: 'Payments are not configured on this server.',
  no_billing_account: 'You have no billing account yet: it is made with your first purchase.',
  invalid_return_url: 'That return address is not on this site.',
  invalid_signature: 'The payment processor’s message could not be verified.',
  livemode_mismatch: 'The payment processor sent a test event to a live service, or the reverse.',
  event_failed: 'The payment event failed again. Its last error says why.',

  // Licenses
  license_required: 'Downloading the kit needs an active license.',
  license_not_found: 'There is no such license.',
  license_not_active: 'This license is not active, so its key opens nothing.',
  license_already_active: 'This license is active already.',
  license_already_revoked: 'This license is revoked already.',
  no_recipient: 'This license has no email address to send it to.',
  upgrade_not_offered:
    'That upgrade is not offered for this license right now. Reload your dashboard to see the upgrades it can have.',
  renewal_not_offered:
    'A renewal of updates is not offered for this license: it already covers every release, or its plan does not sell renewals.',

  // Teams and activations
  invalid_quantity: 'That number of seats is not offered for this plan. Pick a number within its limit.',
  not_license_owner: 'Only the person who bought this license can manage its team.',
  license_inactive: 'This license is not active, so its seats cannot be assigned or claimed.',
  seat_already_assigned: 'That email address already has a seat on this license.',
  seats_exhausted: 'Every seat of this license is taken. Revoke a seat first, or buy a license with more seats.',
  seat_not_found: 'That seat does not exist on this license any more.',
  seat_already_revoked: 'This seat is revoked already.',
  license_suspended: 'This license is suspended while a chargeback is open.',
  license_revoked: 'This license was revoked.',
  license_expired: 'This license has expired.',
  activation_limit_reached:
    'This license is activated on as many installations as its plan allows. Deactivate one first.',
  activation_not_found: 'That installation is not activated on this license.',
  activation_already_removed: 'This activation was removed already.',
  deactivation_limit:
    'This license was deactivated too often today. Please try again tomorrow, or ask support to remove an installation.',

  // Outbound webhooks (admins)
  webhook_endpoint_not_found: 'There is no such webhook endpoint. It may have been deleted.',
  webhook_delivery_not_found: 'There is no such webhook delivery.',
  webhook_endpoint_deleted: 'The endpoint of this delivery was deleted, so there is nowhere to send it.',
  secret_already_shown: 'This signing secret was shown once already. Rotate it to get a new one.',

  // Downloads and the repository
  version_not_found: 'That release is not available. Pick one from the list.',
  version_not_allowed: 'Your license does not include that version.',
  updates_expired:
    'That release is newer than your license’s updates. Renew your updates or upgrade your plan to download it.',
  invalid_version: 'That is not a release version. Pick one from the list.',
  plan_required: 'Repository access comes with the Ultimate license.',
  invalid_username: 'That username does not exist on the code host.',
  username_taken: 'That username already has access through another account.',
  username_has_access:
    'That username already has access to the repository (or an invitation to it) that we did not send, so we cannot add it. Use your own username.',
  username_being_removed: 'That username is being removed from the repository; try again in a minute.',
  code_host_unavailable: 'The code host is not reachable right now; please try again.',
  code_host_not_configured: 'Repository access is not set up on this server yet. Please contact support.',
  repo_access_not_found: 'There is no such repository access request.',
  repo_access_revoked: 'This repository access was withdrawn. Ask for it again from your dashboard.',
  repo_access_changed: 'The repository access request changed meanwhile. Reload the page and look again.',
  already_collaborator: 'That username is a collaborator already.',

  // Features: templates, support, API keys
  feature_required: 'Your plan does not include this. Compare the plans to find one that does.',
  template_not_found: 'That template is not available any more.',
  support_request_not_found: 'There is no such support request.',
  request_closed: 'This request is closed. Please open a new one.',
  invalid_api_key: 'That API key is not valid: it is unknown, malformed or revoked.',
  api_key_not_allowed: 'An API key cannot do that: sign in instead.',
  api_key_not_found: 'You have no such API key. It may have been revoked already.',
  api_key_already_revoked: 'That API key is revoked already.',
  api_key_limit_reached: 'You have 10 API keys, the most there can be. Revoke one before creating another.',

  // Deleting an account
  reauthentication_required:
    'Please confirm it is you: enter your password, or sign in again if your account has none, then try again.',
  active_subscription:
    'Your subscription renews: cancel it in the billing portal first. Your account can then be deleted when the paid period ends.',
  no_pending_deletion: 'Your account has no deletion waiting to be cancelled.',
  deletion_pending: 'This account is already waiting to be deleted.',
  account_erased: 'This account has been deleted.',
  staff_account: 'A staff account cannot be deleted this way: an admin removes its staff roles first.',
  user_not_found: 'There is no such user.',

  // The Discord community
  access_denied: 'Discord was not connected: the request to Discord was cancelled. You can try again.',
  discord_already_linked:
    'That Discord account is connected to another customer account. Sign in to Discord with your own account and try again.',
  discord_unavailable: 'Discord could not be reached just now. Please try again in a minute.',

  // The affiliate program
  already_applied: 'This account has already applied to the affiliate program.',
  code_taken: 'That affiliate code is taken. Please choose another.',
  not_affiliate: 'This account is not in the affiliate program yet.',
  nothing_available: 'This affiliate has no available commission to pay out.',

  // Checkout recovery's email
  invalid_token: 'That unsubscribe link is not valid. Use the link from the latest email we sent you.',
} as const satisfies Record<string, string>

export type ErrorCode = keyof typeof ERROR_SENTENCES

export const isErrorCode = (code: unknown): code is ErrorCode =>
  typeof code === 'string' && Object.hasOwn(ERROR_SENTENCES, code)

/** The sentence for a code (from a query parameter or an action's result); unknown codes get `fallback`. */
export const errorSentence = (
  code: string | null | undefined,
  fallback: string = ERROR_SENTENCES.unavailable,
): string => (isErrorCode(code) ? ERROR_SENTENCES[code] : fallback)
