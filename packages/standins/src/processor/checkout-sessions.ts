import type Stripe from 'stripe'

import type { Processor } from './context'
import { couponNoLongerValid } from './coupons'
import { invalidRequest, parameterMissing, resourceMissing } from './errors'
import { daysFrom, nowSeconds } from './ids'
import {
  applyLineDiscounts,
  buildCheckoutSession,
  buildLineItem,
  type SessionDiscount,
  type SessionFields,
} from './objects/checkout'
import { discountOn } from './objects/coupon'
import { integer, boolean as booleanParam, metadata, nonEmptyText, object, objects, type Params } from './params'
import {
  productName,
  requireCoupon,
  requireCustomer,
  requirePrice,
  type CheckoutDetails,
  type CustomerUpdate,
  type CustomerUpdateChoice,
} from './state'
import { customerTaxIds, taxOn, taxRule, type TaxRule } from './tax'

const MODES = ['payment', 'subscription'] as const
type Mode = (typeof MODES)[number]

const CUSTOMER_CREATION = ['always', 'if_required'] as const

const readMode = (params: Params): Mode => {
  const mode = nonEmptyText(params.mode)
  if (mode === undefined) throw parameterMissing('mode')
  if (mode === 'setup') {
    throw invalidRequest('The processor stand-in supports `payment` and `subscription` mode only.', { param: 'mode' })
  }
  const known = MODES.find((candidate) => candidate === mode)
  if (!known) throw invalidRequest(`Invalid mode: must be one of payment, setup, or subscription`, { param: 'mode' })
  return known
}

/** Prices as Stripe checks them: known in this key's mode, active, and of the kind the mode bills. */
const readLineItems = (processor: Processor, params: Params, mode: Mode): Stripe.LineItem[] => {
  const lines = objects(params.line_items)
  if (lines.length === 0) throw parameterMissing('line_items')
  return lines.map((line, index) => {
    const param = `line_items[${index}]`
    const priceId = nonEmptyText(line.price)
    if (priceId === undefined) throw parameterMissing(`${param}[price]`)
    const price = requirePrice(processor.state, priceId, processor.livemode, { param: `${param}[price]`, status: 400 })
    if (!price.active) {
      throw invalidRequest('The price specified is inactive. This field only accepts active prices.', {
        param: `${param}[price]`,
      })
    }
    if (mode === 'payment' && price.type === 'recurring') {
      throw invalidRequest(
        'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
        { param: `${param}[price]` },
      )
    }
    if (mode === 'subscription' && price.type === 'one_time') {
      throw invalidRequest(
        'You must provide at least one recurring price in `subscription` mode when using prices. One-time prices are not supported here.',
        { param: `${param}[price]` },
      )
    }
    const quantity = integer(line.quantity, `${param}[quantity]`) ?? 1
    if (quantity < 1) throw invalidRequest('Quantity must be greater than 0.', { param: `${param}[quantity]` })
    return buildLineItem(price, quantity, productName(processor.state, price))
  })
}

const readCustomer = (processor: Processor, params: Params, mode: Mode) => {
  const customer = nonEmptyText(params.customer)
  const customerEmail = nonEmptyText(params.customer_email)
  const creation = nonEmptyText(params.customer_creation)
  if (customer !== undefined && customerEmail !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: customer, customer_email.', {
      param: 'customer_email',
    })
  }
  if (customer !== undefined) requireCustomer(processor.state, customer, { param: 'customer', status: 400 })
  const customerCreation = CUSTOMER_CREATION.find((value) => value === creation) ?? null
  if (creation !== undefined) {
    if (!customerCreation) {
      throw invalidRequest('Invalid customer_creation: must be one of always or if_required', {
        param: 'customer_creation',
      })
    }
    if (mode !== 'payment') {
      throw invalidRequest('`customer_creation` can only be used in `payment` mode.', { param: 'customer_creation' })
    }
    if (customer !== undefined) {
      throw invalidRequest('You may only specify one of these parameters: customer, customer_creation.', {
        param: 'customer_creation',
      })
    }
  }
  return { customer: customer ?? null, customerEmail: customerEmail ?? null, customerCreation }
}

/**
 * `discounts[0][coupon]`: one discount, exclusive with `allow_promotion_codes`, naming a coupon that
 * can still be redeemed and, for `amount_off`, is in the session's currency. The stand-in has no
 * promotion codes, so every `promotion_code` is unknown to it.
 */
