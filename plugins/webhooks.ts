import type { Config, Plugin } from 'payload'

import { WebhookDeliveries } from '../collections/WebhookDeliveries'
import { webhookEndpointsCollection, WebhookEvents } from '../collections/WebhookEndpoints'
import { webhookEndpointActions } from '../endpoints/webhook-endpoints'
import { licenseEvents, orderEvents, subscriptionEvents } from '../src/webhooks/collection-events'
import { type DeliveryOptions, deliverWebhookTask } from '../src/webhooks/deliver'
import { addCollectionHooks } from './extend'

export type WebhooksOptions = DeliveryOptions

/**
 * Outbound webhooks (docs/WEBHOOKS.md): the seller's endpoints, the events the
 * service sends them (enqueued in the transaction of each change), their signed deliveries with
 * retries on their own jobs queue, and the admins' actions. After the billing, licensing and teams
 * plugins: it hooks their collections.
 */
export const webhooksPlugin =
  (options: WebhooksOptions): Plugin =>
  (config: Config): Config => {
    let withHooks: Config = config
    for (const [slug, hook] of [
      ['licenses', licenseEvents],
      ['payment_history', orderEvents],
      ['user_subscriptions', subscriptionEvents],
    ] as const) {
      withHooks = { ...withHooks, collections: addCollectionHooks(withHooks, { plugin: 'webhooksPlugin', slug, hooks: { afterChange: [hook as never] } }) }
    }
    return {
      ...withHooks,
      collections: [...(withHooks.collections ?? []), webhookEndpointsCollection({ allowPrivate: options.allowPrivate }), WebhookEvents, WebhookDeliveries],
      endpoints: [...(withHooks.endpoints ?? []), ...webhookEndpointActions(options)],
      jobs: { ...withHooks.jobs, tasks: [...(withHooks.jobs?.tasks ?? []), deliverWebhookTask(options)] },
    }
  }
