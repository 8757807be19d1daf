/**
 * Several runners on one queue (every server instance, `npm run jobs`): each job is claimed by one of
 * them (src/jobs/claim.ts). Two Payload instances with pools of their own work the queue at the same
 * moment; account emails are the witness, as their task sends without any guard of its own.
 * tests/int/instances.test.ts proves the same with two production servers.
 */
import './../support/billing-env'

import { createLocalReq, getPayload, type Payload } from 'payload'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import config from '../../payload.config'
import { closePayload } from '../../src/db/bootstrap'
import { queueEmail } from '../../src/email/send-task'
import { smtp } from '../support/billing-env'
import { usePayload } from '../support/payload'
import { recordQueries } from '../support/queries'

const payload = usePayload()
let second: Payload

beforeAll(async () => {
  second = await getPayload({ config, key: 'second-runner' })
  second.db.pool.on('error', () => undefined)
})

afterAll(async () => {
  if (second) await closePayload(second)
})

const queueEmails = async (label: string, count: number) => {
  const req = await createLocalReq({}, payload())
  const subjects = Array.from({ length: count }, (_, index) => `${label} ${index}`)
  for (const subject of subjects)
    await queueEmail(req, { to: 'runner@example.test', subject, text: subject, html: `<p>${subject}</p>` })
  return subjects
}
const sentWith = (subject: string) => smtp.messages.filter((message) => message.subject === subject).length
const jobsLeft = async () =>
  (await payload().count({ collection: 'payload-jobs', where: { taskSlug: { equals: 'sendEmail' } } })).totalDocs

describe('two runners on one queue', () => {
  it('working it at the same moment, they run each job once', async () => {
    for (let round = 0; round < 5; round += 1) {
      const subjects = await queueEmails(`round ${round}`, 12)
      const results = await Promise.all([payload().jobs.run({ limit: 100 }), second.jobs.run({ limit: 100 })])
      for (const subject of subjects) expect(sentWith(subject), subject).toBe(1)
      // Between them they ran all twelve, no job twice.
      const ran = results.flatMap((result) => Object.keys(result.jobStatus ?? {}))
      expect(ran).toHaveLength(12)
      expect(new Set(ran).size).toBe(12)
      expect(await jobsLeft()).toBe(0)
    }
  })

  it('running one job by id on both at once runs it once', async () => {
    const [subject] = await queueEmails('by id', 1)
    const job = (
      await payload().find({ collection: 'payload-jobs', where: { taskSlug: { equals: 'sendEmail' } }, limit: 1 })
    ).docs[0]!
    await Promise.all([payload().jobs.runByID({ id: job.id }), second.jobs.runByID({ id: job.id })])
    expect(sentWith(subject!)).toBe(1)
    expect(await jobsLeft()).toBe(0)
  })

  it('a job another runner is working is not claimed again', async () => {
    const [subject] = await queueEmails('claimed', 1)
    const job = (
      await payload().find({ collection: 'payload-jobs', where: { taskSlug: { equals: 'sendEmail' } }, limit: 1 })
    ).docs[0]!
    await payload().db.pool.query('UPDATE payload_jobs SET processing = true WHERE id = $1', [job.id])
    await second.jobs.run({ limit: 100 })
    await second.jobs.runByID({ id: job.id })
    expect(sentWith(subject!)).toBe(0)
    await payload().db.pool.query('UPDATE payload_jobs SET processing = false WHERE id = $1', [job.id])
    await second.jobs.run({ limit: 100 })
    expect(sentWith(subject!)).toBe(1)
  })
})

/**
 * The runner's claim and its two writes after a task succeeded (src/jobs/claim.ts) each write and read
 * the job back in one statement of their own: what they answer must be the job exactly as the adapter
 * reads it, since Payload's runner goes on with that object (its log decides a task's status).
 */
describe("the runner's writes, one statement each", () => {
  const adapterRead = async (id: number) =>
    (await payload().db.find({ collection: 'payload-jobs', where: { id: { equals: id } }, pagination: false })).docs[0]

  it('the claim, the task log entry and the completion answer the job as the adapter reads it', async () => {
    const [subject] = await queueEmails('shape', 1)
    const queued = (
      await payload().find({ collection: 'payload-jobs', where: { taskSlug: { equals: 'sendEmail' } }, limit: 1 })
    ).docs[0]!
    // A failed attempt before (the adapter's own write), so the log has an entry with its error.
    await payload().db.updateJobs({
      id: queued.id,
      data: {
        log: {
          $push: {
            id: '65f0c0ffee00000000000001',
            executedAt: new Date(Date.now() - 2000).toISOString(),
            completedAt: new Date(Date.now() - 1000).toISOString(),
            taskSlug: 'sendEmail',
            taskID: '1',
            input: { to: 'runner@example.test' },
            output: {},
            state: 'failed',
            error: { name: 'Error', message: 'SMTP down' },
          },
        },
        totalTried: 1,
        updatedAt: new Date().toISOString(),
      },
      req: {},
    })

    const statements = await recordQueries(payload(), async () => {
      const claimed = await payload().db.updateJobs({
        data: { processing: true, updatedAt: new Date().toISOString() },
        limit: 10,
        sort: 'createdAt',
        returning: true,
        where: { and: [{ id: { equals: queued.id } }, { processing: { equals: false } }] },
        req: {},
      })
      expect(claimed).toEqual([await adapterRead(queued.id)])
      expect(claimed?.[0]).toMatchObject({ processing: true, totalTried: 1 })
      expect(claimed?.[0]?.log).toHaveLength(1)

      const pushed = await payload().db.updateJobs({
        id: queued.id,
        data: {
          log: {
            $push: {
              id: '65f0c0ffee00000000000002',
              executedAt: new Date(Date.now() - 500).toISOString(),
              completedAt: new Date().toISOString(),
              taskSlug: 'sendEmail',
              taskID: '1',
              input: { to: 'runner@example.test', subject },
              output: { sent: true },
              state: 'succeeded',
            },
          },
          updatedAt: null,
        },
        req: {},
      })
      expect(pushed).toEqual([await adapterRead(queued.id)])
      expect(pushed?.[0]?.log?.map((entry) => entry.state)).toEqual(['failed', 'succeeded'])

      const completed = await payload().db.updateJobs({
        id: queued.id,
        data: {
          completedAt: new Date().toISOString(),
          processing: false,
          totalTried: 2,
          updatedAt: new Date().toISOString(),
        },
        req: {},
      })
      expect(completed).toEqual([await adapterRead(queued.id)])
      expect(completed?.[0]).toMatchObject({ processing: false, totalTried: 2, completedAt: expect.any(String) })
    })
    // The claim: the adapter's query for the candidates and one UPDATE; each write: one statement (the
    // reads above are the test's own).
    const writes = statements.filter((statement) => /^(WITH|UPDATE|INSERT)/.test(statement.trim()))
    expect(writes).toHaveLength(3)
    await payload().db.deleteMany({ collection: 'payload-jobs', where: { id: { equals: queued.id } } })
  })
})
