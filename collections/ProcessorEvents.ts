import type { CollectionConfig } from 'payload'

import { staffReadOnly } from '../src/access/customer-rows'
import { GROUPS, labelled } from './options'

/** The processor's webhook events, one row per event id: what arrived, and what became of it. */
export const ProcessorEvents: CollectionConfig = {
  slug: 'processor_events',
  labels: { singular: 'Payment processor event', plural: 'Payment processor events' },
  admin: {
    useAsTitle: 'eventId',
    defaultColumns: ['type', 'status', 'attempts', 'receivedAt', 'processedAt', 'eventId'],
    group: GROUPS.sales,
    description:
      'What the payment processor told us (payments, subscriptions, refunds, chargebacks), one row per event. A failed event can be run again from its page.',
    components: { edit: { beforeDocumentControls: ['/app/(payload)/_components/RetryEventButton#RetryEventButton'] } },
  },
  access: staffReadOnly,
  fields: [
    { name: 'eventId', label: 'Event ID (processor)', type: 'text', required: true, unique: true },
    {
      name: 'type',
      label: 'Event type',
      type: 'text',
      required: true,
      index: true,
      admin: { description: "The processor's name for it, such as invoice.paid." },
    },
    {
      name: 'livemode',
      label: 'Real money (live mode)',
      type: 'checkbox',
      defaultValue: false,
      admin: { description: 'Off: a test-mode event, no real payment.' },
    },
    {
      name: 'status',
      type: 'select',
      required: true,
      index: true,
      options: labelled(['received', 'processed', 'ignored', 'failed'], {
        received: 'Received, not applied yet',
        processed: 'Applied',
        ignored: 'Ignored (nothing to do)',
        failed: 'Failed',
      }),
    },
    {
      name: 'attempts',
      type: 'number',
      defaultValue: 0,
      admin: { description: 'How many times the service tried to apply it.' },
    },
    { name: 'lastError', label: 'Last error', type: 'textarea' },
    {
      name: 'objectId',
      label: 'Object ID (processor)',
      type: 'text',
      index: true,
      admin: { description: 'The payment, subscription or invoice it is about.' },
    },
    { name: 'receivedAt', label: 'Received', type: 'date', required: true },
    { name: 'processedAt', label: 'Applied', type: 'date' },
    { name: 'payload', label: 'Event as received', type: 'json', required: true },
  ],
}
