import type { Config, Plugin } from 'payload'

import { SupportReplies } from '../collections/SupportReplies'
import { SupportRequests } from '../collections/SupportRequests'
import { sendSupportReplyTask, type SupportJobOptions } from '../src/support/jobs'

export type SupportOptions = SupportJobOptions

/**
 * Priority support (feature key `support`): customers' support requests and their threads, the staff
 * queue in the admin, and the job that emails each staff reply.
 */
export const supportPlugin =
  (options: SupportOptions): Plugin =>
  (config: Config): Config => ({
    ...config,
    collections: [...(config.collections ?? []), SupportRequests, SupportReplies],
    jobs: { ...config.jobs, tasks: [...(config.jobs?.tasks ?? []), sendSupportReplyTask(options)] },
  })
