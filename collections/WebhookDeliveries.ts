import type { CollectionConfig } from 'payload'

import { admins, nobody } from '../src/access/roles'
import { GROUPS, labelled } from './options'

const DELIVERY_TRIGGERS = ['automatic', 'manual', 'test'] as const
const DELIVERY_OUTCOMES = ['succeeded', 'failed'] as const

/**
 * Every attempt to deliver an event to an endpoint: what the receiver answered and how long it took.
 * Admins only, as the endpoints: a URL is often a credential itself (a Slack or Zapier hook carries its
 * token in the path). "Send again" sends the same event, with the same id, once more.
 */
export const WebhookDeliveries: CollectionConfig = {
  slug: 'webhook_deliveries',
  labels: { singular: 'Webhook delivery', plural: 'Webhook deliveries' },
  admin: {
    useAsTitle: 'eventType',
    defaultColumns: ['eventType', 'url', 'outcome', 'responseStatus', 'durationMs', 'attempt', 'createdAt'],
    group: GROUPS.integrations,
    description:
      'Each attempt to send an event to a webhook endpoint. A failed event is tried again 10 times in all, waiting longer each time.',
  },
  access: { read: admins, create: nobody, update: nobody, delete: nobody },
  defaultSort: '-createdAt',
  fields: [
    {
      name: 'deliveryActions',
      type: 'ui',
      admin: {
        position: 'sidebar',
        components: { Field: '/app/(payload)/_components/WebhookEndpointActions#WebhookDeliveryActions' },
      },
    },
    {
      name: 'event',
      label: 'Event ID',
      type: 'relationship',
      relationTo: 'webhook_events',
      required: true,
      index: true,
      admin: {
        readOnly: true,
        description: 'The webhook-id every attempt of this event carries: receivers deduplicate on it.',
      },
    },
    { name: 'endpoint', type: 'relationship', relationTo: 'webhook_endpoints', index: true, admin: { readOnly: true } },
    { name: 'eventType', label: 'Event type', type: 'text', required: true, admin: { readOnly: true } },
    {
      name: 'url',
      label: 'URL',
      type: 'text',
      required: true,
      admin: { readOnly: true, description: 'Where it was sent, as the endpoint said then.' },
    },
    {
      name: 'attempt',
      type: 'number',
      required: true,
      admin: { readOnly: true, description: 'Attempt 1 to 10 of this event to this endpoint.' },
    },
    {
      name: 'trigger',
      label: 'Sent by',
      type: 'select',
      required: true,
      options: labelled(DELIVERY_TRIGGERS, {
        automatic: 'The service',
        manual: 'An admin ("Send again")',
        test: 'An admin ("Send test event")',
      }),
      admin: { readOnly: true },
    },
    {
      name: 'outcome',
      type: 'select',
      required: true,
      index: true,
      options: labelled(DELIVERY_OUTCOMES, { succeeded: 'Delivered (2xx)', failed: 'Failed' }),
      admin: { readOnly: true },
    },
    {
      name: 'responseStatus',
      label: 'HTTP status',
      type: 'number',
      admin: { readOnly: true, description: 'Empty when no answer came (timeout, refused address, connection error).' },
    },
    { name: 'durationMs', label: 'Duration (ms)', type: 'number', admin: { readOnly: true } },
    { name: 'error', label: 'What went wrong', type: 'text', admin: { readOnly: true } },
    {
      name: 'responseExcerpt',
      label: 'Response (first 1,000 characters)',
      type: 'textarea',
      admin: { readOnly: true },
    },
    {
      name: 'nextAttemptAt',
      label: 'Next attempt',
      type: 'date',
      admin: {
        readOnly: true,
        date: { pickerAppearance: 'dayAndTime' },
        description: 'When the service tries this event again; empty when it will not.',
      },
    },
  ],
}
