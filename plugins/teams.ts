import type { Config, Plugin } from 'payload'

import { LicenseActivations } from '../collections/LicenseActivations'
import { LicenseSeats } from '../collections/LicenseSeats'
import { activationEndpoints } from '../endpoints/license-activations'
import { seatEndpoints } from '../endpoints/license-seats'
import { addCollectionEndpoints } from './extend'

export type TeamsOptions = { productName: string; serverUrl: string }

/**
 * Teams and activations (docs/TEAMS.md): the seats a license's owner assigns by email, claimed
 * through a single-use link, and the installations a license key is activated on, under the plan's
 * limits. Its endpoints sit on the licenses collection (`/api/licenses/:id/seats`,
 * `/api/licenses/activate|deactivate`), so it runs after the licensing plugin.
 */
export const teamsPlugin =
  (options: TeamsOptions): Plugin =>
  (config: Config): Config => {
    const collections = addCollectionEndpoints(config.collections ?? [], {
      plugin: 'teamsPlugin',
      slug: 'licenses',
      endpoints: [...seatEndpoints(options), ...activationEndpoints()],
    })
    return { ...config, collections: [...collections, LicenseSeats, LicenseActivations] }
  }