const readDiscount = (
  processor: Processor,
  params: Params,
  mode: Mode,
  lineItems: Stripe.LineItem[],
): SessionDiscount | null => {
  const entries = objects(params.discounts)
  if (entries.length === 0) return null
  if (booleanParam(params.allow_promotion_codes, 'allow_promotion_codes') === true) {
    throw invalidRequest('You may only specify one of these parameters: allow_promotion_codes, discounts.', {
      param: 'allow_promotion_codes',
    })
  }
  if (entries.length > 1) {
    throw invalidRequest('You may only specify one discount per Checkout Session.', { param: 'discounts' })
  }
  const [entry] = entries as [Params]
  const couponId = nonEmptyText(entry.coupon)
  const promotionCode = nonEmptyText(entry.promotion_code)
  if (couponId !== undefined && promotionCode !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: coupon, promotion_code.', {
      param: 'discounts[0][promotion_code]',
    })
  }
  if (promotionCode !== undefined) {
    throw resourceMissing('promotion code', promotionCode, { param: 'discounts[0][promotion_code]', status: 400 })
  }
  if (couponId === undefined) throw parameterMissing('discounts[0][coupon]')
  if (mode === 'subscription') {
    throw invalidRequest('The processor stand-in supports `discounts` in `payment` mode only.', { param: 'discounts' })
  }
  const param = 'discounts[0][coupon]'
  const coupon = requireCoupon(processor.state, couponId, processor.livemode, { param, status: 400 })
  if (!coupon.valid) throw couponNoLongerValid(coupon.id)
  const currency = lineItems[0]?.currency ?? 'usd'
  if (coupon.amount_off !== null && coupon.currency !== currency) {
    throw invalidRequest(
      `The coupon ${coupon.id} is for amounts in ${coupon.currency ?? 'no currency'}, but this Checkout Session is in ${currency}.`,
      { param },
    )
  }
  const subtotal = lineItems.reduce((sum, item) => sum + item.amount_subtotal, 0)
  return { coupon: coupon.id, amount: discountOn(coupon, subtotal) }
}

const CUSTOMER_UPDATE_FIELDS = ['address', 'name', 'shipping'] as const
const CUSTOMER_UPDATE_CHOICES: readonly CustomerUpdateChoice[] = ['auto', 'never']
const TAX_ID_REQUIRED = ['if_supported', 'never'] as const

/** An empty value (`x=`) unsets a parameter, so it reads as not given. */
const given = (params: Params, name: string): boolean => params[name] !== undefined && params[name] !== ''

/** `customer_update[address|name|shipping]`: `auto` or `never` (the default), with an existing `customer` only. */
const readCustomerUpdate = (params: Params, customer: string | null): CustomerUpdate => {
  const update: CustomerUpdate = { name: 'never', address: 'never', shipping: 'never' }
  if (!given(params, 'customer_update')) return update
  if (customer === null) {
    throw invalidRequest('`customer_update` can only be used with `customer`.', { param: 'customer_update' })
  }
  for (const [key, value] of Object.entries(object(params.customer_update))) {
    const param = `customer_update[${key}]`
    const field = CUSTOMER_UPDATE_FIELDS.find((candidate) => candidate === key)
    if (!field) throw invalidRequest(`Received unknown parameter: ${param}`, { param })
    const choice = CUSTOMER_UPDATE_CHOICES.find((candidate) => candidate === nonEmptyText(value))
    if (!choice) throw invalidRequest(`Invalid ${param}: must be one of auto or never`, { param })
    update[field] = choice
  }
  return update
}

/** `tax_id_collection`: an existing customer's name becomes the business name, so Stripe wants leave to update it. */
const readTaxIdCollection = (
  params: Params,
  customer: string | null,
  customerUpdate: CustomerUpdate,
): Stripe.Checkout.Session.TaxIdCollection => {
  if (!given(params, 'tax_id_collection')) return { enabled: false, required: 'never' }
  const fields = object(params.tax_id_collection)
  const enabled = booleanParam(fields.enabled, 'tax_id_collection[enabled]')
  if (enabled === undefined) throw parameterMissing('tax_id_collection[enabled]')
  const requiredText = nonEmptyText(fields.required) ?? 'never'
  const required = TAX_ID_REQUIRED.find((candidate) => candidate === requiredText)
  if (!required) {
    throw invalidRequest('Invalid tax_id_collection[required]: must be one of if_supported or never', {
      param: 'tax_id_collection[required]',
    })
  }
  if (enabled && customer !== null && customerUpdate.name !== 'auto') {
    throw invalidRequest(
      'Tax ID collection requires updating business name on the customer. To enable tax ID collection for an existing customer, please set `customer_update[name]` to `auto`.',
      { param: 'tax_id_collection[enabled]' },
    )
  }
  return { enabled, required: enabled ? required : 'never' }
}

