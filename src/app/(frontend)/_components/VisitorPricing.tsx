'use client'

import { createContext, type ReactNode, useContext, useEffect, useState } from 'react'

import { upgradeLicense } from '../dashboard/actions'
import { usePageRestores } from './page-restores'
import type { PricingOrigin } from './pricing-origin'

/** A signed-in visitor's side of the pricing table (GET /pricing/visitor): what they own and can upgrade. */
type VisitorUpgrade = { planId: number; licenseId: number; toSlug: string; label: string; note: string | null }
export type VisitorPricingState = { signedIn: boolean; ownedPlanIds: number[]; upgrades: VisitorUpgrade[] }

const Visitor = createContext<VisitorPricingState | null>(null)

/**
 * The storefront's HTML is one cached page for everyone, written for a visitor who is not signed in.
 * This asks, once per page (and again when the page comes back from the back-forward cache), for the visitor's own side in a request of its own and then turns the
 * buttons of the plans they own, or can upgrade to, into what fits them. Until it answers (and without
 * JavaScript) the anonymous page stands: its Buy buttons work for anyone.
 */
export const VisitorPricingProvider = ({ children }: { children: ReactNode }) => {
  const [state, setState] = useState<VisitorPricingState | null>(null)
  const restores = usePageRestores()
  useEffect(() => {
    let live = true
    fetch('/pricing/visitor', { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then((response) => (response.ok ? (response.json() as Promise<VisitorPricingState>) : null))
      .then((answer) => {
        if (live) setState(answer?.signedIn ? answer : null)
      })
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [restores])
  return <Visitor.Provider value={state}>{children}</Visitor.Provider>
}

/** "Your plan" on a plan the signed-in visitor holds. */
export const OwnedBadge = ({ planId }: { planId: number }) =>
  useContext(Visitor)?.ownedPlanIds.includes(planId) ? <p className="owned-badge">Your plan</p> : null

/**
 * A plan's buttons for this visitor: the dashboard for a plan they own (or the free plan, once signed
 * in), the upgrade of their one-time license to a higher plan, or else the anonymous buttons (`children`).
 */
export const PlanActions = ({
  planId,
  isFree,
  primary,
  from,
  children,
}: {
  planId: number
  isFree: boolean
  primary: boolean
  from: PricingOrigin
  children: ReactNode
}) => {
  const visitor = useContext(Visitor)
  if (visitor?.ownedPlanIds.includes(planId)) {
    return (
      <a className="button button-secondary" href="/dashboard">
        You own this plan: open your dashboard
      </a>
    )
  }
  if (isFree && visitor?.signedIn) {
    return (
      <a className="button button-secondary" href="/dashboard">
        Open your dashboard
      </a>
    )
  }
  const upgrade = visitor?.upgrades.find((offer) => offer.planId === planId)
  if (!upgrade) return <>{children}</>
  return (
    <form action={upgradeLicense} className="checkout-form">
      <input type="hidden" name="license" value={upgrade.licenseId} />
      <input type="hidden" name="plan" value={upgrade.toSlug} />
      <input type="hidden" name="from" value={from} />
      <button type="submit" className={primary ? 'button' : 'button button-secondary'}>
        {upgrade.label}
      </button>
      {upgrade.note ? <p className="upgrade-note">{upgrade.note}</p> : null}
    </form>
  )
}
