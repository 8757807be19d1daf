import express from 'express'
import type Stripe from 'stripe'

import { apiHandler, type ApiHandler } from './api-handler'
import { refundCharge } from './charges'
import { expireCheckoutSession } from './checkout-expiry'
import { createCheckoutSession, lineItemsOf } from './checkout-sessions'
import type { Processor } from './context'
import { createCoupon } from './coupons'
import { invalidRequest, parameterMissing, resourceMissing } from './errors'
import { previousAttributes } from './events'
import { invoicePaymentOf } from './objects/billing'
import { buildPortalSession } from './objects/checkout'
import { buildDeletedCoupon } from './objects/coupon'
import { buildCustomer, buildDeletedCustomer } from './objects/customer'
import { boolean as booleanParam, integer, mergeMetadata, metadata, nonEmptyText, object, type Params } from './params'
import { buildPrice, buildProduct } from './prices'
import {
  requireCharge,
  requireCoupon,
  refreshCouponValidity,
  requireCustomer,
  requireDispute,
  requireInvoice,
  requirePaymentIntent,
  requirePrice,
  requireRefund,
  requireSession,
  requireSubscription,
  requireTaxRate,
} from './state'
import { customerTaxIds } from './tax'
import { cancelCustomerSubscriptions, cancelSubscription, updateSubscriptionFromApi } from './subscriptions'

const INTERVALS = ['day', 'week', 'month', 'year'] as const

const list = (data: object[], url: string) => ({ object: 'list', data, has_more: false, url })

/** Stripe's list pagination: newest first, `limit` (1-100, default 10) after `starting_after`. */
const page = <T extends { id: string }>(all: T[], params: Params, url: string) => {
  const limit = integer(params.limit, 'limit') ?? 10
  if (limit < 1 || limit > 100) throw invalidRequest('This value must be between 1 and 100.', { param: 'limit' })
  const newestFirst = [...all].reverse()
  const after = nonEmptyText(params.starting_after)
  const start = after === undefined ? 0 : newestFirst.findIndex((entry) => entry.id === after) + 1
  const data = newestFirst.slice(start, start + limit)
  return { ...list(data, url), has_more: start + limit < newestFirst.length }
}

const createProduct = (processor: Processor, params: Params): string => {
  const name = nonEmptyText(object(params.product_data).name)
  if (name === undefined) {
    throw invalidRequest('You must specify either `product` or `product_data` when creating a price.', {
      param: 'product_data',
    })
  }
  const product = buildProduct({ name, livemode: processor.livemode, defaultPrice: null })
  processor.state.products.set(product.id, product)
  return product.id
}

