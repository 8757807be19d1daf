/**
 * Launch day (issue 26): LAUNCH.purchases unique paid checkouts delivered to the webhook
 * LAUNCH.deliveryWidth at a time while LAUNCH.visitors visitors load the home page, then the checks:
 * exactly one purchase and one license per purchase, every license email out within
 * LAUNCH.emailDeadlineSeconds of the burst's end (the stand-ins' SMTP sink keeps when each arrived and
 * for whom), and the home page's p99 during the burst against its p50 alone.
 */
import type pg from 'pg'

import {
  buyerEmail,
  checkExactlyOnce,
  countEffects,
  deliverAll,
  deliveryHeaders,
  prepareEvents,
  type PreparedEvent,
  WEBHOOK_PATH,
} from './events'
import { inParallel } from './http'
import { loadUntilStopped, type Measured, measure, ms, percentile, type Target, warm, WARMUP_SECONDS } from './load'
import type { Check } from './report'
import type { RssSampler } from './rss'
import { BROWSER_HEADERS, controlUrl, LAUNCH, serverUrl, SETTINGS } from './settings'
import type { MailAnswer, SunkMail } from './standins'

type Log = (line: string) => void

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Buyers of launch day's checkouts: `bench-launch-buyer-<n>@example.test`, apart from the webhook run's. */
const EMAIL_PREFIX = 'bench-launch-buyer'
/** Emails the queue sends (the license email and the account emails); the upkeep jobs are scheduled, not waiting. */
const EMAIL_TASKS = ['sendLicenseEmail', 'sendEmail']

/** Email jobs not yet done (waiting, running or waiting for a retry). */
const pendingEmailJobs = async (db: pg.Client): Promise<number> =>
  Number(
    (
      await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM payload_jobs WHERE task_slug::text = ANY($1) AND completed_at IS NULL AND NOT coalesce(has_error, false)',
        [EMAIL_TASKS],
      )
    ).rows[0]?.n ?? 0,
  )

/**
 * Waits (at most `maxSeconds`) until the jobs queue holds no email job: the earlier runs' purchases
 * leave hundreds of license emails queued, which would otherwise be counted against launch day's
 * deadline (and load the server during Lighthouse).
 */
export const drainEmailQueue = async (
  db: pg.Client,
  log: Log,
  maxSeconds: number,
): Promise<{ seconds: number; before: number; left: number }> => {
  const started = Date.now()
  const before = await pendingEmailJobs(db)
  let left = before
  if (before > 0) log(`waiting for the jobs queue to send ${before} queued emails (at most ${maxSeconds} s)`)
  while (left > 0 && Date.now() - started < maxSeconds * 1000) {
    await sleep(1000)
    left = await pendingEmailJobs(db)
  }
  const seconds = (Date.now() - started) / 1000
  if (before > 0)
    log(
      left === 0
        ? `  queue empty after ${seconds.toFixed(0)} s`
        : `  ${left} email jobs still queued after ${seconds.toFixed(0)} s: going on`,
    )
  return { seconds, before, left }
}

const mailTo = async (prefix: string): Promise<SunkMail[]> => {
  const response = await fetch(`${controlUrl}/mail?to=${encodeURIComponent(prefix)}`)
  if (!response.ok) throw new Error(`the SMTP sink's control answered ${response.status}`)
  return ((await response.json()) as MailAnswer).messages ?? []
}

/** The first license email each recipient got, and how many each got. */
const licenseEmails = (mails: SunkMail[]) => {
  const first = new Map<string, number>()
  const count = new Map<string, number>()
  for (const mail of mails) {
    if (!/license/i.test(mail.subject)) continue
    for (const to of mail.to) {
      first.set(to, Math.min(first.get(to) ?? Number.POSITIVE_INFINITY, mail.at))
      count.set(to, (count.get(to) ?? 0) + 1)
    }
  }
  return { first, count }
}

type Delivery = { event: PreparedEvent; status: number; ms: number }

/** One delivery, as the processor sends it, signed now; status 0 when no answer came within 60 s. */
const deliver = async (event: PreparedEvent): Promise<Delivery> => {
  const started = performance.now()
  try {
    const response = await fetch(`${serverUrl}${WEBHOOK_PATH}`, {
      method: 'POST',
      headers: deliveryHeaders(event.body),
      body: event.body,
      signal: AbortSignal.timeout(60_000),
    })
    await response.arrayBuffer()
    return { event, status: response.status, ms: performance.now() - started }
  } catch {
    return { event, status: 0, ms: performance.now() - started }
  }
}

export type LaunchOutcome = {
  /** Rows for the launch day's table, in the main table's format (ratio and RSS filled in by the caller). */
  rows: { result: Measured; rssMiB: number }[]
  notes: string[]
  checks: Check[]
}

