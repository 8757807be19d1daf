import type { UpdatePolicy } from './update-policies'
import type { FeatureKey } from './features'

export const PRICE_ID_PATTERN = /^price_[A-Za-z0-9_]+$/

type PlanBilling = 'lifetime' | 'recurring'

/** A plan as configuration defines it: the spec's Plan plus ordering and state. */
export type PlanDefinition = {
  slug: string
  name: string
  description: string
  billing: PlanBilling | null
  monthlyPrice: number
  yearlyPrice: number | null
  priceIds: { monthly: string | null; yearly: string | null }
  features: string[]
  featureAccess: FeatureKey[]
  isPopular: boolean
  buttonText: string
  isFree: boolean
  allowPromotionCodes: boolean
  /** Which releases a license of the plan may download (src/licensing/update-window.ts). */
  updatePolicy: UpdatePolicy
  updateMonths: number | null
  /** The one-time price that renews a license's updates; null when the plan sells no renewals. */
  renewalPriceId: string | null
  /** How many people one license may cover (the checkout's quantity, at most this). */
  maxSeats: number
  /** How many installations one key may be activated on at once; null: unlimited, no activation needed. */
  maxActivations: number | null
  order: number
  active: boolean
}

export type ConfiguredPriceIds = {
  standardLifetime: string | null
  ultimateLifetime: string | null
  proMonthly: string | null
  proYearly: string | null
  /** The renewals' prices (PUBLIC_PRICE_ID_<PLAN>_RENEWAL); none when left out. */
  standardRenewal?: string | null
  ultimateRenewal?: string | null
}

/**
 * The plans the service starts with. Staff edit copy and prices in the admin afterwards; the price
 * IDs come from the PUBLIC_PRICE_ID_* variables. The recurring "pro" plan exists only when at
 * least one of its price IDs is configured.
 */
export const definePlans = (priceIds: ConfiguredPriceIds): PlanDefinition[] => {
  const plans: PlanDefinition[] = [
    {
      slug: 'free',
      name: 'Free',
      description: 'Explore the starter kit and its documentation.',
      billing: null,
      monthlyPrice: 0,
      yearlyPrice: null,
      priceIds: { monthly: null, yearly: null },
      features: ['Basic app access', 'Public documentation', 'Community support'],
      featureAccess: ['basic'],
      isPopular: false,
      buttonText: 'Get started',
      isFree: true,
      allowPromotionCodes: false,
      updatePolicy: 'lifetime',
      updateMonths: null,
      renewalPriceId: null,
      maxSeats: 1,
      maxActivations: null,
      order: 0,
      active: true,
    },
    {
      slug: 'standard',
      name: 'Standard',
      description: 'The complete starter kit with lifetime updates of the current major version.',
      billing: 'lifetime',
      monthlyPrice: 149,
      yearlyPrice: null,
      priceIds: { monthly: priceIds.standardLifetime, yearly: null },
      features: ['Full source code', 'Template library', 'Priority email support', 'Stable releases'],
      featureAccess: ['basic', 'templates', 'support'],
      isPopular: false,
      buttonText: 'Buy Standard',
      isFree: false,
      allowPromotionCodes: true,
      // What the description promises: the major version current at purchase, renewable to the next.
      updatePolicy: 'major',
      updateMonths: null,
      renewalPriceId: priceIds.standardRenewal ?? null,
      maxSeats: 5,
      maxActivations: null,
      order: 1,
      active: true,
    },
    {
      slug: 'ultimate',
      name: 'Ultimate',
      description: 'Everything in Standard, plus the latest builds, the API and repository access.',
      billing: 'lifetime',
      monthlyPrice: 299,
      yearlyPrice: null,
      priceIds: { monthly: priceIds.ultimateLifetime, yearly: null },
      features: [
        'Everything in Standard',
        'Latest releases and pre-releases',
        'API access',
        'Advanced features',
        'Collaborator access to the code repository',
      ],
      featureAccess: ['basic', 'templates', 'support', 'api', 'advanced'],
      isPopular: true,
      buttonText: 'Buy Ultimate',
      isFree: false,
      allowPromotionCodes: true,
      updatePolicy: 'lifetime',
      updateMonths: null,
      renewalPriceId: priceIds.ultimateRenewal ?? null,
      maxSeats: 10,
      maxActivations: null,
      order: 2,
      active: true,
    },
  ]
  if (priceIds.proMonthly || priceIds.proYearly) {
    plans.push({
      slug: 'pro',
      name: 'Pro',
      description: 'A subscription with every feature, billed monthly or yearly.',
      billing: 'recurring',
      monthlyPrice: 29,
      yearlyPrice: 290,
      priceIds: { monthly: priceIds.proMonthly, yearly: priceIds.proYearly },
      features: ['Everything in Ultimate', 'Advanced analytics', 'Custom domain support'],
      featureAccess: ['basic', 'templates', 'support', 'api', 'analytics', 'custom_domain', 'advanced'],
      isPopular: false,
      buttonText: 'Subscribe',
      isFree: false,
      allowPromotionCodes: true,
      updatePolicy: 'lifetime',
      updateMonths: null,
      renewalPriceId: null,
      maxSeats: 1,
      maxActivations: null,
      order: 3,
      active: true,
    })
  }
  return plans
}
