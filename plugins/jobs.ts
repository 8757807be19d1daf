import type { Config, Plugin, TaskConfig } from 'payload'

import { claimJobsAtomically } from '../src/jobs/claim'
import { withJobLogging } from '../src/jobs/logging'
import { DEFAULT_REAPER_OPTIONS, reapStuckJobs, type ReaperOptions } from '../src/jobs/reaper'

const reapStuckJobsTask = (options: ReaperOptions): TaskConfig<'reapStuckJobs'> => ({
  slug: 'reapStuckJobs',
  label: 'Hand interrupted jobs back to the queue',
  inputSchema: [],
  outputSchema: [{ name: 'reaped', type: 'number' }],
  schedule: [
    {
      cron: '* * * * *',
      queue: 'default',
      hooks: {
        // PATCH: jobs-reaper
        // Payload skips a schedule while its last job is unfinished; a reaper stuck in processing
        // (its worker died) must not stop the reaping, so only a reaper still waiting to run counts.
        beforeSchedule: async ({ queueable, req }) => {
          const waiting = await req.payload.db.count({
            collection: 'payload-jobs',
            where: {
              and: [
                { taskSlug: { equals: 'reapStuckJobs' } },
                { completedAt: { exists: false } },
                { processing: { equals: false } },
                { hasError: { not_equals: true } },
              ],
            },
            req,
          })
          return { shouldSchedule: waiting.totalDocs === 0, input: {}, waitUntil: queueable.waitUntil }
        },
      },
    },
  ],
  handler: async ({ req }) => ({ output: { reaped: (await reapStuckJobs(req.payload, options)).length } }),
})

/**
 * The jobs queue's upkeep: each job is claimed by one runner (src/jobs/claim.ts), and jobs a crashed
 * process left `processing` run again (reaped at start-up and every minute). The schedules'
 * bookkeeping global gets its access with Payload's own collections (src/access/payload-collections.ts).
 */
export const jobsPlugin =
  (options: Partial<ReaperOptions> = {}): Plugin =>
  (config: Config): Config => {
    const reaper = { ...DEFAULT_REAPER_OPTIONS, ...options }
    return {
      ...config,
      // Last in the plugin list, so every task of the service is here to get its job's fields on its log lines.
      jobs: { ...config.jobs, tasks: [...(config.jobs?.tasks ?? []), reapStuckJobsTask(reaper)].map(withJobLogging) },
      onInit: async (payload) => {
        // Before anything can run a job: one runner per job, however many instances work the queue.
        claimJobsAtomically(payload)
        await config.onInit?.(payload)
        await reapStuckJobs(payload, reaper).catch((error: unknown) => {
          // A database without its tables yet (the first start: the migrations come after this) has no jobs to reap.
          // (Drizzle wraps pg's error: its code is on the cause.)
          const { code, cause } = error as { code?: unknown; cause?: { code?: unknown } }
          if (code === '42P01' || cause?.code === '42P01') return
          payload.logger.warn({ err: error }, 'could not reap interrupted jobs at start-up')
        })
      },
    }
  }
