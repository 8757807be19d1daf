import type Stripe from 'stripe'

import type { Processor } from './context'
import { fromFixture } from './fixtures'
import { newId, nowSeconds } from './ids'

/**
 * The stand-in's Stripe Tax: a fixed table, not a tax engine. Prices are tax-exclusive and the tax is
 * added on top of what is left after the discount, line by line (each line rounded half up):
 *
 * - the countries below charge their standard VAT rate (percent);
 * - a business buyer (one who gave a tax ID) in one of them is reverse charged: no tax
 *   (`taxability_reason: 'reverse_charge'`), as Stripe Tax does for a seller abroad;
 * - every other country, the US included, is not taxed (`not_collecting`, rate 0).
 *
 * Without any address (no country from the buyer, none on the customer) the buyer is in DEFAULT_COUNTRY.
 */
export const VAT_RATES: Readonly<Record<string, number>> = {
  AT: 20,
  BE: 21,
  DE: 19,
  ES: 21,
  FR: 20,
  GB: 20,
  IE: 23,
  IT: 22,
  NL: 21,
  PL: 23,
  SE: 25,
}

export const DEFAULT_COUNTRY = 'DE'

/** The account's own country (as in the fixtures' invoices): every VAT country is abroad for it. */
export const ACCOUNT_COUNTRY = 'US'

export type CollectedTaxId = { type: Stripe.Checkout.Session.CustomerDetails.TaxId.Type; value: string }

export type TaxRule = {
  country: string
  percentage: number
  reason: Stripe.Invoice.TotalTax.TaxabilityReason
  taxRate: Stripe.TaxRate
}

/** One line's share: what was taxed and the tax on it. */
export type LineTax = { taxable: number; amount: number }

export const isTaxedCountry = (country: string): boolean => VAT_RATES[country] !== undefined

/** Tax rates are made once per country and rule, as Stripe Tax reuses its rates. */
const taxRateFor = (processor: Processor, country: string, percentage: number): Stripe.TaxRate => {
  const key = `${country}:${percentage}`
  const known = processor.state.taxRates.get(key)
  if (known) return known
  const vat = isTaxedCountry(country)
  const rate = fromFixture<Stripe.TaxRate>('tax_rate', {
    id: newId('txr'),
    active: true,
    country,
    created: nowSeconds(),
    description: null,
    display_name: vat ? 'VAT' : 'Sales tax',
    effective_percentage: percentage,
    flat_amount: null,
    inclusive: false,
    jurisdiction: country,
    jurisdiction_level: 'country',
    livemode: processor.livemode,
    metadata: {},
    percentage,
    rate_type: 'percentage',
    state: null,
    tax_type: vat ? 'vat' : 'sales_tax',
  })
  processor.state.taxRates.set(key, rate)
  return rate
}

/** The rule for a buyer in `country`, a business one when it gave a tax ID. */
export const taxRule = (processor: Processor, country: string, taxId: CollectedTaxId | null): TaxRule => {
  const vat = VAT_RATES[country]
  if (vat === undefined) {
    return { country, percentage: 0, reason: 'not_collecting', taxRate: taxRateFor(processor, country, 0) }
  }
  if (taxId && country !== ACCOUNT_COUNTRY) {
    return { country, percentage: 0, reason: 'reverse_charge', taxRate: taxRateFor(processor, country, 0) }
  }
  return { country, percentage: vat, reason: 'standard_rated', taxRate: taxRateFor(processor, country, vat) }
}

/** Exclusive tax on one taxable amount, rounded half up to the currency's smallest unit. */
export const taxOn = (taxable: number, percentage: number): number =>
  Math.round(Number(((taxable * percentage) / 100).toFixed(6)))

export const lineTax = (rule: TaxRule, taxable: number): LineTax => ({
  taxable,
  amount: taxOn(taxable, rule.percentage),
})

/** An invoice's (or invoice line's) `total_taxes`/`taxes` entry in the shape of API version 2026-10-28.endive. */
export const taxEntry = (rule: TaxRule, tax: LineTax): Stripe.Invoice.TotalTax => ({
  amount: tax.amount,
  tax_behavior: 'exclusive',
  tax_rate_details: { tax_rate: rule.taxRate.id },
  taxability_reason: rule.reason,
  taxable_amount: tax.taxable,
  type: 'tax_rate_details',
})

/** The same, as older API versions showed it (`total_tax_amounts`, `tax_amounts`): kept for older readers. */
export const legacyTaxEntry = (rule: TaxRule, tax: LineTax) => ({
  amount: tax.amount,
  inclusive: false,
  tax_rate: rule.taxRate.id,
  taxability_reason: rule.reason,
  taxable_amount: tax.taxable,
})

/** The tax IDs Checkout saved on a customer, oldest first. */
export const customerTaxIds = (processor: Processor, customerId: string): Stripe.TaxId[] =>
  [...processor.state.taxIds.values()].filter((taxId) => taxId.customer === customerId)

/** What Stripe's `eu_vat` check refuses: a country prefix and 2 to 13 letters or digits. */
const TAX_ID_FORMATS: Partial<Record<string, RegExp>> = {
  eu_vat: /^[A-Z]{2}[0-9A-Z]{2,13}$/,
  gb_vat: /^GB[0-9]{9}([0-9]{3})?$/,
}

export const taxIdLooksValid = (taxId: CollectedTaxId): boolean =>
  TAX_ID_FORMATS[taxId.type]?.test(taxId.value) ?? taxId.value.length > 0

export const buildTaxId = (
  processor: Processor,
  fields: { customer: string; taxId: CollectedTaxId; country: string | null },
): Stripe.TaxId =>
  fromFixture<Stripe.TaxId>('tax_id', {
    id: newId('txi'),
    country: fields.taxId.type === 'eu_vat' ? fields.taxId.value.slice(0, 2) : fields.country,
    created: nowSeconds(),
    customer: fields.customer,
    customer_account: null,
    livemode: processor.livemode,
    owner: { type: 'customer', customer: fields.customer },
    type: fields.taxId.type,
    value: fields.taxId.value,
    verification: { status: 'pending', verified_address: null, verified_name: null },
  })
