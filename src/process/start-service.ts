import { getPayload, handleEndpoints } from 'payload'

// The config itself: `@payload-config` is, in a production build, the config this publishes (src/app/_lib/published-config.ts).
import config from '../../payload.config'
import { readEnv } from '../config/env'
import { markJobsWorker } from '../jobs/worker'
import { databasePrepared, publishService } from './service'
import { generateTypesLater, withoutStartupTypes } from './startup-types'

/**
 * Make the process's Payload instance (the one `getPayload({config})` returns to every route), start
 * its jobs cron unless JOBS_WORKER=false leaves the queue to `npm run jobs`, and publish it with
 * Payload's request handling for the express host. Once the database is prepared: server.ts runs
 * scripts/prepare-database.ts in a child while Next starts, and this waits for it.
 */
export const startService = async (): Promise<void> => {
  const { jobsWorker } = readEnv()
  await databasePrepared()
  const production = process.env.NODE_ENV === 'production'
  // Development: the types are generated after the first pages, not while Next compiles them (startup-types.ts).
  const payload = await getPayload({ config: production ? config : withoutStartupTypes(config), cron: true })
  if (!production) generateTypesLater(payload, await config)
  if (jobsWorker) markJobsWorker(payload)
  publishService({ payload, jobsWorker, handle: (request) => handleEndpoints({ config, request }) })
}
