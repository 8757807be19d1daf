/** Stripe's error body: the SDK picks its error class from the status, `type` and `code`. */
export type StripeErrorBody = {
  error: { type: string; message: string; code?: string; param?: string; decline_code?: string; doc_url?: string }
}

/** Thrown anywhere in the stand-in; the HTTP layer answers with its status and body. */
export class StandInApiError extends Error {
  override name = 'StandInApiError'
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
  ) {
    super(body.error.message)
  }
}

const docUrl = (code: string): string => `https://docs.stripe.com/error-codes/${code.replaceAll('_', '-')}`

export const invalidRequest = (message: string, options: { param?: string; code?: string; status?: number } = {}) =>
  new StandInApiError(options.status ?? 400, {
    error: {
      type: 'invalid_request_error',
      message,
      ...(options.code ? { code: options.code, doc_url: docUrl(options.code) } : {}),
      ...(options.param ? { param: options.param } : {}),
    },
  })

export const parameterMissing = (param: string) =>
  invalidRequest(`Missing required param: ${param}.`, { param, code: 'parameter_missing' })

export const invalidInteger = (param: string, value: string) =>
  invalidRequest(`Invalid integer: ${value}`, { param, code: 'parameter_invalid_integer' })

/**
 * Stripe's "No such …" answer. Objects of the other mode exist for Stripe but are invisible to this
 * key, and it says so: "a similar object exists in live mode, but a test mode key was used".
 */
export const resourceMissing = (
  resource: string,
  id: string,
  options: { param: string; status?: number; otherMode?: 'live' | 'test' },
) => {
  const usedMode = options.otherMode === 'live' ? 'test' : 'live'
  const hint = options.otherMode
    ? `; a similar object exists in ${options.otherMode} mode, but a ${usedMode} mode key was used to make this request.`
    : ''
  return invalidRequest(`No such ${resource}: '${id}'${hint}`, {
    param: options.param,
    code: 'resource_missing',
    status: options.status ?? 404,
  })
}

export const idempotencyError = (message: string) =>
  new StandInApiError(400, { error: { type: 'idempotency_error', message } })

/** The body an injected failure answers with when its rule brings none: what Stripe sends for that status. */
export const failureBody = (status: number): StripeErrorBody => {
  if (status === 429) {
    return {
      error: {
        type: 'invalid_request_error',
        code: 'rate_limit',
        message: 'Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.',
        doc_url: docUrl('rate_limit'),
      },
    }
  }
  if (status >= 500) {
    return { error: { type: 'api_error', message: 'An unknown error occurred while processing your request.' } }
  }
  if (status === 402) {
    return {
      error: {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      },
    }
  }
  return { error: { type: 'invalid_request_error', message: `The request failed with status ${status}.` } }
}
