import type { Request, Response } from 'express'
import type Stripe from 'stripe'

import type { Origin, Processor } from './context'
import { idempotencyError, StandInApiError } from './errors'
import { API_VERSION } from './events'
import { expand } from './expand'
import { newId } from './ids'
import { parseParams, strings, type Params } from './params'

type ApiCall = {
  params: Params
  /** A path parameter such as `:id`. */
  path: (name: string) => string
  /** Events the call causes name its request and idempotency key. */
  origin: Origin
}

/** Events are delivered after the answer went out, as Stripe does. */
type ApiAnswer = { body: object; status?: number; events?: Stripe.Event[] }

export type ApiHandler = (call: ApiCall) => ApiAnswer

const sendJson = (res: Response, status: number, json: string): void => {
  res.status(status).type('application/json').send(json)
}

/**
 * The same key again answers the stored response if the request is the same one; a key reused for
 * another endpoint or other parameters is an error, as Stripe guards against reusing keys by mistake.
 */
const replay = (processor: Processor, req: Request, res: Response, key: string, rawBody: string): boolean => {
  const stored = processor.state.idempotency.get(key)
  if (!stored) return false
  let mismatch: StandInApiError | undefined
  if (stored.method !== req.method || stored.path !== req.path) {
    mismatch = idempotencyError(
      `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${stored.method} ${stored.path}' vs '${req.method} ${req.path}'). Try using a key other than '${key}' if you meant to execute a different request.`,
    )
  } else if (stored.rawBody !== rawBody) {
    mismatch = idempotencyError(
      `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
    )
  }
  if (mismatch) {
    res.status(mismatch.status).json(mismatch.body)
    return true
  }
  res.set('Idempotent-Replayed', 'true')
  res.set('Original-Request', stored.requestId)
  sendJson(res, stored.status, stored.json)
  return true
}

/**
 * Wraps one API operation: parameters from the query and the form body, idempotent replays, Stripe's
 * error answers, `expand[]`, and the delivery of the events it caused.
 */
export const apiHandler =
  (processor: Processor, handle: ApiHandler) =>
  (req: Request, res: Response): void => {
    const requestId = newId('req')
    res.set('Request-Id', requestId)
    res.set('Stripe-Version', API_VERSION)
    const rawBody = typeof req.body === 'string' ? req.body : ''
    const key = req.method === 'POST' ? req.get('Idempotency-Key') : undefined
    if (key !== undefined && replay(processor, req, res, key, rawBody)) return

    const params: Params = { ...req.query, ...parseParams(rawBody) }
    let answer: ApiAnswer
    try {
      answer = handle({
        params,
        path: (name) => String(req.params[name] ?? ''),
        origin: { request: { id: requestId, idempotencyKey: key ?? null } },
      })
    } catch (error) {
      if (!(error instanceof StandInApiError)) throw error
      // Like Stripe, a request rejected before it did anything is not stored under its key.
      res.status(error.status).json(error.body)
      return
    }
    const status = answer.status ?? 200
    const json = JSON.stringify(expand(processor, answer.body, strings(params.expand)))
    if (key !== undefined) {
      processor.state.idempotency.set(key, { method: req.method, path: req.path, rawBody, status, json, requestId })
    }
    sendJson(res, status, json)
    processor.events.deliverLater(answer.events ?? [])
  }
