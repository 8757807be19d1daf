import './../support/billing-env'

import { getPayload, type Payload } from 'payload'
import type { Pool } from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'

import config from '../../payload.config'
import { closePayload } from '../../src/db/bootstrap'
import { hasAccess } from '../../src/licensing/entitlements'
import { generateLicenseKey } from '../../src/licensing/keys'
import { codeHost, PRICES, standIn } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { waitForLockWaiters } from '../support/locks'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
  codeHost.addUser('kit-lapsed')
})

const HOUR_MS = 60 * 60 * 1000
const licenseOf = async (user: TestUser) => (await rows(payload(), 'licenses', { user: { equals: user.user.id } }))[0]!
const jobsOf = async (task: 'withdrawRepoAccess' | 'expireLapsedLicenses' | 'reapStuckJobs' | 'sendLicenseEmail') =>
  (await payload().find({ collection: 'payload-jobs', where: { taskSlug: { equals: task } }, limit: 1000, depth: 0 }))
    .docs
const withdrawalsFor = async (user: TestUser) =>
  (await jobsOf('withdrawRepoAccess')).filter((job) => (job.input as { userId?: number }).userId === user.user.id)

/** A job's row; null once it completed (the queue deletes completed jobs). */
const jobById = async (id: number | string) =>
  (await payload().find({ collection: 'payload-jobs', where: { id: { equals: id } }, limit: 1, depth: 0 })).docs[0] ??
  null

/** What the jobs worker does when the schedule's job is due: queue it and work it; true once it completed. */
const runTask = async (task: 'expireLapsedLicenses' | 'reapStuckJobs') => {
  const job = await payload().jobs.queue({ task, input: {} })
  await payload().jobs.runByID({ id: job.id })
  return (await jobById(job.id)) === null
}

describe('licenses that lapse by date', () => {
  it('are on the jobs schedule', async () => {
    const { queued } = await payload().jobs.handleSchedules()
    expect(queued.map((entry) => entry.taskConfig?.slug)).toEqual(
      expect.arrayContaining(['expireLapsedLicenses', 'reapStuckJobs']),
    )
    const [scheduled] = (await jobsOf('expireLapsedLicenses')).filter(
      (job) => (job.meta as { scheduled?: boolean } | null)?.scheduled,
    )
    expect(scheduled).toBeTruthy()
    expect(new Date(scheduled!.waitUntil!).getTime()).toBeLessThanOrEqual(Date.now() + 60_000)
  })

  it('a past-due subscription whose grace period ended with no event expires, and a renewal brings it back', async () => {
    const buyer = await createUser(payload(), 'customer')
    const { events } = await buy(PRICES.proMonthly, { as: buyer })
    const subscriptionId = events.find((event) => event.type === 'customer.subscription.created')!.data.object.id
    await standIn.failInvoicePayment(subscriptionId)
    await standIn.settled()
    expect((await licenseOf(buyer)).status).toBe('active')

    // Time passes: the unpaid period and its grace days are over, and no event says so.
    const [subscription] = await rows(payload(), 'user_subscriptions', { user: { equals: buyer.user.id } })
    const ended = new Date(Date.now() - 8 * 24 * HOUR_MS)
    await payload().update({
      collection: 'user_subscriptions',
      id: subscription!.id,
      data: { currentPeriodEnd: ended.toISOString() },
    })
    await payload().update({
      collection: 'licenses',
      id: (await licenseOf(buyer)).id,
      data: { validUntil: new Date(ended.getTime() + 7 * 24 * HOUR_MS).toISOString() },
    })

    expect(await runTask('expireLapsedLicenses')).toBe(true)
    expect((await licenseOf(buyer)).status).toBe('expired')
    expect(await withdrawalsFor(buyer)).toHaveLength(1)

    await standIn.renewSubscription(subscriptionId)
    await standIn.settled()
    expect((await licenseOf(buyer)).status).toBe('active')
    expect(await hasAccess(payload(), buyer.user.id)).toBe(true)
  })

  it('a license with repository access that runs out loses the access through the withdrawal job', async () => {
    const user = await createUser(payload(), 'customer')
    const ultimate = (await payload().find({ collection: 'plans', where: { slug: { equals: 'ultimate' } } })).docs[0]!
    // A license staff granted until a date (a trial): no processor event will ever end it.
    const license = await payload().create({
      collection: 'licenses',
      data: {
        key: generateLicenseKey(),
        user: user.user.id,
        plan: ultimate.id,
        source: 'manual',
        seats: 1,
        status: 'active',
        validUntil: new Date(Date.now() + HOUR_MS).toISOString(),
      },
    })
    expect((await api('POST', '/repo-access', { as: user, body: { username: 'kit-lapsed' } })).status).toBe(200)
    codeHost.accept('kit-lapsed')
    expect(codeHost.state.collaborators.has('kit-lapsed')).toBe(true)

    await runTask('expireLapsedLicenses')
    expect((await licenseOf(user)).status).toBe('active')

    await payload().update({
      collection: 'licenses',
      id: license.id,
      data: { validUntil: new Date(Date.now() - 1000).toISOString() },
    })
    await runTask('expireLapsedLicenses')
    expect((await licenseOf(user)).status).toBe('expired')
    const [withdrawal] = await withdrawalsFor(user)
    expect(withdrawal).toBeTruthy()
    await payload().jobs.runByID({ id: withdrawal!.id })
    expect(codeHost.state.collaborators.has('kit-lapsed')).toBe(false)
    expect((await rows(payload(), 'repo_access', { user: { equals: user.user.id } }))[0]?.status).toBe('revoked')
  })

  it('leaves alone licenses restored by staff and licenses without an end date', async () => {
    const user = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: user })
    const standard = await licenseOf(user)
    expect(standard.validUntil ?? null).toBeNull()
    await payload().update({
      collection: 'licenses',
      id: standard.id,
      data: { override: 'active', overrideReason: 'goodwill' },
    })
    await payload().update({
      collection: 'licenses',
      id: standard.id,
      data: { validUntil: new Date(Date.now() - 1000).toISOString() },
    })
    await runTask('expireLapsedLicenses')
    expect((await licenseOf(user)).status).toBe('active')
  })
})

