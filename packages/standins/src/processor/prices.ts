import type Stripe from 'stripe'

import { fromFixture } from './fixtures'
import { newId, nowSeconds } from './ids'
import type { StandInPrice } from './types'

/** The catalogue the service sells, under stable IDs so configuration can name them. */
export const DEFAULT_PRICES: StandInPrice[] = [
  { id: 'price_standin_standard_lifetime', unitAmount: 14900, type: 'one_time', productName: 'Standard (lifetime)' },
  { id: 'price_standin_ultimate_lifetime', unitAmount: 29900, type: 'one_time', productName: 'Ultimate (lifetime)' },
  {
    id: 'price_standin_standard_renewal',
    unitAmount: 4900,
    type: 'one_time',
    productName: 'Standard (renewal of updates)',
  },
  {
    id: 'price_standin_pro_monthly',
    unitAmount: 2900,
    type: 'recurring',
    interval: 'month',
    productName: 'Pro (monthly)',
  },
  {
    id: 'price_standin_pro_yearly',
    unitAmount: 29000,
    type: 'recurring',
    interval: 'year',
    productName: 'Pro (yearly)',
  },
  { id: 'price_standin_live_only', unitAmount: 9900, type: 'one_time', livemode: true, productName: 'Live-mode price' },
]

export const buildProduct = (fields: {
  name: string
  livemode: boolean
  defaultPrice: string | null
}): Stripe.Product => {
  const created = nowSeconds()
  return fromFixture<Stripe.Product>('product', {
    id: newId('prod'),
    name: fields.name,
    description: null,
    default_price: fields.defaultPrice,
    livemode: fields.livemode,
    created,
    updated: created,
  })
}

export const buildPrice = (fields: {
  id?: string
  unitAmount: number
  currency: string
  interval: 'day' | 'week' | 'month' | 'year' | null
  productId: string
  livemode: boolean
  active: boolean
  metadata?: Stripe.Metadata
  nickname?: string | null
}): Stripe.Price =>
  fromFixture<Stripe.Price>('price', {
    id: fields.id ?? newId('price'),
    active: fields.active,
    created: nowSeconds(),
    currency: fields.currency,
    livemode: fields.livemode,
    metadata: fields.metadata ?? {},
    nickname: fields.nickname ?? null,
    product: fields.productId,
    type: fields.interval ? 'recurring' : 'one_time',
    recurring: fields.interval
      ? { interval: fields.interval, interval_count: 1, usage_type: 'licensed', meter: null, trial_period_days: null }
      : null,
    unit_amount: fields.unitAmount,
    unit_amount_decimal: String(fields.unitAmount),
  })

/** A configured price and its product, as the account would hold them. */
export const catalogueEntry = (price: StandInPrice): { price: Stripe.Price; product: Stripe.Product } => {
  const livemode = price.livemode ?? false
  const product = buildProduct({ name: price.productName ?? price.id, livemode, defaultPrice: price.id })
  return {
    product,
    price: buildPrice({
      id: price.id,
      unitAmount: price.unitAmount,
      currency: price.currency ?? 'usd',
      interval: price.type === 'recurring' ? (price.interval ?? 'month') : null,
      productId: product.id,
      livemode,
      active: price.active ?? true,
    }),
  }
}
