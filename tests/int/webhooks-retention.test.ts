import { receiver } from '../support/webhooks-env'

import { getPayload, type Payload, type PayloadRequest } from 'payload'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'

import config from '../../payload.config'
import { readEnv } from '../../src/config/env'
import { closePayload } from '../../src/db/bootstrap'
import { execute, inTransaction, sql } from '../../src/db/transaction'
import { emitWebhookEvent, eventBody, newEventId } from '../../src/webhooks/emit'
import { WEBHOOKS_QUEUE } from '../../src/webhooks/events'
import { deleteOldWebhookEvents, type RetentionResult, RETENTION_BATCH } from '../../src/webhooks/retention'
import { backendPid, lockWaiters, waitForLockWaiters, waitUntil } from '../support/locks'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import type { Behaviour } from '../support/webhook-receiver'

// This file's Payload runs with a retention period of its own (the default is 30 days), set before any
// import reads the configuration (vitest runs vi.hoisted first): the scheduled job must use it.
const CONFIGURED_DAYS = vi.hoisted(() => {
  process.env.WEBHOOK_RETENTION_DAYS = '10'
  return 10
})

/**
 * Retention of the outbound webhook log (docs/WEBHOOKS.md, "Retention") on a real PostgreSQL: events
 * past the period go with their deliveries, an event whose attempts are not over never does, a large
 * backlog goes in batches, two instances at once delete each event once, and the scheduled job uses
 * WEBHOOK_RETENTION_DAYS. Deliveries are real ones (the webhooks queue worked explicitly against a
 * receiver over HTTP); "time passing" is the rows' timestamps moved back.
 */
const payload = usePayload()
let admin: TestUser
let second: Payload

beforeAll(async () => {
  admin = await createUser(payload(), 'admin')
  second = await getPayload({ config, key: 'webhooks-retention-second' })
  second.db.pool.on('error', () => undefined)
})

afterAll(async () => {
  if (second) await closePayload(second)
})

const query = async <Row = Record<string, unknown>>(text: string, values: unknown[] = []) =>
  (await payload().db.pool.query(text, values)).rows as Row[]

// Each test starts from an empty log and queue.
afterEach(async () => {
  vi.restoreAllMocks()
  await query(`DELETE FROM payload_jobs WHERE task_slug IN ('deliverWebhook', 'deleteOldWebhookEvents')`)
  await query('DELETE FROM webhook_deliveries')
  await query('DELETE FROM webhook_events')
  await payload().delete({ collection: 'webhook_endpoints', where: { id: { exists: true } }, overrideAccess: true })
})

let paths = 0
type Endpoint = { id: number; path: string; secret: string }