describe('jobs interrupted by a crash run again', () => {
  /** A worker took the job and died: the row stays `processing` with the time it was taken. */
  const crash = async (jobId: number | string, minutesAgo: number) => {
    await payload().db.pool.query(
      `UPDATE payload_jobs SET processing = true, updated_at = now() - ($2::int * interval '1 minute') WHERE id = $1`,
      [jobId, minutesAgo],
    )
  }

  it('a job stuck in processing past the timeout is handed back by the scheduled reaper and then runs; a recent one is left alone', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const license = await licenseOf(buyer)
    const [emailJob] = (await jobsOf('sendLicenseEmail')).filter(
      (job) => (job.input as { licenseId?: number }).licenseId === license.id,
    )
    await crash(emailJob!.id, 30)
    const recent = await payload().jobs.queue({ task: 'expireLapsedLicenses', input: {} })
    await crash(recent.id, 1)

    // Nothing runs it again by itself: the queue skips jobs marked processing. (A reaper that an earlier
    // test's schedule queued for the next minute would hand it back in this run: leave reapers out.)
    await payload().jobs.run({ limit: 100, where: { taskSlug: { not_equals: 'reapStuckJobs' } } })
    expect(await jobById(emailJob!.id)).toMatchObject({ processing: true })
    expect((await licenseOf(buyer)).emailSentAt ?? null).toBeNull()

    expect(await runTask('reapStuckJobs')).toBe(true)
    const handedBack = await jobById(emailJob!.id)
    expect(handedBack).toMatchObject({ processing: false, hasError: false })
    expect(handedBack!.meta).toMatchObject({ interruptions: 1 })
    expect((await jobById(recent.id))?.processing).toBe(true)

    await payload().jobs.run({ limit: 100 })
    expect(await jobById(emailJob!.id)).toBeNull()
    expect((await licenseOf(buyer)).emailSentAt).toBeTruthy()
  })

  it('a process starting up hands back what a crashed one left behind', async () => {
    const job = await payload().jobs.queue({ task: 'expireLapsedLicenses', input: {} })
    await crash(job.id, 30)
    let restarted: Payload | undefined
    try {
      restarted = await getPayload({ config, key: 'restarted-after-crash' })
      expect((await jobById(job.id))?.processing).toBe(false)
    } finally {
      if (restarted) await closePayload(restarted)
    }
    await payload().jobs.run({ limit: 100 })
    expect(await jobById(job.id)).toBeNull()
  })

  it('a job that keeps taking its worker down fails for good after five interruptions', async () => {
    const job = await payload().jobs.queue({ task: 'expireLapsedLicenses', input: {} })
    for (let round = 1; round <= 5; round += 1) {
      await crash(job.id, 30)
      await runTask('reapStuckJobs')
    }
    const failed = await jobById(job.id)
    expect(failed).toMatchObject({ processing: false, hasError: true })
    expect(failed!.error).toMatchObject({ message: 'interrupted 5 times while processing' })
  })
})

describe('the license email job and a claim at the same moment', () => {
  it('recording the email sent does not write back the owner it read: a claim committed meanwhile keeps its owner', async () => {
    const email = `claimed-while-mailed-${Date.now()}@example.test`
    const plan = (
      await payload().find({ collection: 'plans', where: { slug: { equals: 'standard' } }, limit: 1, depth: 0 })
    ).docs[0]!
    const license = await payload().create({
      collection: 'licenses',
      data: { key: generateLicenseKey(), plan: plan.id, source: 'manual', status: 'active', email } as never,
      overrideAccess: true,
    })
    const owner = await createUser(payload(), 'customer')
    const job = await payload().jobs.queue({ task: 'sendLicenseEmail', input: { licenseId: license.id } })
    // The claim (src/billing/customers.ts) has set the owner but not committed yet when the job runs:
    // the job reads the license without an owner, sends, and records the email while the claim holds the row.
    const claim = await (payload().db as unknown as { pool: Pool }).pool.connect()
    try {
      await claim.query('BEGIN')
      await claim.query('UPDATE licenses SET user_id = $1 WHERE id = $2', [owner.user.id, license.id])
      const claimer = (await claim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
      const running = payload().jobs.runByID({ id: job.id })
      try {
        // The job has read the license (the claim is not committed: no owner) and sent; its write of the
        // license waits behind the claim's row lock.
        await waitForLockWaiters({
          blockedBy: claimer,
          query: /update\s+"?licenses"?/i,
          message:
            "the job's write of the license never waited on the uncommitted claim: the interleaving was not proven",
        })
      } finally {
        await claim.query('COMMIT')
        await running
      }
    } finally {
      claim.release()
    }
    expect(await jobById(job.id)).toBeNull()
    const after = await payload().findByID({ collection: 'licenses', id: license.id, depth: 0, overrideAccess: true })
    expect(after.emailSentAt).toBeTruthy()
    expect(after.user).toBe(owner.user.id)
  })
})
