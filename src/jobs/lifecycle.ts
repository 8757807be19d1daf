import type { Payload } from 'payload'

// Not ../db/bootstrap: that module brings the migrations and the content importer with it.
import { closePayload } from '../db/close'

/** How long a stopping worker waits for the jobs it is running; what is left is reaped later (src/jobs/reaper.ts). */
const DRAIN_MS = 20_000

/**
 * Stop a jobs worker's Payload instance gracefully: its cron takes no further turn, the turn under way
 * (jobs already claimed) may finish within `drainMs`, then the instance and its pool close. A job cut
 * off after that stays `processing` and the reaper hands it back to the queue after 10 minutes.
 */
export const stopJobsWorker = async (
  payload: Payload,
  options: { drainMs?: number; log?: (message: string) => void } = {},
): Promise<void> => {
  const drainMs = options.drainMs ?? DRAIN_MS
  for (const cron of payload.crons) cron.pause()
  const deadline = Date.now() + drainMs
  while (payload.crons.some((cron) => cron.isBusy()) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100))
  if (payload.crons.some((cron) => cron.isBusy())) {
    options.log?.(`jobs still running after ${drainMs} ms are left to the reaper`)
  }
  await closePayload(payload)
}
