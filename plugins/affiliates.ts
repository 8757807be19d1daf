import type { Config, Plugin } from 'payload'

import {
  AffiliateClicks,
  AffiliateCommissions,
  AffiliatePayouts,
  AffiliateReferrals,
  Affiliates,
} from '../collections/AffiliateCollections'
import { applyEndpoint, meEndpoint, payoutsCsvEndpoint, recordPayoutEndpoint } from '../endpoints/affiliates'
import { emailOnApproval } from '../src/affiliates/apply'
import { queueCommissionSync, syncCommissionTask } from '../src/affiliates/jobs'
import type { AffiliatesRuntime } from '../src/affiliates/runtime'
import { optionalRuntimeOf, withRuntime } from '../src/config/runtime'
import { addCollectionHooks } from './extend'

/**
 * Affiliates (docs/AFFILIATES.md): customers apply and share `?via=<code>` links; the express host
 * records the visit and sets the signed referral cookie; checkout carries the code to the processor;
 * the webhook records the referred sale; every write of its payments syncs the commission (a job queued
 * in the payment's transaction); admins record payouts. After billing: it hooks the payments collection.
 */
export const affiliatesPlugin =
  (options: AffiliatesRuntime & { retryDelayMs: number }): Plugin =>
  (config: Config): Config => {
    if (optionalRuntimeOf({ config }, 'affiliates')) throw new Error('affiliatesPlugin is in the config twice')
    const { retryDelayMs, ...runtime } = options
    const current = () => runtime
    const collections = addCollectionHooks(config, {
      plugin: 'affiliatesPlugin',
      slug: 'payment_history',
      hooks: { afterChange: [queueCommissionSync] },
    })
    return {
      ...config,
      custom: withRuntime(config, 'affiliates', runtime),
      collections: [
        ...collections,
        {
          ...Affiliates,
          hooks: { ...Affiliates.hooks, afterChange: [emailOnApproval(current)] },
          endpoints: [applyEndpoint(current), meEndpoint(current)],
        },
        AffiliateClicks,
        AffiliateReferrals,
        AffiliateCommissions,
        AffiliatePayouts,
      ],
      endpoints: [...(config.endpoints ?? []), recordPayoutEndpoint, payoutsCsvEndpoint],
      jobs: {
        ...config.jobs,
        tasks: [...(config.jobs?.tasks ?? []), syncCommissionTask(current, retryDelayMs)],
      },
    }
  }