/** An endpoint for license.created made by an admin, its receiver path verifying with its secret. */
const endpointFor = async (behaviour: Behaviour = { kind: 'ok' }): Promise<Endpoint> => {
  paths += 1
  const path = `/retention/${paths}`
  const created = await api('POST', '/webhook_endpoints', {
    as: admin,
    body: { url: `${receiver.url}${path}`, events: ['license.created'] },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const revealed = await api('POST', `/staff/webhook-endpoints/${created.body.doc.id}/reveal-secret`, { as: admin })
  expect(revealed.status).toBe(200)
  receiver.route(path, behaviour, [revealed.body.secret])
  return { id: created.body.doc.id, path, secret: revealed.body.secret }
}

/** An event as the service emits one, for every enabled endpoint; its row id. */
const emit = async (sourceKey: string, data: Record<string, unknown> = { sourceKey }): Promise<number> => {
  const eventId = await inTransaction(payload(), (req) =>
    emitWebhookEvent(req, { type: 'license.created', sourceKey, data: () => data }),
  )
  expect(eventId).toMatch(/^msg_/)
  const [row] = await query<{ id: number }>('SELECT id FROM webhook_events WHERE event_id = $1', [eventId])
  return row!.id
}

const PENDING = `task_slug = 'deliverWebhook' AND completed_at IS NULL AND has_error IS NOT TRUE`

/** Attempts still to run: jobs neither completed nor failed for good. */
const pendingAttempts = async () =>
  Number((await query(`SELECT count(*) AS n FROM payload_jobs WHERE ${PENDING}`))[0]!.n)

/** Pending attempts a runner can take now: not taken, their retry's wait over. */
const dueAttempts = async () =>
  Number(
    (
      await query(
        `SELECT count(*) AS n FROM payload_jobs WHERE ${PENDING} AND processing IS NOT TRUE AND (wait_until IS NULL OR wait_until < now())`,
      )
    )[0]!.n,
  )

/** Work the webhooks queue until no attempt is left, each next round once a retry is due (the waits are milliseconds here). */
const drain = async () => {
  const deadline = Date.now() + 20_000
  while ((await pendingAttempts()) > 0) {
    if (Date.now() > deadline) throw new Error('attempts still pending')
    await payload().jobs.run({ queue: WEBHOOKS_QUEUE, limit: 100 })
    await waitUntil(async () => (await dueAttempts()) > 0 || (await pendingAttempts()) === 0, {
      timeoutMs: Math.max(0, deadline - Date.now()),
      message: 'attempts still pending, none of them due',
    })
  }
}

/** A run of the job's work on `instance`, started now, and whether it has ended yet. */
const started = (instance: Payload) => {
  const run = { ended: false }
  const result: Promise<RetentionResult> = deleteOldWebhookEvents(instance, CONFIGURED_DAYS).finally(() => {
    run.ended = true
  })
  return Object.assign(run, { result })
}

/** A transaction of the test's own: `hold` takes its locks, kept (uncommitted) until `release`; `pid` is its backend. */
const holding = async (hold: (req: PayloadRequest) => Promise<unknown>) => {
  let held!: (pid: number) => void
  const ready = new Promise<number>((resolve) => (held = resolve))
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const done = inTransaction(payload(), async (req) => {
    await hold(req)
    held(await backendPid(req))
    await released
  })
  // A hold that fails ends the transaction before it holds anything: its error, not a wait forever.
  const pid = await Promise.race([
    ready,
    done.then(() => Promise.reject(new Error('the holding transaction ended before it held its locks'))),
  ])
  return {
    pid,
    release: async () => {
      release()
      await done
    },
  }
}

/** Time passes for an event: it and its deliveries (their next attempts too) move `days` into the past. */
const age = async (eventRowId: number, days: number) => {
  await query(
    `UPDATE webhook_events SET created_at = created_at - $2 * interval '1 day', updated_at = updated_at - $2 * interval '1 day' WHERE id = $1`,
    [eventRowId, days],
  )
  await query(
    `UPDATE webhook_deliveries SET created_at = created_at - $2 * interval '1 day', updated_at = updated_at - $2 * interval '1 day',
       next_attempt_at = next_attempt_at - $2 * interval '1 day' WHERE event_id = $1`,
    [eventRowId, days],
  )
}

const eventExists = async (id: number) => (await query('SELECT 1 FROM webhook_events WHERE id = $1', [id])).length === 1
const deliveriesOf = async (eventRowId: number) =>
  query<{ id: number; attempt: string; outcome: string; trigger: string; next_attempt_at: Date | null }>(
    'SELECT id, attempt, outcome, trigger, next_attempt_at FROM webhook_deliveries WHERE event_id = $1 ORDER BY id',
    [eventRowId],
  )
const count = async (table: 'webhook_events' | 'webhook_deliveries' | 'webhook_endpoints') =>
  Number((await query(`SELECT count(*) AS n FROM ${table}`))[0]!.n)

/** An event and its deliveries written as the service writes them, without sending (for what a real attempt cannot set up). */
const storedEvent = async (
  sourceKey: string,
  deliveries: Array<{
    endpoint: number
    attempt: number
    outcome: 'succeeded' | 'failed'
    nextAttemptAt?: string | null
  }>,
) => {
  const eventId = newEventId()
  const event = await payload().create({
    collection: 'webhook_events',
    data: {
      eventId,
      type: 'license.created',
      sourceKey,
      body: eventBody('license.created', new Date(), { sourceKey }),
    },
    overrideAccess: true,
    depth: 0,
  })
  for (const delivery of deliveries) {
    await payload().create({
      collection: 'webhook_deliveries',
      data: {
        event: event.id,
        endpoint: delivery.endpoint,
        eventType: 'license.created',
        url: 'http://127.0.0.1/stored',
        attempt: delivery.attempt,
        trigger: 'automatic',
        outcome: delivery.outcome,
        nextAttemptAt: delivery.nextAttemptAt ?? null,
      },
      overrideAccess: true,
      depth: 0,
    })
  }
  return event.id
}

/** `n` events created `days` ago, each with two final deliveries, in three statements. */
const backlog = async (prefix: string, n: number, days: number, endpoint: number) => {
  await query(
    `INSERT INTO webhook_events (event_id, type, source_key, body, created_at, updated_at)
     SELECT 'msg_' || $1 || n, 'license.created', $1 || ':' || n, '{}', now() - $3 * interval '1 day', now() - $3 * interval '1 day'
     FROM generate_series(1, $2::int) AS n`,
    [prefix, n, days],
  )
  for (const [attempt, outcome] of [
    [1, 'failed'],
    [2, 'succeeded'],
  ] as const) {
    await query(
      `INSERT INTO webhook_deliveries (event_id, endpoint_id, event_type, url, attempt, trigger, outcome, created_at, updated_at)
       SELECT id, $2, type, 'http://127.0.0.1/backlog', $3, 'automatic', $4, created_at, created_at FROM webhook_events WHERE source_key LIKE $1 || ':%'`,
      [prefix, endpoint, attempt, outcome],
    )
  }
}

describe('what retention deletes', () => {
  it('an event past the period whose attempts are over goes with every delivery; a recent one stays', async () => {
    const ok = await endpointFor()
    const failing = await endpointFor({ kind: 'fail', times: 1_000 })
    const delivered = await emit('retention:delivered')
    const recent = await emit('retention:recent')
    // Both endpoints get both events: one attempt that works; one that fails, then the tenth and last (made at once), failing too.
    await payload().jobs.run({ queue: WEBHOOKS_QUEUE, limit: 100 })
    await query(
      `UPDATE payload_jobs SET input = jsonb_set(input, '{attempt}', '10') WHERE task_slug = 'deliverWebhook' AND completed_at IS NULL`,
    )
    await drain()
    expect((await deliveriesOf(delivered)).map((row) => row.outcome).sort()).toEqual(['failed', 'failed', 'succeeded'])
    expect(receiver.at(failing.path).length).toBeGreaterThan(0)
    const endpoints = await count('webhook_endpoints')

    await age(delivered, CONFIGURED_DAYS + 1)
    await age(recent, CONFIGURED_DAYS - 1)
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 1, deliveries: 3 })
    expect(await eventExists(delivered)).toBe(false)
    expect(await deliveriesOf(delivered)).toEqual([])
    expect(await eventExists(recent)).toBe(true)
    expect(await deliveriesOf(recent)).toHaveLength(3)
    // The endpoints are never retention's to delete.
    expect(await count('webhook_endpoints')).toBe(endpoints)
    expect((await payload().findByID({ collection: 'webhook_endpoints', id: ok.id, depth: 0 })).enabled).toBe(true)
  })

  it('an event whose job failed for good, or whose endpoint was turned off before its attempt, is over too', async () => {
    const endpoint = await endpointFor()
    const givenUp = await emit('retention:given-up')
    // Payload's runner gave up on the attempt's job (its own retries spent): it never runs again.
    await query(
      `UPDATE payload_jobs SET has_error = true WHERE task_slug = 'deliverWebhook' AND input ->> 'event' = $1`,
      [String(givenUp)],
    )
    const turnedOff = await emit('retention:turned-off')
    const recentlyTurnedOff = await emit('retention:recently-turned-off')
    await api('PATCH', `/webhook_endpoints/${endpoint.id}`, { as: admin, body: { enabled: false } })
    await drain()
    expect(await deliveriesOf(turnedOff)).toEqual([])
    await age(givenUp, 40)
    await age(turnedOff, 40)
    // Over as well, but within the period: with no delivery, its own age keeps it.
    await age(recentlyTurnedOff, CONFIGURED_DAYS - 1)
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 2, deliveries: 0 })
    expect(await eventExists(givenUp)).toBe(false)
    expect(await eventExists(turnedOff)).toBe(false)
    expect(await eventExists(recentlyTurnedOff)).toBe(true)
  })
})