export const launchDay = async (options: { db: pg.Client; log: Log; rss: RssSampler }): Promise<LaunchOutcome> => {
  const { db, log, rss } = options
  const count = LAUNCH.purchases
  const width = LAUNCH.deliveryWidth
  const visitors = LAUNCH.visitors

  // The queue as on a quiet day: what earlier runs bought is sent before the burst.
  const drained = await drainEmailQueue(db, log, 900)

  // The home page alone, as the burst's visitors load it.
  const home: Target = {
    name: `launch day: page \`/\` alone (${visitors} visitors, anonymous)`,
    method: 'GET',
    path: '/',
    headers: BROWSER_HEADERS,
    connections: visitors,
  }
  // Warmed like every path of the main table (the home page may not have been loaded yet: BENCH_ONLY=launch).
  await warm(home, SETTINGS.firstWarmupSeconds)
  rss.mark()
  log(`${home.name}: ${WARMUP_SECONDS} s warm-up, ${LAUNCH.aloneSeconds} s measured`)
  const alone = await measure(home, LAUNCH.aloneSeconds)
  const aloneRss = rss.mark()
  log(
    `  ${alone.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(alone.p50)} ms, p99 ${ms(alone.p99)} ms, non-2xx ${alone.non2xx}, errors ${alone.errors}`,
  )

  const prepStart = Date.now()
  const events = await prepareEvents(count, EMAIL_PREFIX)
  log(`prepared ${events.length} launch-day checkouts' events in ${((Date.now() - prepStart) / 1000).toFixed(1)} s`)

  // The burst: deliveries `width` at a time, the visitors loading the home page until the last delivery answered.
  log(`launch day: ${count} purchases delivered ${width} at a time while ${visitors} visitors load \`/\``)
  rss.mark()
  const loading = loadUntilStopped(
    { ...home, name: `launch day: page \`/\` during the burst (${visitors} visitors, anonymous)` },
    900,
  )
  const burstStartedAt = Date.now()
  const deliveries = await inParallel(events, width, deliver)
  const burstEndedAt = Date.now()
  const during = await loading.stop()
  const burstRss = rss.mark()
  const burstSeconds = (burstEndedAt - burstStartedAt) / 1000
  const latencies = deliveries.map((delivery) => delivery.ms).sort((a, b) => a - b)
  const statuses: Record<string, number> = {}
  for (const delivery of deliveries)
    statuses[String(delivery.status || 'no answer')] = (statuses[String(delivery.status || 'no answer')] ?? 0) + 1
  const failed = deliveries.filter((delivery) => delivery.status !== 200)
  const webhook: Measured = {
    name: `launch day: unique signed \`checkout.session.completed\`, ${width} at a time`,
    requestsPerSecond: count / burstSeconds,
    p50: Math.round(percentile(latencies, 50) * 100) / 100,
    p99: Math.round(percentile(latencies, 99) * 100) / 100,
    completed: deliveries.filter((delivery) => delivery.status !== 0).length,
    non2xx: deliveries.filter((delivery) => delivery.status !== 0 && (delivery.status < 200 || delivery.status > 299))
      .length,
    errors: deliveries.filter((delivery) => delivery.status === 0).length,
    statuses,
    seconds: burstSeconds,
    ranOut: false,
  }
  log(
    `  burst: ${burstSeconds.toFixed(1)} s, webhook ${webhook.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(webhook.p50)} ms, p99 ${ms(webhook.p99)} ms, ${failed.length} not 200`,
  )
  log(
    `  home during the burst: ${during.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(during.p50)} ms, p99 ${ms(during.p99)} ms, non-2xx ${during.non2xx}, errors ${during.errors}`,
  )

  // Whatever did not answer 200 is delivered again (as the processor retries); then every purchase must have one license.
  if (failed.length > 0) await deliverAll(failed.map((delivery) => delivery.event))
  const effects = await countEffects(db, events)
  checkExactlyOnce('after launch day', effects, events.length, log)

  // The license emails: one per buyer, each buyer's address unique to its purchase.
  const recipients = new Set(events.map((_, index) => buyerEmail(EMAIL_PREFIX, index).toLowerCase()))
  const waitUntil = burstEndedAt + LAUNCH.emailWaitSeconds * 1000
  let emails = licenseEmails(await mailTo(`${EMAIL_PREFIX}-`))
  while (emails.first.size < recipients.size && Date.now() < waitUntil) {
    await sleep(1000)
    emails = licenseEmails(await mailTo(`${EMAIL_PREFIX}-`))
  }
  const arrivals = [...emails.first.entries()]
    .filter(([to]) => recipients.has(to))
    .map(([, at]) => at)
    .sort((a, b) => a - b)
  const allArrived = arrivals.length === recipients.size
  const lastArrival = arrivals.at(-1)
  const afterBurst = lastArrival === undefined ? Number.NaN : (lastArrival - burstEndedAt) / 1000
  const duplicates = [...emails.count.values()].filter((n) => n > 1).length
  const strangers = [...emails.first.keys()].filter((to) => !recipients.has(to)).length
  const pendingAfter = await pendingEmailJobs(db)
  log(
    allArrived
      ? `  all ${arrivals.length} license emails arrived, the last ${afterBurst.toFixed(1)} s after the burst ended (${((lastArrival! - burstStartedAt) / 1000).toFixed(1)} s after it began)`
      : `  ${arrivals.length} of ${recipients.size} license emails arrived within ${LAUNCH.emailWaitSeconds} s of the burst's end`,
  )

  const p99OverP50 = during.p99 / alone.p50
  const emailsMet = allArrived && afterBurst <= LAUNCH.emailDeadlineSeconds && duplicates === 0
  const checks: Check[] = [
    {
      target: `launch day: exactly one purchase and one license per purchase (${count} purchases)`,
      measured: `${effects.events} events recorded -> ${effects.purchases} one-time purchases, ${effects.licenses} licenses`,
      met: effects.purchases === count && effects.licenses === count,
    },
    {
      target: `launch day: every license email out within ${LAUNCH.emailDeadlineSeconds} s of the burst's end`,
      measured: allArrived
        ? `the ${count}th arrived ${afterBurst >= 0 ? `${afterBurst.toFixed(1)} s after the burst ended` : `${(-afterBurst).toFixed(1)} s before the burst ended`}${duplicates > 0 ? `; ${duplicates} buyers got more than one` : ''}`
        : `${arrivals.length} of ${count} arrived within ${LAUNCH.emailWaitSeconds} s`,
      met: emailsMet,
    },
    {
      target: `launch day: home page p99 during the burst at most ${LAUNCH.maxP99OverAloneP50}x its p50 alone`,
      measured: `p99 ${ms(during.p99)} ms during, p50 ${ms(alone.p50)} ms alone: ${p99OverP50.toFixed(2)}x${during.non2xx + during.errors > 0 ? `; ${during.non2xx + during.errors} home requests failed` : ''}`,
      met: p99OverP50 <= LAUNCH.maxP99OverAloneP50 && during.non2xx + during.errors === 0,
    },
  ]
  const statusLine = Object.entries(statuses)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ')
  const notes = [
    `Launch day: ${count} unique paid checkouts (anonymous Standard, one buyer address each) delivered ${width} at a time to \`${WEBHOOK_PATH}\` while ${visitors} visitors (autocannon, no cookies) loaded \`/\`; the visitors stopped when the last delivery answered. Before it, the home page alone with the same ${visitors} visitors (${SETTINGS.firstWarmupSeconds} + ${WARMUP_SECONDS} s warm-up, ${LAUNCH.aloneSeconds} s measured)${drained.before > 0 ? `, and before that the jobs queue sent the ${drained.before} emails earlier runs had queued (${drained.seconds.toFixed(0)} s${drained.left > 0 ? `; ${drained.left} were still queued when the burst began` : ''})` : ''}.`,
    `Launch day burst: ${burstSeconds.toFixed(1)} s; webhook ${webhook.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(webhook.p50)} ms, p99 ${ms(webhook.p99)} ms, statuses ${statusLine}${failed.length > 0 ? ` (the ${failed.length} not answered 200 were delivered again after the burst)` : ''}; home page ${during.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(during.p50)} ms, p99 ${ms(during.p99)} ms during the burst, against ${alone.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(alone.p50)} ms, p99 ${ms(alone.p99)} ms alone (p99 during / p50 alone = ${p99OverP50.toFixed(2)}, target at most ${LAUNCH.maxP99OverAloneP50}; with no burst at all, p99 alone / p50 alone = ${(alone.p99 / alone.p50).toFixed(2)}).`,
    `Launch day license emails (the SMTP sink's arrival times): ${arrivals.length} of ${count} buyers got theirs${
      allArrived
        ? `, the first ${((arrivals[0]! - burstStartedAt) / 1000).toFixed(1)} s after the burst began, the last ${afterBurst.toFixed(1)} s after it ended (target at most ${LAUNCH.emailDeadlineSeconds} s)`
        : ` within ${LAUNCH.emailWaitSeconds} s of the burst's end (target: all within ${LAUNCH.emailDeadlineSeconds} s)`
    }; ${duplicates} buyers got more than one, ${strangers} license emails went to addresses outside the burst; ${pendingAfter} email jobs queued at the end.`,
  ]
  return {
    rows: [
      { result: alone, rssMiB: aloneRss },
      { result: during, rssMiB: burstRss },
      { result: webhook, rssMiB: burstRss },
    ],
    notes,
    checks,
  }
}
