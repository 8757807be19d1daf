import type { SanitizedConfig } from 'payload'

import { publishedService } from '../../process/service'

// PATCH: module-copies
/**
 * `@payload-config` for Payload's routes and admin in a production build (next.config.mjs points the
 * alias here): the config of the process's one Payload instance, which src/instrumentation.ts made and
 * published. The config module itself put a whole copy of the config, and everything it imports, into
 * the chunk of Payload's route group, and the first request to /api ran that copy's buildConfig beside
 * the instance's own: a second set of collections, hooks, endpoints and tables, about 700 more table
 * columns in the heap. Where nothing was published (Next's build reading the routes), it is imported.
 */
const config: Promise<SanitizedConfig> = (async () =>
  publishedService()?.payload.config ?? (await import('../../../payload.config')).default)()

export default config