describe('what retention never deletes', () => {
  it('an event whose attempts are not over: a first attempt not made yet, a retry waiting its turn', async () => {
    const endpoint = await endpointFor({ kind: 'fail', times: 1_000 })
    // One event's first attempt runs and fails: its retry is queued. The other's first attempt is not made yet.
    const retrying = await emit('retention:retrying')
    await payload().jobs.run({ queue: WEBHOOKS_QUEUE, limit: 100 })
    const [first] = await deliveriesOf(retrying)
    expect(first).toMatchObject({ outcome: 'failed' })
    expect(first!.next_attempt_at).toBeTruthy()
    const queued = await emit('retention:queued')
    expect(await deliveriesOf(queued)).toEqual([])
    expect(await pendingAttempts()).toBe(2)

    // Weeks pass with the queue not worked: the next attempts' times are long gone too; only the jobs say more is to come.
    await age(queued, 40)
    await age(retrying, 40)
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 0, deliveries: 0 })
    expect(await eventExists(queued)).toBe(true)
    expect(await eventExists(retrying)).toBe(true)
    expect(await deliveriesOf(retrying)).toHaveLength(1)

    // The receiver is back and the attempts end; their deliveries are new, so the events stay a period more.
    receiver.route(endpoint.path, { kind: 'ok' }, [endpoint.secret])
    await query(
      `UPDATE payload_jobs SET input = jsonb_set(input, '{attempt}', '10') WHERE task_slug = 'deliverWebhook' AND completed_at IS NULL`,
    )
    await drain()
    expect(await pendingAttempts()).toBe(0)
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 0, deliveries: 0 })
    // Once those are past the period too, both go.
    await age(queued, 40)
    await age(retrying, 40)
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 2, deliveries: 3 })
  })

  it('a delivery that says a next attempt is still to come keeps its event, with or without a job', async () => {
    const endpoint = await endpointFor()
    const inAnHour = new Date(Date.now() + 60 * 60 * 1000).toISOString()
    const waiting = await storedEvent('retention:next-attempt', [
      { endpoint: endpoint.id, attempt: 1, outcome: 'failed', nextAttemptAt: inAnHour },
    ])
    await age(waiting, 40)
    await query('UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE event_id = $1', [waiting, inAnHour])
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 0, deliveries: 0 })
    expect(await eventExists(waiting)).toBe(true)
    // Its time gone by with no attempt to come (no job): the event is over.
    await query(`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 day' WHERE event_id = $1`, [
      waiting,
    ])
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 1, deliveries: 1 })
  })

  it('an old event an admin sent again within the period: it stays, with its whole history, for a period from then', async () => {
    await endpointFor()
    const resent = await emit('retention:resent')
    await drain()
    await age(resent, 40)
    const [original] = await deliveriesOf(resent)
    const again = await api('POST', `/staff/webhook-deliveries/${original!.id}/send-again`, { as: admin })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    expect((await deliveriesOf(resent)).map((row) => row.trigger)).toEqual(['automatic', 'manual'])
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 0, deliveries: 0 })
    expect(await deliveriesOf(resent)).toHaveLength(2)
    await age(resent, CONFIGURED_DAYS)
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 1, deliveries: 2 })
  })

  it('an event whose attempt is being recorded right now: the run passes it by instead of waiting, and the attempt counts', async () => {
    const endpoint = await endpointFor()
    const event = await storedEvent('retention:recording', [{ endpoint: endpoint.id, attempt: 1, outcome: 'failed' }])
    await age(event, 40)
    // An attempt's transaction (a "Send again" on another server) has written its delivery and not committed yet.
    const recording = await holding((req) =>
      payload().create({
        collection: 'webhook_deliveries',
        data: {
          event,
          endpoint: endpoint.id,
          eventType: 'license.created',
          url: 'http://127.0.0.1/stored',
          attempt: 2,
          trigger: 'manual',
          outcome: 'succeeded',
        },
        overrideAccess: true,
        depth: 0,
        req,
      }),
    )
    try {
      // Its foreign key holds the event's row (a key-share lock): no one can take it for deleting now.
      await expect(query('SELECT id FROM webhook_events WHERE id = $1 FOR UPDATE NOWAIT', [event])).rejects.toThrow(
        /could not obtain lock/,
      )
      const run = started(second)
      await waitUntil(async () => run.ended || (await lockWaiters({ blockedBy: recording.pid })).length > 0, {
        message: 'the run neither ended nor waited',
      })
      expect(await lockWaiters({ blockedBy: recording.pid }), 'the run waited for the attempt to commit').toEqual([])
      expect(await run.result).toEqual({ events: 0, deliveries: 0 })
    } finally {
      await recording.release()
    }
    expect(await deliveriesOf(event)).toHaveLength(2)
    // Committed, its delivery is within the period: the event stays.
    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 0, deliveries: 0 })
    expect(await eventExists(event)).toBe(true)
  })
})

