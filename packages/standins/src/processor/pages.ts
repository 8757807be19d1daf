import express, { type Request, type Response } from 'express'
import type Stripe from 'stripe'

import type { ProcessorActions } from './actions'
import { collectsPromotions } from './checkout-entries'
import { visitRecoveryUrl, type RecoveryVisit } from './checkout-recovery'
import type { Processor } from './context'
import { invalidRequest, resourceMissing, StandInApiError } from './errors'
import { page, type Html } from './html'
import {
  checkoutView,
  invoicePdfLines,
  invoiceView,
  messageView,
  OUTCOMES,
  portalView,
  receiptView,
  TAX_ID_TYPES,
} from './page-views'
import { parseParams, text } from './params'
import { textPdf } from './pdf'
import { requireCharge, requireInvoice, requireSession } from './state'
import type { PayOptions, PayOutcome, PromotionsConsent } from './types'

const send = (res: Response, status: number, title: string, body: Html): void => {
  res.status(status).type('html').send(page(title, body))
}

/** Pages answer the stand-in's errors (unknown IDs, a session paid twice) as pages with that status. */
const pageHandler =
  (handle: (req: Request, res: Response) => Promise<void> | void) =>
  async (req: Request, res: Response): Promise<void> => {
    try {
      await handle(req, res)
    } catch (error) {
      if (!(error instanceof StandInApiError)) throw error
      send(res, error.status, 'Error', messageView('Something is wrong', error.message, { error: true }))
    }
  }

const formField = (req: Request, name: string): string | undefined =>
  text(parseParams(typeof req.body === 'string' ? req.body : '')[name])

const readOutcome = (req: Request): PayOutcome => {
  const value = formField(req, 'outcome') ?? 'succeeded'
  const outcome = OUTCOMES.find((candidate) => candidate.value === value)
  if (!outcome) throw invalidRequest(`Unknown outcome '${value}'.`, { param: 'outcome' })
  return outcome.value
}

/** Country, business name and tax ID as the checkout form sends them; empty fields are not given. */
const readTaxFields = (req: Request): Pick<PayOptions, 'country' | 'businessName' | 'taxId'> => {
  const country = formField(req, 'country')?.trim() || undefined
  const businessName = formField(req, 'business_name')?.trim() || undefined
  const value = formField(req, 'tax_id')?.trim() || undefined
  const typeField = formField(req, 'tax_id_type') ?? 'eu_vat'
  const type = TAX_ID_TYPES.find((candidate) => candidate === typeField)
  if (value !== undefined && !type)
    throw invalidRequest(`Unknown tax ID type '${typeField}'.`, { param: 'tax_id_type' })
  return { country, businessName, taxId: value !== undefined && type ? { type, value } : undefined }
}

/** Where the page shows the promotional-emails checkbox, it is ticked or not; elsewhere there is no answer. */
const readPromotionsBox = (req: Request, session: Stripe.Checkout.Session): PromotionsConsent | undefined => {
  if (!collectsPromotions(session)) return undefined
  return formField(req, 'promotions') === 'opt_in' ? 'opt_in' : 'opt_out'
}

/** The pages a recovery URL answers with when it leads to no open session. */
const RECOVERY_PAGES: Record<Exclude<RecoveryVisit['outcome'], 'open'>, [number, Html]> = {
  complete: [200, messageView('Checkout complete', 'This checkout is already complete.')],
  unknown: [404, messageView('Link not found', 'This checkout link is not valid.', { error: true })],
  expired: [410, messageView('Link expired', 'This checkout link has expired.', { error: true })],
}

