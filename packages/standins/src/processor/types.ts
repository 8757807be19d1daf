import type Stripe from 'stripe'

/** A price the stand-in knows from the start (its product is created alongside). */
export type StandInPrice = {
  id: string
  unitAmount: number
  currency?: string
  type: 'one_time' | 'recurring'
  interval?: 'month' | 'year'
  /** Prices are test-mode objects unless this says otherwise; a key of the other mode cannot use them. */
  livemode?: boolean
  active?: boolean
  productName?: string
}

export type StartOptions = {
  /** Default 0: any free port. The server binds 127.0.0.1 only. */
  port?: number
  /** Requests must send `Authorization: Bearer <secretKey>`; `sk_live_` makes the stand-in a live-mode account. */
  secretKey: string
  /** Events are signed with it like Stripe signs webhook deliveries. */
  webhookSecret: string
  /** Where events are POSTed; null records them without delivering. */
  webhookUrl: string | null
  /** Default: DEFAULT_PRICES. */
  prices?: StandInPrice[]
  /** Base of the hosted pages' URLs (checkout, portal, invoices, receipts); default the server's own address. */
  publicUrl?: string
  /** Drives the delivery order of each action's events; tests pass a seeded one. Default Math.random. */
  random?: () => number
  log?: (line: string) => void
  /** Waits before each automatic redelivery of an event whose delivery got no 2xx answer, as Stripe retries. Default none. */
  retryDelaysMs?: readonly number[]
}

/**
 * The next `count` (default 1) requests whose method (any when omitted) and path match are answered by
 * the rule instead of the stand-in. A string path matches the exact path, a RegExp is tested against it
 * (query strings are not part of the path). Without `status`, `body` and `delayMs` the answer is a 500.
 * With only `delayMs`, the request waits that long and is then handled normally, like a slow processor.
 */
export type FailureRule = {
  method?: string
  path: RegExp | string
  status?: number
  delayMs?: number
  count?: number
  body?: unknown
}

/** What the customer's payment method does on the hosted checkout's "Pay". */
export type PayOutcome = 'succeeded' | 'async_succeeded' | 'async_failed' | 'declined'

/** The buyer's answer to the promotional-emails checkbox that `consent_collection[promotions]=auto` shows. */
export type PromotionsConsent = 'opt_in' | 'opt_out'

/**
 * What the buyer types on the hosted checkout without paying ("Save my details"). Stripe keeps it, and
 * shares the email of an expired session only with `promotions: 'opt_in'`.
 */
export type FillInEntries = { email?: string; promotions?: PromotionsConsent }

/** A tax ID as the buyer enters it on the hosted checkout, e.g. `{ type: 'eu_vat', value: 'DE123456789' }`. */
type PayTaxId = { type: Stripe.Checkout.Session.CustomerDetails.TaxId.Type; value: string }

export type PayOptions = {
  email?: string
  outcome?: PayOutcome
  /** The billing address's country (ISO 3166-1 alpha-2); automatic tax is calculated for it. Default: the customer's, else DE. */
  country?: string
  /** Only where the session has `tax_id_collection[enabled]`: the business buyer's tax ID and legal name. */
  taxId?: PayTaxId
  businessName?: string
  /**
   * Only where the session has `consent_collection[promotions]=auto`: the box ticked or not. Default: the
   * answer `fillIn` recorded, else not ticked (`opt_out`).
   */
  promotions?: PromotionsConsent
}

export type SubscriptionChanges = {
  status?: Stripe.Subscription.Status
  cancelAtPeriodEnd?: boolean
  priceId?: string
  /** The first item's quantity (seats), as the billing portal's quantity change sets it. */
  quantity?: number
}

export type WebhookDelivery = { status: number | null; error?: string; at: number }

export type StandInEventRecord = { event: Stripe.Event; deliveries: WebhookDelivery[] }

export type RecordedRequest = { method: string; path: string; idempotencyKey?: string; at: number }

type StandInState = {
  coupons: Map<string, Stripe.Coupon>
  sessions: Map<string, Stripe.Checkout.Session>
  customers: Map<string, Stripe.Customer>
  subscriptions: Map<string, Stripe.Subscription>
  paymentIntents: Map<string, Stripe.PaymentIntent>
  charges: Map<string, Stripe.Charge>
  invoices: Map<string, Stripe.Invoice>
  disputes: Map<string, Stripe.Dispute>
  refunds: Map<string, Stripe.Refund>
  taxIds: Map<string, Stripe.TaxId>
  requests: RecordedRequest[]
}

export type ProcessorStandIn = {
  url: string
  port: number
  close(): Promise<void>
  setWebhookUrl(url: string | null): void
  failNext(rule: FailureRule): void
  clearFailures(): void
  /** The hosted checkout's "Pay" button; resolves with the events in the order they were delivered. */
  pay(sessionId: string, options?: PayOptions): Promise<Stripe.Event[]>
  /** The buyer types on the open session's page and leaves without paying; nothing is delivered. */
  fillIn(sessionId: string, entries: FillInEntries): void
  /** As `checkout.sessions.expire`: resolves with the delivered `checkout.session.expired`. */
  expire(sessionId: string): Promise<Stripe.Event[]>
  /** The expired session's recovery URL as it is after its 30 days: it answers 410 from now on. */
  expireRecovery(sessionId: string): void
  /** Full refund when `amount` is omitted. */
  refund(chargeOrPaymentIntentId: string, amount?: number): Promise<Stripe.Event[]>
  openDispute(chargeId: string): Promise<Stripe.Event[]>
  closeDispute(disputeId: string, outcome: 'won' | 'lost'): Promise<Stripe.Event[]>
  updateSubscription(subscriptionId: string, changes: SubscriptionChanges): Promise<Stripe.Event[]>
  cancelSubscription(subscriptionId: string): Promise<Stripe.Event[]>
  failInvoicePayment(subscriptionId: string): Promise<Stripe.Event[]>
  renewSubscription(subscriptionId: string): Promise<Stripe.Event[]>
  events(): StandInEventRecord[]
  /** Sends the event again: same id, fresh timestamp and signature. */
  redeliver(eventId: string): Promise<{ status: number | null }>
  /**
   * Resolves once every delivery started so far has finished. Events caused by API calls (for example
   * `customer.subscription.updated` after `subscriptions.update`) are delivered after the API answered,
   * as Stripe does, so a test awaits this before looking at what its webhook receiver got.
   */
  settled(): Promise<void>
  /** Returns the `Stripe-Signature` header value `t=...,v1=...` for the payload. */
  sign(payload: string, options?: { timestamp?: number; secret?: string }): string
  state: StandInState
}
