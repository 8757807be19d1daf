import type { TaskConfig } from 'payload'

import { logger, withLogContext } from '../log'

const jobsLog = logger.child({ name: 'jobs' })

/**
 * Every line a task writes while it runs carries its job's id and task (`jobId`, `task`), and each run
 * that completes adds one line with its duration. A failure is logged by Payload's runner, with the
 * same two fields (src/log.ts takes them from the job it logs).
 */
export const withJobLogging = <T extends TaskConfig>(task: T): T => {
  const handler = task.handler
  if (typeof handler !== 'function') return task
  const logged: typeof handler = (args) =>
    // Payload's runner always passes the job; a direct call of the handler (a test, a script) may not.
    withLogContext({ jobId: args.job?.id, task: task.slug }, async () => {
      const started = performance.now()
      const result = await handler(args)
      jobsLog.info(
        { durationMs: Math.round(performance.now() - started), attempt: (args.job?.totalTried ?? 0) + 1 },
        'job task completed',
      )
      return result
    })
  return { ...task, handler: logged }
}
