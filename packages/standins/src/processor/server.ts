import http from 'node:http'

import express from 'express'

import { processorActions, type ProcessorActions } from './actions'
import { apiRoutes } from './api-routes'
import { startExpirySweep } from './checkout-expiry'
import type { Processor } from './context'
import { EventLog } from './events'
import { FailureRules } from '../common/failures'
import { authenticate, recordRequests, unexpectedError, unknownApiUrl } from './middleware'
import { hostedPages } from './pages'
import { parseParams } from './params'
import { DEFAULT_PRICES } from './prices'
import { signPayload } from './signing'
import { createState } from './state'
import type { FailureRule, ProcessorStandIn, StartOptions } from './types'
import { listenLocally } from '../common/listen'
import { failureBody } from './errors'
import { injectFailures } from '../common/inject-failures'

const buildApp = (
  processor: Processor,
  fields: {
    actions: ProcessorActions
    failures: FailureRules<FailureRule>
    secretKey: string
    log: (line: string) => void
  },
): express.Express => {
  const app = express()
  app.disable('x-powered-by')
  // Stripe's bracket notation (`expand[0]=line_items`) in query strings too.
  app.set('query parser', parseParams)
  app.use(recordRequests(processor, fields.log))
  app.use(injectFailures(fields.failures, (status) => failureBody(status)))
  // Kept as text: idempotent replays compare the parameters exactly as they were sent.
  app.use(express.text({ type: 'application/x-www-form-urlencoded', limit: '1mb' }))
  app.use('/v1', authenticate(fields.secretKey))
  app.use(apiRoutes(processor))
  app.use('/v1', unknownApiUrl)
  app.use(hostedPages(processor, fields.actions))
  app.use(unexpectedError(fields.log))
  return app
}

/**
 * A Stripe-compatible HTTP server on 127.0.0.1 for tests and offline development: the real SDK talks to
 * it with `{ host: '127.0.0.1', port, protocol: 'http' }`, and it delivers signed webhooks to `webhookUrl`.
 */
export const startProcessorStandIn = async (options: StartOptions): Promise<ProcessorStandIn> => {
  const log = options.log ?? (() => undefined)
  const server = http.createServer()
  const port = await listenLocally(server, options.port ?? 0)
  const url = `http://127.0.0.1:${port}`
  // The key decides the account's mode, as with Stripe: live keys see live objects only.
  const livemode = /^[sr]k_live_/.test(options.secretKey)
  const events = new EventLog({
    webhookSecret: options.webhookSecret,
    webhookUrl: options.webhookUrl,
    livemode,
    random: options.random ?? Math.random,
    log,
    retryDelaysMs: options.retryDelaysMs,
  })
  const processor: Processor = {
    state: createState(options.prices ?? DEFAULT_PRICES),
    events,
    livemode,
    publicUrl: (options.publicUrl ?? url).replace(/\/+$/, ''),
  }
  const failures = new FailureRules<FailureRule>()
  const actions = processorActions(processor)
  server.on('request', buildApp(processor, { actions, failures, secretKey: options.secretKey, log }))
  const stopExpirySweep = startExpirySweep(processor)
  log(`processor stand-in listening on ${url}`)

  return {
    url,
    port,
    close: async () => {
      stopExpirySweep()
      failures.close()
      events.close()
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
    },
    setWebhookUrl: (webhookUrl) => events.setWebhookUrl(webhookUrl),
    failNext: (rule) => failures.add(rule),
    clearFailures: () => failures.clear(),
    ...actions,
    events: () => events.list(),
    redeliver: (eventId) => events.redeliver(eventId),
    settled: () => events.settled(),
    sign: (payload, signOptions = {}) =>
      signPayload(payload, signOptions.secret ?? options.webhookSecret, signOptions.timestamp),
    state: processor.state,
  }
}
