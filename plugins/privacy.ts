import type { Config, Plugin } from 'payload'

import { cancelDeletionEndpoint, requestDeletionEndpoint, staffDeletionEndpoint } from '../endpoints/account-deletion'
import { accountExportEndpoint } from '../endpoints/account-export'
import { billingRuntimeOf } from '../src/billing/runtime'
import { optionalRuntimeOf, withRuntime } from '../src/config/runtime'
import type { DeletionSettings } from '../src/privacy/deletion'
import { type ErasureDeps, eraseDueAccountsTask } from '../src/privacy/erasure'
import '../src/privacy/runtime'

/**
 * Data rights (docs/PRIVACY.md): a customer downloads everything held about their account as one JSON
 * document (`GET /api/account/export`), and deletes the account (`/api/account/deletion`, or an admin
 * for them): after the grace period a job erases the person and keeps the books. Runs after the billing
 * and delivery plugins, whose processor and code host the erasure uses.
 */
export const privacyPlugin =
  (settings: DeletionSettings): Plugin =>
  (config: Config): Config => {
    const codeHost = optionalRuntimeOf({ config }, 'delivery')?.codeHost
    if (!codeHost) throw new Error('privacyPlugin needs the delivery plugin before it (the code host)')
    const deps: ErasureDeps = {
      codeHost,
      productName: settings.productName,
      serverUrl: settings.serverUrl,
      // Where no processor is configured there is no customer of it to delete.
      processor: () => {
        try {
          return billingRuntimeOf({ config }).require().processor
        } catch {
          return null
        }
      },
    }
    return {
      ...config,
      custom: withRuntime(config, 'privacy', { deletion: settings, erasure: deps }),
      jobs: { ...config.jobs, tasks: [...(config.jobs?.tasks ?? []), eraseDueAccountsTask(deps)] },
      endpoints: [
        ...(config.endpoints ?? []),
        accountExportEndpoint,
        requestDeletionEndpoint(settings),
        cancelDeletionEndpoint,
        staffDeletionEndpoint(settings),
      ],
    }
  }