const prices = (processor: Processor) =>
  ({
    retrieve: ({ path }) => ({ body: requirePrice(processor.state, path('id'), processor.livemode) }),
    list: ({ params }) => {
      const active = booleanParam(params.active, 'active')
      const type = nonEmptyText(params.type)
      const visible = [...processor.state.prices.values()].filter(
        (price) =>
          price.livemode === processor.livemode &&
          (active === undefined || price.active === active) &&
          (type === undefined || price.type === type),
      )
      return { body: page(visible, params, '/v1/prices') }
    },
    create: ({ params }) => {
      const currency = nonEmptyText(params.currency)
      if (currency === undefined) throw parameterMissing('currency')
      const unitAmount = integer(params.unit_amount, 'unit_amount')
      if (unitAmount === undefined) throw parameterMissing('unit_amount')
      const intervalParam = nonEmptyText(object(params.recurring).interval)
      const interval = INTERVALS.find((candidate) => candidate === intervalParam) ?? null
      if (intervalParam !== undefined && interval === null) {
        throw invalidRequest('Invalid recurring[interval]: must be one of day, month, week, or year', {
          param: 'recurring[interval]',
        })
      }
      const productId = nonEmptyText(params.product) ?? createProduct(processor, params)
      if (!processor.state.products.has(productId)) {
        throw resourceMissing('product', productId, { param: 'product', status: 400 })
      }
      const price = buildPrice({
        unitAmount,
        currency: currency.toLowerCase(),
        interval,
        productId,
        livemode: processor.livemode,
        active: booleanParam(params.active, 'active') ?? true,
        metadata: metadata(params.metadata),
        nickname: nonEmptyText(params.nickname) ?? null,
      })
      processor.state.prices.set(price.id, price)
      return { body: price }
    },
    /**
     * A price's amount, currency, type and interval never change once it exists: the API takes only
     * these and refuses anything else as an unknown parameter, as Stripe does.
     */
    update: ({ path, params }) => {
      const price = requirePrice(processor.state, path('id'), processor.livemode)
      for (const key of Object.keys(params)) {
        if (!PRICE_UPDATABLE.has(key)) throw invalidRequest(`Received unknown parameter: ${key}`, { param: key })
      }
      const active = booleanParam(params.active, 'active')
      const updated: Stripe.Price = {
        ...price,
        ...(active === undefined ? {} : { active }),
        ...(params.metadata === undefined ? {} : { metadata: mergeMetadata(price.metadata, params.metadata) }),
        ...(params.nickname === undefined ? {} : { nickname: nonEmptyText(params.nickname) ?? null }),
        ...(params.lookup_key === undefined ? {} : { lookup_key: nonEmptyText(params.lookup_key) ?? null }),
      }
      processor.state.prices.set(price.id, updated)
      return { body: updated }
    },
  }) satisfies Record<string, ApiHandler>

/** What POST /v1/prices/:id accepts (expand aside, which every request may send). */
const PRICE_UPDATABLE = new Set(['active', 'metadata', 'nickname', 'lookup_key', 'expand'])

const coupons = (processor: Processor) =>
  ({
    create: ({ params, origin }) => {
      const coupon = createCoupon(processor, params)
      return { body: coupon, events: [processor.events.create('coupon.created', coupon, origin)] }
    },
    retrieve: ({ path }) => ({ body: requireCoupon(processor.state, path('id'), processor.livemode) }),
    list: ({ params }) => {
      const visible = [...processor.state.coupons.values()]
        .filter((coupon) => coupon.livemode === processor.livemode)
        .map(refreshCouponValidity)
      return { body: page(visible, params, '/v1/coupons') }
    },
    /** Deleting stops new redemptions; what was already discounted stays so. */
    del: ({ path, origin }) => {
      const coupon = requireCoupon(processor.state, path('id'), processor.livemode)
      processor.state.coupons.delete(coupon.id)
      return {
        body: buildDeletedCoupon(coupon.id),
        events: [processor.events.create('coupon.deleted', coupon, origin)],
      }
    },
  }) satisfies Record<string, ApiHandler>

const ADDRESS_FIELDS = ['city', 'country', 'line1', 'line2', 'postal_code', 'state'] as const

/** `address[country]=DE&address[city]=...`; an empty `address=` unsets it. */
const readAddress = (value: Params[string]): Stripe.Address | null => {
  const fields = object(value)
  const address: Stripe.Address = {
    city: null,
    country: null,
    line1: null,
    line2: null,
    postal_code: null,
    state: null,
  }
  for (const key of Object.keys(fields)) {
    const field = ADDRESS_FIELDS.find((candidate) => candidate === key)
    if (!field) throw invalidRequest(`Received unknown parameter: address[${key}]`, { param: `address[${key}]` })
    address[field] = nonEmptyText(fields[key]) ?? null
  }
  return Object.values(address).some((entry) => entry !== null) ? address : null
}

