import type { Processor } from './context'
import { invoicePaymentOf } from './objects/billing'
import { findById } from './state'
import { customerTaxIds } from './tax'

type Json = Record<string, unknown>

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Fields that exist only when expanded, like a checkout session's `line_items`. */
const expandableOnly = (processor: Processor, target: Json, field: string): unknown => {
  if (field === 'line_items' && target.object === 'checkout.session' && typeof target.id === 'string') {
    const data = processor.state.checkoutDetails.get(target.id)?.lineItems ?? []
    return { object: 'list', data, has_more: false, url: `/v1/checkout/sessions/${target.id}/line_items` }
  }
  if (field === 'payments' && target.object === 'invoice' && typeof target.id === 'string') {
    const invoice = processor.state.invoices.get(target.id)
    const data = invoice?.payment_intent ? [invoicePaymentOf(invoice)] : []
    return { object: 'list', data, has_more: false, url: `/v1/invoice_payments?invoice=${target.id}` }
  }
  if (field === 'tax_ids' && target.object === 'customer' && typeof target.id === 'string') {
    const data = customerTaxIds(processor, target.id)
    return {
      object: 'list',
      data,
      has_more: false,
      total_count: data.length,
      url: `/v1/customers/${target.id}/tax_ids`,
    }
  }
  return undefined
}

const expandPath = (processor: Processor, target: unknown, path: string[]): void => {
  if (Array.isArray(target)) {
    for (const entry of target) expandPath(processor, entry, path)
    return
  }
  const [field, ...rest] = path
  if (!isJson(target) || field === undefined) return
  const own = target[field]
  // Stored objects are copied in, so expanding further down never touches the state.
  const stored =
    typeof own === 'string'
      ? findById(processor.state, own)
      : own === undefined
        ? expandableOnly(processor, target, field)
        : undefined
  if (stored !== undefined) target[field] = structuredClone(stored)
  if (rest.length > 0) expandPath(processor, target[field], rest)
}

/** `expand[]=a.b`: the IDs along each dotted path replaced by copies of their objects, as Stripe does. */
export const expand = (processor: Processor, body: object, paths: string[]): object => {
  if (paths.length === 0) return body
  const copy = structuredClone(body)
  for (const path of paths) expandPath(processor, copy, path.split('.'))
  return copy
}
