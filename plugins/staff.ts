import type { Config, Plugin } from 'payload'

import { staffEndpoints } from '../endpoints/staff'
import { staffInsightsCsvEndpoint } from '../endpoints/staff-insights'
import { optionalRuntimeOf } from '../src/config/runtime'

/**
 * Staff tools: the support actions (`/api/staff/...`: revoke or restore a license, resend its email,
 * resend a repository invitation, revoke an API key; each with a reason and an audit row) and the
 * admin dashboard's panel. The buttons sit on the collections' edit views; the customer view is on
 * `users` (plugins/accounts.ts). Runs after the delivery plugin, whose code host it uses.
 */
export const staffPlugin =
  (): Plugin =>
  (config: Config): Config => {
    const codeHost = optionalRuntimeOf({ config }, 'delivery')?.codeHost
    if (!codeHost)
      throw new Error('staffPlugin needs the delivery plugin before it (the code host for repository invitations)')
    const components = config.admin?.components
    return {
      ...config,
      admin: {
        ...config.admin,
        components: {
          ...components,
          beforeDashboard: [...(components?.beforeDashboard ?? []), '/components/StaffDashboard#StaffDashboard'],
        },
      },
      endpoints: [...(config.endpoints ?? []), ...staffEndpoints(codeHost), staffInsightsCsvEndpoint],
    }
  }
