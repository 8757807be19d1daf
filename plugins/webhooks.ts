import type { Config, Plugin } from 'payload'

import { WebhookDeliveries } from '../collections/WebhookDeliveries'
import { webhookEndpointsCollection, WebhookEvents } from '../collections/WebhookEndpoints'
import { webhookEndpointActions } from '../endpoints/webhook-endpoints'
import { licenseEvents, orderEvents, subscriptionEvents } from '../src/webhooks/collection-events'
import { type DeliveryOptions, deliverWebhookTask } from '../src/webhooks/deliver'
import { deleteOldWebhookEventsTask } from '../src/webhooks/retention'
import { addCollectionHooks } from './extend'

export type WebhooksOptions = DeliveryOptions & {
  /** WEBHOOK_RETENTION_DAYS: how long events and their deliveries are kept once their attempts are over. */
  retentionDays: number
}

/**
 * Outbound webhooks (docs/WEBHOOKS.md): the seller's endpoints, the events the
 * service sends them (enqueued in the transaction of each change), their signed deliveries with
 * retries on their own jobs queue, the admins' actions, and the hourly job that deletes events (with
 * their deliveries) older than the retention period once their attempts are over. After the billing,
 * licensing and teams plugins: it hooks their collections.
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
      withHooks = {
        ...withHooks,
        collections: addCollectionHooks(withHooks, {
          plugin: 'webhooksPlugin',
          slug,
          hooks: { afterChange: [hook as never] },
        }),
      }
    }
    return {
      ...withHooks,
      collections: [
        ...(withHooks.collections ?? []),
        webhookEndpointsCollection({ allowPrivate: options.allowPrivate }),
        WebhookEvents,
        WebhookDeliveries,
      ],
      endpoints: [...(withHooks.endpoints ?? []), ...webhookEndpointActions(options)],
      jobs: {
        ...withHooks.jobs,
        tasks: [
          ...(withHooks.jobs?.tasks ?? []),
          deliverWebhookTask(options),
          deleteOldWebhookEventsTask(options.retentionDays),
        ],
      },
    }
  }