/**
 * `automatic_tax[enabled]`: Stripe Tax needs the buyer's location. An existing customer must have an
 * address already, or checkout must be allowed to save the one it collects.
 */
const readAutomaticTax = (
  processor: Processor,
  params: Params,
  customer: string | null,
  customerUpdate: CustomerUpdate,
): boolean => {
  if (!given(params, 'automatic_tax')) return false
  const enabled = booleanParam(object(params.automatic_tax).enabled, 'automatic_tax[enabled]')
  if (enabled === undefined) throw parameterMissing('automatic_tax[enabled]')
  if (!enabled || customer === null) return enabled
  const hasAddress = Boolean(requireCustomer(processor.state, customer).address?.country)
  if (!hasAddress && customerUpdate.address !== 'auto' && customerUpdate.shipping !== 'auto') {
    throw invalidRequest(
      "Automatic tax calculation in Checkout requires a valid address on the Customer. Add a valid address to the Customer or set either `customer_update[address]` to 'auto' or `customer_update[shipping]` to 'auto' to save the address entered in Checkout to the Customer.",
      { param: 'automatic_tax[enabled]', code: 'customer_tax_location_invalid' },
    )
  }
  return true
}

const MAX_INVOICE_CUSTOM_FIELDS = 4

const readInvoiceData = (value: Params[string]): Stripe.Checkout.Session.InvoiceCreation.InvoiceData => {
  const fields = object(value)
  const base = 'invoice_creation[invoice_data]'
  const customFields = objects(fields.custom_fields).map((field, index) => {
    const name = nonEmptyText(field.name)
    const fieldValue = nonEmptyText(field.value)
    if (name === undefined) throw parameterMissing(`${base}[custom_fields][${index}][name]`)
    if (fieldValue === undefined) throw parameterMissing(`${base}[custom_fields][${index}][value]`)
    return { name, value: fieldValue }
  })
  if (customFields.length > MAX_INVOICE_CUSTOM_FIELDS) {
    throw invalidRequest(`You can have at most ${MAX_INVOICE_CUSTOM_FIELDS} custom fields.`, {
      param: `${base}[custom_fields]`,
    })
  }
  return {
    account_tax_ids: null,
    custom_fields: customFields.length > 0 ? customFields : null,
    description: nonEmptyText(fields.description) ?? null,
    footer: nonEmptyText(fields.footer) ?? null,
    issuer: null,
    metadata: metadata(fields.metadata),
    rendering_options: null,
  }
}

/**
 * `invoice_creation`: a post-payment invoice for a one-time payment. Subscription mode makes its own
 * invoices, so the session shows none there; enabling it there is refused with Stripe's message.
 */
const readInvoiceCreation = (params: Params, mode: Mode): Stripe.Checkout.Session.InvoiceCreation | null => {
  const fields = object(params.invoice_creation)
  const enabled = given(params, 'invoice_creation') ? booleanParam(fields.enabled, 'invoice_creation[enabled]') : false
  if (enabled === undefined) throw parameterMissing('invoice_creation[enabled]')
  if (mode !== 'payment') {
    if (!enabled) return null
    throw invalidRequest(
      'You can only enable invoice creation when `mode` is set to `payment`. Invoices are created automatically when `mode` is set to `subscription`, and are unsupported when set to `setup`. To learn more visit https://stripe.com/docs/payments/checkout/post-payment-invoices.',
      { param: 'invoice_creation' },
    )
  }
  return { enabled, invoice_data: readInvoiceData(enabled ? fields.invoice_data : undefined) }
}

/** Stripe refuses a key it does not know inside a hash parameter. */
const onlyKnownKeys = (fields: Params, known: readonly string[], base: string): void => {
  const unknown = Object.keys(fields).find((key) => !known.includes(key))
  if (unknown === undefined) return
  const param = `${base}[${unknown}]`
  throw invalidRequest(`Received unknown parameter: ${param}`, { param })
}