describe('how it deletes', () => {
  it('a backlog larger than a batch in one run, with the edit locks and preferences of what it deletes; a second run finds nothing', async () => {
    const endpoint = await endpointFor()
    const n = 2 * RETENTION_BATCH + 5
    await backlog('old', n, 40, endpoint.id)
    await backlog('young', 3, 2, endpoint.id)
    const [oldEvent] = await query<{ id: number }>(`SELECT id FROM webhook_events WHERE source_key = 'old:1'`)
    const [youngEvent] = await query<{ id: number }>(`SELECT id FROM webhook_events WHERE source_key = 'young:1'`)
    const [oldDelivery] = await query<{ id: number }>('SELECT id FROM webhook_deliveries WHERE event_id = $1 LIMIT 1', [
      oldEvent!.id,
    ])
    // An admin had the old event and one of its deliveries open (an edit lock each) and a preference saved on each; the same for a young one.
    const locks: Record<string, number> = {}
    for (const [name, relationTo, value] of [
      ['oldEvent', 'webhook_events', oldEvent!.id],
      ['oldDelivery', 'webhook_deliveries', oldDelivery!.id],
      ['youngEvent', 'webhook_events', youngEvent!.id],
    ] as const) {
      const lock = await payload().create({
        collection: 'payload-locked-documents',
        data: { document: { relationTo, value }, user: { relationTo: 'users', value: admin.user.id } } as never,
        overrideAccess: true,
      })
      locks[name] = Number(lock.id)
      // As the admin saves one (a field collapsed on the document's page).
      const saved = await api('POST', `/payload-preferences/collection-${relationTo}-${value}`, {
        as: admin,
        body: { value: { fields: { body: { collapsed: true } } } },
      })
      expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    }

    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: n, deliveries: 2 * n })
    expect(Number((await query(`SELECT count(*) AS n FROM webhook_events WHERE source_key LIKE 'old:%'`))[0]!.n)).toBe(
      0,
    )
    expect(
      Number(
        (await query(`SELECT count(*) AS n FROM webhook_deliveries WHERE url = 'http://127.0.0.1/backlog'`))[0]!.n,
      ),
    ).toBe(2 * 3)
    expect(await count('webhook_events')).toBe(3)

    const lockIds = (await query<{ id: number }>('SELECT id FROM payload_locked_documents')).map((row) =>
      Number(row.id),
    )
    expect(lockIds).not.toContain(locks.oldEvent)
    expect(lockIds).not.toContain(locks.oldDelivery)
    expect(lockIds).toContain(locks.youngEvent)
    expect(
      Number(
        (
          await query('SELECT count(*) AS n FROM payload_locked_documents_rels WHERE parent_id = ANY($1::int[])', [
            [locks.oldEvent, locks.oldDelivery],
          ])
        )[0]!.n,
      ),
    ).toBe(0)
    const keys = (
      await query<{ key: string }>(`SELECT key FROM payload_preferences WHERE key LIKE 'collection-webhook_%'`)
    ).map((row) => row.key)
    expect(keys).toEqual([`collection-webhook_events-${youngEvent!.id}`])

    expect(await deleteOldWebhookEvents(payload(), CONFIGURED_DAYS)).toEqual({ events: 0, deliveries: 0 })
    expect(await count('webhook_events')).toBe(3)
  })

  it('two instances at once: the second takes other events than the first has in hand, and each event goes once', async () => {
    const endpoint = await endpointFor()
    const n = 3 * RETENTION_BATCH
    await backlog('both', n, 40, endpoint.id)
    // The first instance's first batch is the oldest events (the lowest ids here). A row of one of their
    // deliveries is held, so that instance stops mid-batch: its events locked, its delete waiting.
    const [held] = await query<{ id: number }>(
      'SELECT id FROM webhook_deliveries WHERE event_id = (SELECT min(id) FROM webhook_events) ORDER BY id LIMIT 1',
    )
    const holder = await holding((req) =>
      execute(req, sql`SELECT id FROM webhook_deliveries WHERE id = ${held!.id} FOR UPDATE`),
    )
    const first = started(payload())
    try {
      await waitForLockWaiters({
        blockedBy: holder.pid,
        query: /doomed_events/,
        message: 'the first instance never waited mid-batch: the interleaving was not proven',
      })
      const other = started(second)
      await waitUntil(() => other.ended, { message: 'the second instance waited for the first' })
      expect(await other.result).toEqual({ events: n - RETENTION_BATCH, deliveries: 2 * (n - RETENTION_BATCH) })
      expect(first.ended).toBe(false)
    } finally {
      await holder.release()
    }
    expect(await first.result).toEqual({ events: RETENTION_BATCH, deliveries: 2 * RETENTION_BATCH })
    expect(await count('webhook_events')).toBe(0)
    expect(await count('webhook_deliveries')).toBe(0)
  })
})

