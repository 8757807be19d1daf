import type { Config, Plugin } from 'payload'

import { checkoutSessionsEndpoint } from '../endpoints/checkout-sessions'
import { customerPortalGetEndpoint, customerPortalPostEndpoint } from '../endpoints/customer-portal'
import { pricingViewsEndpoint } from '../endpoints/insights-views'
import { licenseChangeEndpoints } from '../endpoints/license-changes'
import { retryEventEndpoint } from '../endpoints/retry-event'
import { webhookEndpoint } from '../endpoints/webhook'
import { AnalyticsEvents } from '../collections/AnalyticsEvents'
import { LicenseChanges } from '../collections/LicenseChanges'
import { OneTimePurchases } from '../collections/OneTimePurchases'
import { PaymentHistory } from '../collections/PaymentHistory'
import { ProcessorEvents } from '../collections/ProcessorEvents'
import { UserSubscriptions } from '../collections/UserSubscriptions'
import { claimOnVerifiedEmail } from '../src/billing/claim'
import {
  type LicenseChangeJobOptions,
  refundLicenseChangeTask,
  sendLicenseChangeEmailTask,
} from '../src/billing/license-change-jobs'
import { type BillingOptions, createBillingRuntime } from '../src/billing/runtime'
import { addCollectionEndpoints, addCollectionHooks } from './extend'
import { withRuntime } from '../src/config/runtime'

/**
 * Billing: the processor's hosted checkout and portal, the verified exactly-once webhook, and the
 * records it writes (subscriptions, one-time purchases, payment history, the event log, analytics).
 * Without processor keys the collections still exist (the schema stays stable) and the endpoints
 * answer 503 `processor_not_configured`.
 */
export const billingPlugin =
  (options: BillingOptions & Omit<LicenseChangeJobOptions, 'serverUrl'>): Plugin =>
  (config: Config): Config => {
    const runtime = createBillingRuntime(options)
    // An account that gains a verified email takes over the purchases made anonymously with it.
    const withHooks = addCollectionHooks(config, {
      plugin: 'billingPlugin',
      slug: 'users',
      hooks: { afterChange: [claimOnVerifiedEmail] },
    })
    // Upgrades and renewals are paths of the licenses collection (/api/licenses/:id/upgrade, .../renewal).
    const collections = addCollectionEndpoints(withHooks, {
      plugin: 'billingPlugin',
      slug: 'licenses',
      endpoints: licenseChangeEndpoints(runtime),
    })
    return {
      ...config,
      // Server-only: lets server actions reach the same processor client as the endpoints.
      custom: withRuntime(config, 'billing', runtime),
      collections: [
        ...collections,
        UserSubscriptions,
        OneTimePurchases,
        PaymentHistory,
        { ...ProcessorEvents, endpoints: [retryEventEndpoint(runtime)] },
        AnalyticsEvents,
        LicenseChanges,
      ],
      jobs: {
        ...config.jobs,
        tasks: [...(config.jobs?.tasks ?? []), refundLicenseChangeTask(options), sendLicenseChangeEmailTask(options)],
      },
      endpoints: [
        ...(config.endpoints ?? []),
        checkoutSessionsEndpoint(runtime),
        customerPortalPostEndpoint(runtime),
        customerPortalGetEndpoint(runtime),
        webhookEndpoint(runtime),
        // The funnel's first step (docs/INSIGHTS.md): counted without the processor, so also without keys.
        pricingViewsEndpoint(),
      ],
    }
  }
