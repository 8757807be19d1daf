import crypto from 'node:crypto'

import type Stripe from 'stripe'

import type { Processor } from '../context'
import { fromFixture } from '../fixtures'
import { daysFrom, newId, nowSeconds } from '../ids'

/** Cards settle at once; US bank debits are the delayed methods behind checkout's async events. */
export type PaymentMethodKind = 'card' | 'us_bank_account'

const BANK_ACCOUNT_DETAILS = {
  type: 'us_bank_account',
  us_bank_account: {
    account_holder_type: 'individual',
    account_type: 'checking',
    bank_name: 'STRIPE TEST BANK',
    fingerprint: 'FFDMA0xfhBjWSZLu',
    last4: '6789',
    routing_number: '110000000',
  },
}

const DECLINES: Record<PaymentMethodKind, Partial<Stripe.PaymentIntent.LastPaymentError>> = {
  card: {
    type: 'card_error',
    code: 'card_declined',
    decline_code: 'generic_decline',
    message: 'Your card was declined.',
  },
  us_bank_account: {
    type: 'invalid_request_error',
    code: 'insufficient_funds',
    message: "The customer's account has insufficient funds to cover this payment.",
  },
}

export const buildPaymentIntent = (
  processor: Processor,
  fields: {
    amount: number
    currency: string
    customer: string | null
    metadata: Stripe.Metadata
    description: string | null
    kind: PaymentMethodKind
    receiptEmail: string | null
  },
): Stripe.PaymentIntent => {
  const id = newId('pi')
  return fromFixture<Stripe.PaymentIntent>('payment_intent', {
    id,
    amount: fields.amount,
    amount_received: 0,
    canceled_at: null,
    client_secret: `${id}_secret_${crypto.randomBytes(12).toString('hex')}`,
    created: nowSeconds(),
    currency: fields.currency,
    customer: fields.customer,
    description: fields.description,
    livemode: processor.livemode,
    metadata: fields.metadata,
    payment_method: newId('pm'),
    payment_method_types: [fields.kind],
    receipt_email: fields.receiptEmail,
  })
}

/** A charge that went through; it carries its payment intent's metadata, as Stripe copies it. */
export const buildCharge = (
  processor: Processor,
  fields: { paymentIntent: Stripe.PaymentIntent; email: string | null; kind: PaymentMethodKind },
): Stripe.Charge => {
  const { paymentIntent } = fields
  const id = newId('ch')
  return fromFixture<Stripe.Charge>('charge', {
    id,
    amount: paymentIntent.amount,
    amount_captured: paymentIntent.amount,
    amount_refunded: 0,
    balance_transaction: newId('txn'),
    billing_details: {
      address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
      email: fields.email,
      name: null,
      phone: null,
      tax_id: null,
    },
    captured: true,
    created: nowSeconds(),
    currency: paymentIntent.currency,
    customer: paymentIntent.customer,
    description: paymentIntent.description,
    disputed: false,
    livemode: processor.livemode,
    metadata: paymentIntent.metadata,
    outcome: {
      network_status: 'approved_by_network',
      reason: null,
      risk_level: 'normal',
      seller_message: 'Payment complete.',
      type: 'authorized',
    },
    paid: true,
    payment_intent: paymentIntent.id,
    payment_method: paymentIntent.payment_method,
    ...(fields.kind === 'us_bank_account' ? { payment_method_details: BANK_ACCOUNT_DETAILS } : {}),
    receipt_email: fields.email,
    receipt_url: `${processor.publicUrl}/receipt/${id}`,
    refunded: false,
    refunds: { object: 'list', data: [], has_more: false, url: `/v1/charges/${id}/refunds` },
    status: 'succeeded',
  })
}

export const markSucceeded = (paymentIntent: Stripe.PaymentIntent, charge: Stripe.Charge): void => {
  paymentIntent.status = 'succeeded'
  paymentIntent.amount_received = paymentIntent.amount
  paymentIntent.latest_charge = charge.id
  paymentIntent.last_payment_error = null
}

export const markDeclined = (paymentIntent: Stripe.PaymentIntent, kind: PaymentMethodKind): void => {
  paymentIntent.status = 'requires_payment_method'
  paymentIntent.last_payment_error = { ...DECLINES[kind] } as Stripe.PaymentIntent.LastPaymentError
}

export const buildRefund = (charge: Stripe.Charge, amount: number): Stripe.Refund =>
  fromFixture<Stripe.Refund>('refund', {
    id: newId('re'),
    amount,
    balance_transaction: newId('txn'),
    charge: charge.id,
    created: nowSeconds(),
    currency: charge.currency,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason: null,
    status: 'succeeded',
  })

/** A new chargeback: the cardholder's bank took the money back and the merchant has a week to respond. */
export const buildDispute = (processor: Processor, charge: Stripe.Charge): Stripe.Dispute => {
  const created = nowSeconds()
  return fromFixture<Stripe.Dispute>('dispute', {
    id: newId('dp'),
    amount: charge.amount - charge.amount_refunded,
    charge: charge.id,
    created,
    currency: charge.currency,
    evidence_details: { due_by: daysFrom(created, 7), has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: false,
    livemode: processor.livemode,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason: 'fraudulent',
    status: 'needs_response',
  })
}