describe('the setting and the schedule', () => {
  it('WEBHOOK_RETENTION_DAYS: 30 days by default, a whole number of days from 1 to 3650; anything else refuses to start', () => {
    expect(readEnv({}).webhooks.retentionDays).toBe(30)
    expect(readEnv({ WEBHOOK_RETENTION_DAYS: ' 7 ' }).webhooks.retentionDays).toBe(7)
    expect(readEnv({ WEBHOOK_RETENTION_DAYS: '1' }).webhooks.retentionDays).toBe(1)
    expect(readEnv({ WEBHOOK_RETENTION_DAYS: '3650' }).webhooks.retentionDays).toBe(3650)
    for (const value of ['0', '-3', '1.5', 'thirty', '30d', '3651']) {
      expect(() => readEnv({ WEBHOOK_RETENTION_DAYS: value }), value).toThrow(
        new Error(`WEBHOOK_RETENTION_DAYS must be a whole number of days from 1 to 3650, got "${value}"`),
      )
    }
  })

  it('runs hourly on the default queue, with the configured period, and logs the counts, never a body or a URL', async () => {
    const task = payload().config.jobs.tasks?.find((candidate) => candidate.slug === 'deleteOldWebhookEvents')
    expect(task?.schedule).toEqual([expect.objectContaining({ cron: '43 * * * *', queue: 'default' })])
    // What the worker's turn does on the default queue (this file's instances' own turns may have done it already:
    // then this one skips it, as a schedule has one job waiting at a time).
    await payload().jobs.handleSchedules({ queue: 'default' })
    const scheduled = (
      await payload().find({
        collection: 'payload-jobs',
        where: { taskSlug: { equals: 'deleteOldWebhookEvents' } },
        sort: 'id',
        depth: 0,
      })
    ).docs
    expect(scheduled.length).toBeGreaterThanOrEqual(1)
    expect((scheduled[0]!.meta as { scheduled?: boolean } | null)?.scheduled).toBe(true)
    expect(scheduled[0]!.queue).toBe('default')
    expect(new Date(scheduled[0]!.waitUntil!).getTime()).toBeLessThanOrEqual(Date.now() + 60 * 60 * 1000)

    const endpoint = await endpointFor()
    const marker = `body-marker-${Date.now()}`
    const pastThePeriod = await emit('retention:configured-old', { marker })
    const withinThePeriod = await emit('retention:configured-young', { marker })
    await drain()
    // Past the configured 10 days, well within the default 30: only the configured period deletes it.
    await age(pastThePeriod, CONFIGURED_DAYS + 2)
    await age(withinThePeriod, CONFIGURED_DAYS - 2)
    const info = vi.spyOn(payload().logger, 'info')
    // Minute 43 comes: the worker runs the schedule's job.
    await query(`UPDATE payload_jobs SET wait_until = now() - interval '1 second' WHERE id = $1`, [scheduled[0]!.id])
    await payload().jobs.runByID({ id: scheduled[0]!.id })
    expect(await eventExists(pastThePeriod)).toBe(false)
    expect(await eventExists(withinThePeriod)).toBe(true)
    expect(
      (await payload().find({ collection: 'payload-jobs', where: { id: { equals: scheduled[0]!.id } }, depth: 0 }))
        .docs,
    ).toEqual([])

    const logged = info.mock.calls
      .map((call): unknown => call[0])
      .filter((line) => (line as { msg?: unknown } | undefined)?.msg === 'old webhook events deleted')
    expect(logged).toEqual([
      { msg: 'old webhook events deleted', events: 1, deliveries: 1, retentionDays: CONFIGURED_DAYS },
    ])
    const everything = JSON.stringify(info.mock.calls)
    expect(everything).not.toContain(marker)
    expect(everything).not.toContain(endpoint.path)
  })
})
