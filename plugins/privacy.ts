import type { Config, Plugin } from 'payload'

import { accountExportEndpoint } from '../endpoints/account-export'

/**
 * Data rights (docs/PRIVACY.md): a customer downloads everything held about their account as one JSON
 * document (`GET /api/account/export`).
 */
export const privacyPlugin =
  (): Plugin =>
  (config: Config): Config => ({
    ...config,
    endpoints: [...(config.endpoints ?? []), accountExportEndpoint],
  })
