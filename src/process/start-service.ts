import config from '@payload-config'
import { getPayload, handleEndpoints } from 'payload'

import { readEnv } from '../config/env'
import { markJobsWorker } from '../jobs/worker'
import { databasePrepared, publishService } from './service'

/**
 * Make the process's Payload instance (the one `getPayload({config})` returns to every route), start
 * its jobs cron unless JOBS_WORKER=false leaves the queue to `npm run jobs`, and publish it with
 * Payload's request handling for the express host. Once the database is prepared: server.ts runs
 * scripts/prepare-database.ts in a child while Next starts, and this waits for it.
 */
export const startService = async (): Promise<void> => {
  const { jobsWorker } = readEnv()
  await databasePrepared()
  const payload = await getPayload({ config, cron: true })
  if (jobsWorker) markJobsWorker(payload)
  publishService({ payload, jobsWorker, handle: (request) => handleEndpoints({ config, request }) })
}