const customers = (processor: Processor) =>
  ({
    create: ({ params, origin }) => {
      const customer = buildCustomer(processor, {
        email: nonEmptyText(params.email) ?? null,
        name: nonEmptyText(params.name) ?? null,
        metadata: metadata(params.metadata),
        address: readAddress(params.address),
      })
      processor.state.customers.set(customer.id, customer)
      return { body: customer, events: [processor.events.create('customer.created', customer, origin)] }
    },
    /** A deleted customer's ID still answers, with the deleted customer object, as Stripe does. */
    retrieve: ({ path }) => {
      const id = path('id')
      if (processor.state.deletedCustomers.has(id)) return { body: buildDeletedCustomer(id) }
      return { body: requireCustomer(processor.state, id) }
    },
    update: ({ path, params, origin }) => {
      const customer = requireCustomer(processor.state, path('id'))
      const before = structuredClone(customer)
      // An empty value unsets the field, as in Stripe's form encoding.
      if (params.email !== undefined) customer.email = nonEmptyText(params.email) ?? null
      if (params.name !== undefined) customer.name = nonEmptyText(params.name) ?? null
      if (params.address !== undefined) customer.address = readAddress(params.address)
      if (params.metadata !== undefined) customer.metadata = mergeMetadata(customer.metadata, params.metadata)
      const changed = previousAttributes(before, customer)
      const events =
        Object.keys(changed).length > 0
          ? [processor.events.create('customer.updated', customer, { previousAttributes: changed, ...origin })]
          : []
      return { body: customer, events }
    },
    /**
     * Stripe cancels the customer's subscriptions at once; afterwards only retrieving it answers (the
     * deleted customer object): updating, deleting again, checkout and the portal refuse it as "No such customer".
     */
    del: ({ path, origin }) => {
      const customer = requireCustomer(processor.state, path('id'))
      const canceled = cancelCustomerSubscriptions(processor, customer.id, origin)
      processor.state.customers.delete(customer.id)
      processor.state.deletedCustomers.add(customer.id)
      return {
        body: buildDeletedCustomer(customer.id),
        events: [...canceled.events, processor.events.create('customer.deleted', customer, origin)],
      }
    },
    /** The tax IDs checkout saved on the customer. */
    taxIds: ({ path, params }) => {
      const customer = requireCustomer(processor.state, path('id'))
      const url = `/v1/customers/${customer.id}/tax_ids`
      return { body: page(customerTaxIds(processor, customer.id), params, url) }
    },
  }) satisfies Record<string, ApiHandler>

const checkout = (processor: Processor) =>
  ({
    create: ({ params }) => ({ body: createCheckoutSession(processor, params) }),
    retrieve: ({ path }) => ({ body: requireSession(processor.state, path('id')) }),
    lineItems: ({ path }) => {
      const session = requireSession(processor.state, path('id'))
      return { body: list(lineItemsOf(processor, session.id), `/v1/checkout/sessions/${session.id}/line_items`) }
    },
    expire: ({ path, origin }) => {
      const { session, events } = expireCheckoutSession(processor, path('id'), origin)
      return { body: session, events }
    },
  }) satisfies Record<string, ApiHandler>

const portal =
  (processor: Processor): ApiHandler =>
  ({ params }) => {
    const customerId = nonEmptyText(params.customer)
    if (customerId === undefined) throw parameterMissing('customer')
    requireCustomer(processor.state, customerId, { param: 'customer', status: 400 })
    const session = buildPortalSession(processor, {
      customer: customerId,
      returnUrl: nonEmptyText(params.return_url) ?? null,
    })
    processor.state.portalSessions.set(session.id, session)
    return { body: session }
  }

const subscriptions = (processor: Processor) =>
  ({
    retrieve: ({ path }) => ({ body: requireSubscription(processor.state, path('id')) }),
    update: ({ path, params, origin }) => {
      const { subscription, events } = updateSubscriptionFromApi(processor, path('id'), params, origin)
      return { body: subscription, events }
    },
    cancel: ({ path, origin }) => {
      const { subscription, events } = cancelSubscription(processor, path('id'), origin)
      return { body: subscription, events }
    },
  }) satisfies Record<string, ApiHandler>

