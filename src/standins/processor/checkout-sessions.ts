import type Stripe from 'stripe'

import type { Processor } from './context'
import { couponNoLongerValid } from './coupons'
import { invalidRequest, parameterMissing, resourceMissing } from './errors'
import { applyLineDiscounts, buildCheckoutSession, buildLineItem, type SessionDiscount } from './objects/checkout'
import { discountOn } from './objects/coupon'
import { integer, boolean as booleanParam, metadata, nonEmptyText, object, objects, type Params } from './params'
import { productName, requireCoupon, requireCustomer, requirePrice } from './state'

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

/** `POST /v1/checkout/sessions`, validated the way Stripe rejects the mistakes an integration makes. */
export const createCheckoutSession = (processor: Processor, params: Params): Stripe.Checkout.Session => {
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
  const discount = readDiscount(processor, params, mode, lineItems)
  if (discount) applyLineDiscounts(lineItems, discount.amount)
  const session = buildCheckoutSession(processor, {
    mode,
    lineItems,
    discount,
    ...readCustomer(processor, params, mode),
    clientReferenceId: nonEmptyText(params.client_reference_id) ?? null,
    metadata: metadata(params.metadata),
    allowPromotionCodes: booleanParam(params.allow_promotion_codes, 'allow_promotion_codes') ?? null,
    successUrl: nonEmptyText(params.success_url) ?? null,
    cancelUrl: nonEmptyText(params.cancel_url) ?? null,
  })
  processor.state.sessions.set(session.id, session)
  processor.state.checkoutDetails.set(session.id, {
    lineItems,
    paymentIntentMetadata: metadata(object(params.payment_intent_data).metadata),
    subscriptionMetadata: metadata(object(params.subscription_data).metadata),
  })
  return session
}

export const lineItemsOf = (processor: Processor, sessionId: string): Stripe.LineItem[] =>
  processor.state.checkoutDetails.get(sessionId)?.lineItems ?? []
