import { CHECKOUT_ERRORS } from '../_components/checkout-errors'
import { getJson, islands } from './dom'

/** The signed-in visitor's side of the pricing table (GET /pricing/visitor): what they own and can upgrade. */
type VisitorUpgrade = { planId: number; licenseId: number; toSlug: string; label: string; note: string | null }
type VisitorPricing = { signedIn: boolean; ownedPlanIds: number[]; upgrades: VisitorUpgrade[] }

/** Show exactly one of a plan's action variants (`data-variant`), hide the others. */
const showVariant = (plan: HTMLElement, variant: string) => {
  for (const option of plan.querySelectorAll<HTMLElement>('[data-variant]'))
    option.hidden = option.dataset.variant !== variant
}

/**
 * The pricing table (`data-island="pricing"`) is one cached HTML for everyone, written for a visitor
 * who is not signed in, with each plan's other buttons rendered but hidden. This asks for the visitor's
 * own side and shows, per plan: "Your plan" and the dashboard for a plan they own, the dashboard for the
 * free plan once signed in, the upgrade of their one-time license to a higher plan (its form filled
 * with their license and the price less what they paid), or else the anonymous Buy buttons. Until it
 * answers (and without JavaScript) the anonymous page stands: its Buy buttons work for anyone.
 */
export const visitorPricing = async () => {
  const tables = islands('pricing')
  if (tables.length === 0) return
  const answer = await getJson<VisitorPricing>('/pricing/visitor')
  const visitor = answer?.signedIn ? answer : null
  for (const table of tables) {
    for (const plan of table.querySelectorAll<HTMLElement>('[data-plan-id]')) {
      const planId = Number(plan.dataset.planId)
      const owned = visitor?.ownedPlanIds.includes(planId) ?? false
      const badge = plan.querySelector<HTMLElement>('.owned-badge')
      if (badge) badge.hidden = !owned
      const upgrade = visitor?.upgrades.find((offer) => offer.planId === planId)
      if (owned) showVariant(plan, 'owned')
      else if (plan.dataset.free !== undefined && visitor) showVariant(plan, 'dashboard')
      else if (upgrade) {
        const form = plan.querySelector<HTMLFormElement>('[data-variant="upgrade"]')
        if (!form) continue
        form.querySelector<HTMLInputElement>('input[name="license"]')!.value = String(upgrade.licenseId)
        form.querySelector<HTMLInputElement>('input[name="plan"]')!.value = upgrade.toSlug
        form.querySelector('button')!.textContent = upgrade.label
        const note = form.querySelector<HTMLElement>('.upgrade-note')!
        note.textContent = upgrade.note ?? ''
        note.hidden = !upgrade.note
        showVariant(plan, 'upgrade')
      } else showVariant(plan, 'anonymous')
    }
  }
}

/**
 * Why the last checkout failed, in words, from the page's query (`?checkout_error=<code>`, where the
 * checkout action sends the visitor back), or null without one. An unknown code gets the general
 * sentence, never itself.
 */
export const checkoutErrorSentence = (query: string): string | null => {
  const code = new URLSearchParams(query).get('checkout_error')
  if (!code) return null
  return Object.hasOwn(CHECKOUT_ERRORS, code) ? CHECKOUT_ERRORS[code]! : CHECKOUT_ERRORS.invalid_request!
}

/**
 * The checkout's error in the notice the page rendered empty (`data-island="checkout-error"`): the page
 * is one cached HTML for everyone, so it cannot depend on the query.
 */
export const checkoutError = () => {
  const sentence = checkoutErrorSentence(window.location.search)
  if (!sentence) return
  for (const notice of islands('checkout-error')) {
    notice.textContent = sentence
    notice.hidden = false
  }
}

const BEACON_ENDPOINT = '/api/insights/pricing-views'
/** Without requestIdleCallback (Safari), this long after the page is up. */
const FALLBACK_DELAY_MS = 2_000

/**
 * The funnel's "pricing viewed" (docs/INSIGHTS.md), counted from the browser so the storefront stays one
 * cached HTML for everyone: once per page load, when the page is idle, a beacon that names the page
 * (`data-island="pricing-view" data-page="home|pricing"`) and nothing else. Crawlers that run no
 * JavaScript send none.
 */
export const pricingViewBeacon = () => {
  const marker = islands('pricing-view')[0]
  const page = marker?.dataset.page
  if (!page) return
  const send = () => {
    const body = JSON.stringify({ page })
    if (typeof navigator.sendBeacon === 'function' && navigator.sendBeacon(BEACON_ENDPOINT, body)) return
    fetch(BEACON_ENDPOINT, { method: 'POST', body, keepalive: true, headers: { 'content-type': 'text/plain' } }).catch(
      () => undefined,
    )
  }
  if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(send, { timeout: 10_000 })
  else window.setTimeout(send, FALLBACK_DELAY_MS)
}