const refunds =
  (processor: Processor): ApiHandler =>
  ({ params, origin }) => {
    const target = nonEmptyText(params.charge) ?? nonEmptyText(params.payment_intent)
    if (target === undefined) {
      throw invalidRequest('One of `charge` or `payment_intent` is required.', { code: 'parameter_missing' })
    }
    const { refund, events } = refundCharge(processor, target, integer(params.amount, 'amount'), origin)
    return { body: refund, events }
  }

const retrieveEvent =
  (processor: Processor): ApiHandler =>
  ({ path }) => {
    const record = processor.events.list().find((entry) => entry.event.id === path('id'))
    if (!record) throw resourceMissing('event', path('id'), { param: 'id' })
    return { body: record.event }
  }

const invoicePayments =
  (processor: Processor): ApiHandler =>
  ({ params }) => {
    const invoiceId = nonEmptyText(params.invoice)
    const paymentIntentId = nonEmptyText(object(params.payment).payment_intent)
    const matching = [...processor.state.invoices.values()].filter(
      (invoice) =>
        invoice.payment_intent !== null &&
        (invoiceId === undefined || invoice.id === invoiceId) &&
        (paymentIntentId === undefined || invoice.payment_intent === paymentIntentId),
    )
    return { body: page(matching.map(invoicePaymentOf), params, '/v1/invoice_payments') }
  }

const retrieve =
  (find: (id: string) => object): ApiHandler =>
  ({ path }) => ({ body: find(path('id')) })

/** The part of Stripe's REST API the service uses, under `/v1`, behind the API key check. */
export const apiRoutes = (processor: Processor): express.Router => {
  const router = express.Router()
  const on = (handler: ApiHandler) => apiHandler(processor, handler)
  const { state } = processor
  const price = prices(processor)
  const customer = customers(processor)
  const coupon = coupons(processor)
  const session = checkout(processor)
  const subscription = subscriptions(processor)

  router.get('/v1/prices', on(price.list))
  router.post('/v1/prices', on(price.create))
  router.get('/v1/prices/:id', on(price.retrieve))
  router.post('/v1/prices/:id', on(price.update))
  router.get('/v1/coupons', on(coupon.list))
  router.post('/v1/coupons', on(coupon.create))
  router.get('/v1/coupons/:id', on(coupon.retrieve))
  router.delete('/v1/coupons/:id', on(coupon.del))
  router.post('/v1/customers', on(customer.create))
  router.get('/v1/customers/:id', on(customer.retrieve))
  router.post('/v1/customers/:id', on(customer.update))
  router.delete('/v1/customers/:id', on(customer.del))
  router.get('/v1/customers/:id/tax_ids', on(customer.taxIds))
  router.get('/v1/tax_rates/:id', on(retrieve((id) => requireTaxRate(state, id))))
  router.post('/v1/checkout/sessions', on(session.create))
  router.get('/v1/checkout/sessions/:id', on(session.retrieve))
  router.get('/v1/checkout/sessions/:id/line_items', on(session.lineItems))
  router.post('/v1/checkout/sessions/:id/expire', on(session.expire))
  router.post('/v1/billing_portal/sessions', on(portal(processor)))
  router.get('/v1/subscriptions/:id', on(subscription.retrieve))
  router.post('/v1/subscriptions/:id', on(subscription.update))
  router.delete('/v1/subscriptions/:id', on(subscription.cancel))
  router.get('/v1/payment_intents/:id', on(retrieve((id) => requirePaymentIntent(state, id))))
  router.get('/v1/charges/:id', on(retrieve((id) => requireCharge(state, id))))
  router.get('/v1/invoices/:id', on(retrieve((id) => requireInvoice(state, id))))
  router.get('/v1/invoice_payments', on(invoicePayments(processor)))
  router.get('/v1/disputes/:id', on(retrieve((id) => requireDispute(state, id))))
  router.post('/v1/refunds', on(refunds(processor)))
  router.get('/v1/refunds/:id', on(retrieve((id) => requireRefund(state, id))))
  router.get('/v1/events/:id', on(retrieveEvent(processor)))
  return router
}