/** One of an enum's values, refused with Stripe's message otherwise; undefined when not given. */
const readChoice = <T extends string>(value: Params[string], choices: readonly T[], param: string): T | undefined => {
  const text = nonEmptyText(value)
  if (text === undefined) return undefined
  const choice = choices.find((candidate) => candidate === text)
  if (!choice) throw invalidRequest(`Invalid ${param}: must be one of ${choices.join(' or ')}`, { param })
  return choice
}

const MIN_LIFETIME_SECONDS = 30 * 60

/** `expires_at`: from 30 minutes to 24 hours after creation, and 24 hours when not given, as with Stripe. */
const readExpiresAt = (params: Params, created: number): number => {
  const expiresAt = integer(params.expires_at, 'expires_at')
  if (expiresAt === undefined) return daysFrom(created, 1)
  if (expiresAt - created < MIN_LIFETIME_SECONDS) {
    throw invalidRequest('The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.', {
      param: 'expires_at',
    })
  }
  if (expiresAt > daysFrom(created, 1)) {
    throw invalidRequest('The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.', {
      param: 'expires_at',
    })
  }
  return expiresAt
}

/**
 * `after_expiration[recovery]`: with `enabled`, the session gets a recovery URL when it expires
 * (`url` and `expires_at` stay null until then); `allow_promotion_codes` is for the copies it makes.
 */
const readAfterExpiration = (params: Params): Stripe.Checkout.Session.AfterExpiration | null => {
  if (!given(params, 'after_expiration')) return null
  const fields = object(params.after_expiration)
  onlyKnownKeys(fields, ['recovery'], 'after_expiration')
  if (!given(fields, 'recovery')) return { recovery: null }
  const base = 'after_expiration[recovery]'
  const recovery = object(fields.recovery)
  onlyKnownKeys(recovery, ['allow_promotion_codes', 'enabled'], base)
  const enabled = booleanParam(recovery.enabled, `${base}[enabled]`)
  if (enabled === undefined) throw parameterMissing(`${base}[enabled]`)
  const allowPromotionCodes = booleanParam(recovery.allow_promotion_codes, `${base}[allow_promotion_codes]`) ?? false
  return { recovery: { allow_promotion_codes: allowPromotionCodes, enabled, expires_at: null, url: null } }
}

const PROMOTIONS = ['auto', 'none'] as const
const TERMS_OF_SERVICE = ['none', 'required'] as const
const REUSE_AGREEMENT_POSITIONS = ['auto', 'hidden'] as const

/** What Stripe answers `terms_of_service: required` on an account without a terms of service URL, as this one is. */
const NO_TERMS_OF_SERVICE_URL =
  'You cannot collect consent to your terms of service unless a URL is set in the Stripe Dashboard. Update your public business details in the Dashboard https://dashboard.stripe.com/settings/public with a Terms of service URL to collect terms of service consent.'

const readReuseAgreement = (
  value: Params[string],
): Stripe.Checkout.Session.ConsentCollection.PaymentMethodReuseAgreement | null => {
  if (value === undefined || value === '') return null
  const param = 'consent_collection[payment_method_reuse_agreement][position]'
  const position = readChoice(object(value).position, REUSE_AGREEMENT_POSITIONS, param)
  if (position === undefined) throw parameterMissing(param)
  return { position }
}

/**
 * `consent_collection`: `promotions: auto` shows the buyer the promotional-emails checkbox. The
 * stand-in's account has no terms of service URL, so `terms_of_service: required` is refused, as
 * Stripe refuses it then.
 */
const readConsentCollection = (params: Params): Stripe.Checkout.Session.ConsentCollection | null => {
  if (!given(params, 'consent_collection')) return null
  const base = 'consent_collection'
  const fields = object(params.consent_collection)
  onlyKnownKeys(fields, ['payment_method_reuse_agreement', 'promotions', 'terms_of_service'], base)
  const promotions = readChoice(fields.promotions, PROMOTIONS, `${base}[promotions]`) ?? 'none'
  const termsOfService = readChoice(fields.terms_of_service, TERMS_OF_SERVICE, `${base}[terms_of_service]`) ?? 'none'
  if (termsOfService === 'required') {
    throw invalidRequest(NO_TERMS_OF_SERVICE_URL, { param: `${base}[terms_of_service]` })
  }
  return {
    payment_method_reuse_agreement: readReuseAgreement(fields.payment_method_reuse_agreement),
    promotions,
    terms_of_service: termsOfService,
  }
}

/**
 * Adds the tax of `rule` to the line items (on what is left after their discount) and to the session's
 * totals; the calculation is then `complete`.
 */
