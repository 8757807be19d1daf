import type { Config, Plugin } from 'payload'

import { CheckoutRecoveries, EmailUnsubscribes } from '../collections/RecoveryCollections'
import { unsubscribeGetEndpoint, unsubscribePostEndpoint } from '../endpoints/email-unsubscribe'
import { optionalRuntimeOf, withRuntime } from '../src/config/runtime'
import { sendRecoveryEmailTask } from '../src/recovery/jobs'
import type { RecoveryRuntime } from '../src/recovery/runtime'

/**
 * Checkout recovery (docs/CHECKOUT_RECOVERY.md): an expired checkout (the billing webhook records it)
 * becomes one email, an hour later, to a buyer who agreed to promotional email and has not paid since;
 * the email's link reopens the checkout through the processor, and its one-click unsubscribe is
 * honoured without signing in. After billing, whose checkout asks the processor for all this.
 */
export const recoveryPlugin =
  (runtime: RecoveryRuntime & { retryDelayMs: number }): Plugin =>
  (config: Config): Config => {
    if (optionalRuntimeOf({ config }, 'recovery')) throw new Error('recoveryPlugin is in the config twice')
    return {
      ...config,
      custom: withRuntime(config, 'recovery', runtime),
      collections: [...(config.collections ?? []), CheckoutRecoveries, EmailUnsubscribes],
      endpoints: [...(config.endpoints ?? []), unsubscribePostEndpoint, unsubscribeGetEndpoint],
      jobs: {
        ...config.jobs,
        tasks: [...(config.jobs?.tasks ?? []), sendRecoveryEmailTask(runtime, runtime.retryDelayMs)],
      },
    }
  }