/** The hosted pages behind the URLs the API hands out: checkout, billing portal, invoices, receipts. */
export const hostedPages = (processor: Processor, actions: ProcessorActions): express.Router => {
  const router = express.Router()
  const { state } = processor
  const id = (req: Request, name = 'id') => String(req.params[name])

  router.get(
    '/checkout/:id',
    pageHandler((req, res) => {
      const session = requireSession(state, id(req))
      if (session.status !== 'open') {
        send(res, 200, 'Checkout', messageView('Checkout', `This checkout session is ${session.status}.`))
        return
      }
      send(res, 200, 'Checkout', checkoutView(processor, session))
    }),
  )

  // "Save my details": the email and the promotional-emails answer, kept without paying.
  router.post(
    '/checkout/:id',
    pageHandler((req, res) => {
      const session = requireSession(state, id(req))
      const email = formField(req, 'email')?.trim() || undefined
      try {
        actions.fillIn(session.id, { email, promotions: readPromotionsBox(req, session) })
      } catch (error) {
        if (!(error instanceof StandInApiError) || error.status !== 400) throw error
        send(res, 400, 'Checkout', checkoutView(processor, session, { email, error: error.message }))
        return
      }
      send(res, 200, 'Checkout', checkoutView(processor, session, { notice: 'Your details were saved.' }))
    }),
  )

  router.post(
    '/checkout/:id/pay',
    pageHandler(async (req, res) => {
      const session = requireSession(state, id(req))
      const email = formField(req, 'email') || undefined
      const outcome = readOutcome(req)
      const promotions = readPromotionsBox(req, session)
      try {
        await actions.pay(session.id, { email, outcome, promotions, ...readTaxFields(req) })
      } catch (error) {
        // A coupon used up (or expired) since the session was made, a tax ID checkout refuses: the buyer
        // stays on the page with the reason, uncharged.
        if (!(error instanceof StandInApiError) || error.status !== 400) throw error
        send(res, error.status, 'Checkout', checkoutView(processor, session, { email, error: error.message }))
        return
      }
      // A declined card keeps the buyer on the checkout page, as Stripe's does.
      if (outcome === 'declined') {
        send(res, 402, 'Checkout', checkoutView(processor, session, { email, error: 'Your card was declined.' }))
        return
      }
      if (!session.success_url) {
        send(res, 200, 'Checkout', messageView('Thank you', 'Your payment was received.'))
        return
      }
      res.redirect(303, session.success_url.replaceAll('{CHECKOUT_SESSION_ID}', session.id))
    }),
  )

  router.post(
    '/checkout/:id/cancel',
    pageHandler((req, res) => {
      const session = requireSession(state, id(req))
      if (!session.cancel_url) {
        send(res, 200, 'Checkout', messageView('Checkout canceled', 'Nothing was charged.'))
        return
      }
      res.redirect(303, session.cancel_url)
    }),
  )

  // A recovery URL: the copy of its expired session, made on the first visit.
  router.get(
    '/r/:token',
    pageHandler((req, res) => {
      const visit = visitRecoveryUrl(processor, id(req, 'token'))
      if (visit.outcome === 'open') {
        res.redirect(303, visit.session.url ?? `/checkout/${visit.session.id}`)
        return
      }
      const [status, body] = RECOVERY_PAGES[visit.outcome]
      send(res, status, 'Checkout', body)
    }),
  )

  router.get(
    '/portal/:id',
    pageHandler((req, res) => {
      const portal = state.portalSessions.get(id(req))
      if (!portal) throw resourceMissing('billing_portal.session', id(req), { param: 'id' })
      send(res, 200, 'Billing', portalView(processor, portal))
    }),
  )

  router.post(
    '/portal/:id/subscriptions/:subscriptionId/cancel',
    pageHandler(async (req, res) => {
      const portal = state.portalSessions.get(id(req))
      const subscription = state.subscriptions.get(id(req, 'subscriptionId'))
      // A portal session only reaches its own customer's subscriptions.
      if (!portal || !subscription || subscription.customer !== portal.customer) {
        throw resourceMissing('subscription', id(req, 'subscriptionId'), { param: 'id' })
      }
      // As Stripe's portal by default (subscription_cancel.mode at_period_end): it runs to the end of the paid period.
      await actions.updateSubscription(subscription.id, { cancelAtPeriodEnd: true })
      res.redirect(303, `/portal/${portal.id}`)
    }),
  )

  // `/invoice/:id` is where the first hosted invoice URLs pointed; it still answers.
  router.get(
    ['/invoices/:id', '/invoice/:id'],
    pageHandler((req, res) => {
      const invoice = requireInvoice(state, id(req))
      send(res, 200, `Invoice ${invoice.number ?? invoice.id}`, invoiceView(processor, invoice))
    }),
  )

  /** A draft has no PDF yet, as with Stripe (its `invoice_pdf` is null until finalized). */
  router.get(
    ['/invoices/:id/pdf', '/invoice/:id/pdf'],
    pageHandler((req, res) => {
      const invoice = requireInvoice(state, id(req))
      if (invoice.status === 'draft') {
        throw invalidRequest(`Invoice ${invoice.id} is a draft; it has no PDF yet.`, { status: 404 })
      }
      const pdf = textPdf(invoicePdfLines(processor, invoice))
      res
        .status(200)
        .type('application/pdf')
        .set('Content-Disposition', `inline; filename="Invoice-${invoice.number ?? invoice.id}.pdf"`)
        .send(pdf)
    }),
  )

  router.get(
    '/receipt/:id',
    pageHandler((req, res) => {
      send(res, 200, 'Receipt', receiptView(requireCharge(state, id(req))))
    }),
  )

  return router
}