export const applySessionTax = (
  session: Stripe.Checkout.Session,
  lineItems: Stripe.LineItem[],
  rule: TaxRule,
): void => {
  let tax = 0
  for (const item of lineItems) {
    const taxable = item.amount_subtotal - item.amount_discount
    item.amount_tax = taxOn(taxable, rule.percentage)
    item.amount_total = taxable + item.amount_tax
    tax += item.amount_tax
  }
  const discount = session.total_details?.amount_discount ?? 0
  session.total_details = { amount_discount: discount, amount_shipping: 0, amount_tax: tax }
  session.amount_total = Math.max((session.amount_subtotal ?? 0) - discount, 0) + tax
  session.automatic_tax = { ...session.automatic_tax, status: 'complete' }
}

/** What a new session keeps beside its object (see CheckoutDetails), other than its line items. */
type SessionExtras = Pick<CheckoutDetails, 'paymentIntentMetadata' | 'subscriptionMetadata' | 'customerUpdate'>

/**
 * Stores a new open session, from the create call's parameters or as a recovery URL's copy: its
 * discount spread over the line items, and taxed at once for a customer whose address is known
 * (otherwise when checkout has the buyer's address).
 */
export const openCheckoutSession = (
  processor: Processor,
  fields: SessionFields,
  extras: SessionExtras,
): Stripe.Checkout.Session => {
  const { lineItems } = fields
  if (fields.discount) applyLineDiscounts(lineItems, fields.discount.amount)
  const session = buildCheckoutSession(processor, fields)
  const known = fields.customer === null ? null : requireCustomer(processor.state, fields.customer)
  if (fields.automaticTax && known?.address?.country) {
    const [taxId] = customerTaxIds(processor, known.id)
    const rule = taxRule(processor, known.address.country, taxId ? { type: taxId.type, value: taxId.value } : null)
    applySessionTax(session, lineItems, rule)
  }
  processor.state.sessions.set(session.id, session)
  processor.state.checkoutDetails.set(session.id, { lineItems, ...extras, entries: { email: null, promotions: null } })
  return session
}

/** `POST /v1/checkout/sessions`, validated the way Stripe rejects the mistakes an integration makes. */
export const createCheckoutSession = (processor: Processor, params: Params): Stripe.Checkout.Session => {
  const created = nowSeconds()
  const mode = readMode(params)
  const lineItems = readLineItems(processor, params, mode)
  if (mode === 'subscription' && params.payment_intent_data !== undefined) {
    throw invalidRequest('You can not pass `payment_intent_data` in `subscription` mode.', {
      param: 'payment_intent_data',
    })
  }
  if (mode === 'payment' && params.subscription_data !== undefined) {
    throw invalidRequest('You can not pass `subscription_data` in `payment` mode.', { param: 'subscription_data' })
  }
  const customer = readCustomer(processor, params, mode)
  const customerUpdate = readCustomerUpdate(params, customer.customer)
  const discount = readDiscount(processor, params, mode, lineItems)
  const invoiceCreation = readInvoiceCreation(params, mode)
  const taxIdCollection = readTaxIdCollection(params, customer.customer, customerUpdate)
  const automaticTax = readAutomaticTax(processor, params, customer.customer, customerUpdate)
  const fields: SessionFields = {
    mode,
    lineItems,
    discount,
    ...customer,
    automaticTax,
    taxIdCollection,
    invoiceCreation,
    clientReferenceId: nonEmptyText(params.client_reference_id) ?? null,
    metadata: metadata(params.metadata),
    allowPromotionCodes: booleanParam(params.allow_promotion_codes, 'allow_promotion_codes') ?? null,
    successUrl: nonEmptyText(params.success_url) ?? null,
    cancelUrl: nonEmptyText(params.cancel_url) ?? null,
    created,
    expiresAt: readExpiresAt(params, created),
    afterExpiration: readAfterExpiration(params),
    consentCollection: readConsentCollection(params),
    recoveredFrom: null,
  }
  return openCheckoutSession(processor, fields, {
    paymentIntentMetadata: metadata(object(params.payment_intent_data).metadata),
    subscriptionMetadata: metadata(object(params.subscription_data).metadata),
    customerUpdate,
  })
}

export const lineItemsOf = (processor: Processor, sessionId: string): Stripe.LineItem[] =>
  processor.state.checkoutDetails.get(sessionId)?.lineItems ?? []
