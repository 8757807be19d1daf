import crypto from 'node:crypto'

import type Stripe from 'stripe'

import type { Processor } from '../context'
import { fromFixture } from '../fixtures'
import { newId, nowSeconds } from '../ids'

export const buildCustomer = (
  processor: Processor,
  fields: { email: string | null; name: string | null; metadata: Stripe.Metadata; address?: Stripe.Address | null },
): Stripe.Customer =>
  fromFixture<Stripe.Customer>('customer', {
    id: newId('cus'),
    address: fields.address ?? null,
    created: nowSeconds(),
    email: fields.email,
    name: fields.name,
    metadata: fields.metadata,
    livemode: processor.livemode,
    // Invoice numbers are `<prefix>-0001`, `<prefix>-0002`, ... per customer.
    invoice_prefix: crypto.randomBytes(4).toString('hex').toUpperCase(),
    next_invoice_sequence: 1,
  })

/** What Stripe answers for a deleted customer: deleting it, and retrieving it afterwards. */
export const buildDeletedCustomer = (id: string): Stripe.DeletedCustomer =>
  fromFixture<Stripe.DeletedCustomer>('deleted_customer', { id })
