import type { CollectionConfig } from 'payload'

import { staffReadOnly } from '../src/access/customer-rows'

/** The processor's webhook events, one row per event id: what arrived, and what became of it. */
export const ProcessorEvents: CollectionConfig = {
  slug: 'processor_events',
  admin: {
    useAsTitle: 'eventId',
    defaultColumns: ['eventId', 'type', 'status', 'attempts', 'receivedAt', 'processedAt'],
    group: 'Billing',
    description: 'Webhook events from the processor. A failed event can be run again from its page.',
    components: { edit: { beforeDocumentControls: ['/app/(payload)/_components/RetryEventButton#RetryEventButton'] } },
  },
  access: staffReadOnly,
  fields: [
    { name: 'eventId', type: 'text', required: true, unique: true },
    { name: 'type', type: 'text', required: true, index: true },
    { name: 'livemode', type: 'checkbox', defaultValue: false },
    {
      name: 'status',
      type: 'select',
      required: true,
      index: true,
      options: ['received', 'processed', 'ignored', 'failed'],
    },
    { name: 'attempts', type: 'number', defaultValue: 0 },
    { name: 'lastError', type: 'textarea' },
    { name: 'objectId', type: 'text', index: true },
    { name: 'receivedAt', type: 'date', required: true },
    { name: 'processedAt', type: 'date' },
    { name: 'payload', type: 'json', required: true },
  ],
}
