import type { CollectionConfig, FieldAccess } from 'payload'

import { admins, nobody } from '../src/access/roles'
import { WEBHOOK_EVENT_LABELS, WEBHOOK_EVENT_TYPES } from '../src/webhooks/events'
import { prepareWebhookEndpoint } from '../src/webhooks/endpoint-hooks'
import { GROUPS, labelled } from './options'

const never: FieldAccess = () => false

/** Written by the service only (the delivery bookkeeping, the secret's dates); admins read them. */
const serviceOnly = { create: never, update: never }

/**
 * The seller's own systems the service tells about orders, licenses, subscriptions, seats and
 * activations (docs/WEBHOOKS.md). Admins only: a URL here receives customers'
 * emails. The signing secret is sealed in its column and never read through the API: it is shown once
 * (and after each rotation) by the endpoint's actions.
 */
export const webhookEndpointsCollection = (options: { allowPrivate: boolean }): CollectionConfig => ({
  slug: 'webhook_endpoints',
  labels: { singular: 'Webhook endpoint', plural: 'Webhook endpoints' },
  admin: {
    useAsTitle: 'url',
    defaultColumns: ['url', 'description', 'events', 'enabled', 'failedEventsInARow'],
    group: GROUPS.integrations,
    description:
      'Your own systems that get a signed POST when an order is paid, a license changes, a seat is claimed... Admins only.',
  },
  access: { read: admins, create: admins, update: admins, delete: admins },
  hooks: { beforeChange: [prepareWebhookEndpoint(options)] },
  fields: [
    {
      name: 'endpointActions',
      type: 'ui',
      admin: {
        position: 'sidebar',
        components: { Field: '/app/(payload)/_components/WebhookEndpointActions#WebhookEndpointActions' },
      },
    },
    {
      name: 'url',
      label: 'URL',
      type: 'text',
      required: true,
      maxLength: 2048,
      admin: {
        // The same words whatever the setting: the generated types carry them.
        description:
          'Where events are POSTed: https on a public address (WEBHOOK_ALLOW_PRIVATE=true also allows http and private addresses). Redirects are not followed.',
      },
    },
    {
      name: 'description',
      type: 'textarea',
      maxLength: 500,
      admin: { description: 'What this endpoint is, for whoever reads this list next.' },
    },
    {
      name: 'events',
      type: 'select',
      hasMany: true,
      required: true,
      options: labelled(WEBHOOK_EVENT_TYPES, WEBHOOK_EVENT_LABELS),
      admin: {
        description:
          'The events this endpoint receives. An order is a purchase or a subscription payment; "License updated" is any change of its status (other than to revoked), plan, validity, seats or updates. Each is described, with an example, in docs/WEBHOOKS.md.',
      },
    },
    {
      name: 'enabled',
      type: 'checkbox',
      defaultValue: true,
      admin: {
        description:
          'Off: nothing is sent. The service turns it off after 10 events in a row failed; turn it back on once the receiver works.',
      },
    },
    // The signing secret (`whsec_` + base64), sealed with the Payload secret; never in the API.
    { name: 'secretSealed', type: 'text', hidden: true, access: { read: never, ...serviceOnly } },
    { name: 'previousSecretSealed', type: 'text', hidden: true, access: { read: never, ...serviceOnly } },
    {
      name: 'previousSecretExpiresAt',
      label: 'Previous secret signs until',
      type: 'date',
      access: serviceOnly,
      admin: {
        readOnly: true,
        position: 'sidebar',
        date: { pickerAppearance: 'dayAndTime' },
        description: 'After a rotation, deliveries carry both signatures until then.',
      },
    },
    {
      name: 'secretShownAt',
      label: 'Secret shown',
      type: 'date',
      access: serviceOnly,
      admin: {
        readOnly: true,
        position: 'sidebar',
        date: { pickerAppearance: 'dayAndTime' },
        description: 'The signing secret is shown once; rotate it to get a new one.',
      },
    },
    {
      name: 'failedEventsInARow',
      label: 'Failed events in a row',
      type: 'number',
      defaultValue: 0,
      access: serviceOnly,
      admin: {
        readOnly: true,
        position: 'sidebar',
        description:
          'Events that failed every attempt since the last delivery that worked. At 10 the endpoint is turned off.',
      },
    },
    {
      name: 'disabledAt',
      label: 'Turned off by the service',
      type: 'date',
      access: serviceOnly,
      admin: {
        readOnly: true,
        position: 'sidebar',
        date: { pickerAppearance: 'dayAndTime' },
        condition: (data) => Boolean(data?.disabledAt),
      },
    },
  ],
})

/**
 * Each event the service sent (or is sending): its id, which every attempt and endpoint share, and the
 * exact body signed. Written only by the service.
 */
export const WebhookEvents: CollectionConfig = {
  slug: 'webhook_events',
  labels: { singular: 'Webhook event', plural: 'Webhook events' },
  admin: {
    useAsTitle: 'eventId',
    defaultColumns: ['eventId', 'type', 'createdAt'],
    group: GROUPS.integrations,
    description: 'Every event sent to your webhook endpoints, with the body they received.',
  },
  access: { read: admins, create: nobody, update: nobody, delete: nobody },
  fields: [
    {
      name: 'eventId',
      label: 'Event ID (webhook-id)',
      type: 'text',
      required: true,
      unique: true,
      admin: { readOnly: true },
    },
    { name: 'type', type: 'text', required: true, index: true, admin: { readOnly: true } },
    {
      name: 'sourceKey',
      type: 'text',
      required: true,
      unique: true,
      admin: { readOnly: true, description: 'What makes the event unique: the same fact reported twice is sent once.' },
    },
    {
      name: 'body',
      type: 'code',
      required: true,
      admin: {
        readOnly: true,
        language: 'json',
        description: 'The exact bytes every attempt sends and signs: {type, timestamp, data}.',
      },
    },
  ],
}
