/**
 * One benchmarked path: a short warm-up, then `seconds` at `connections` with autocannon. A path that
 * varies per request (rotating keys, client addresses, events) builds each request in `vary`.
 */
import { SETTINGS, serverUrl } from './settings'
import { type Autocannon, loadAutocannon, type RequestSpec, type Result } from './tools'

/** Not measured, right before each path's run: the pools and caches settle on that path. */
export const WARMUP_SECONDS = 2

type Variation = { path?: string; headers?: Record<string, string>; body?: string; last?: boolean }

export type Target = {
  name: string
  method: 'GET' | 'POST'
  path: string
  headers?: Record<string, string>
  body?: string
  /** The n-th request of the path (warm-up included); `last` ends the run after it (nothing left to send). */
  vary?: (n: number) => Variation
  /** Connections for this path; SETTINGS.connections (BENCH_CONNECTIONS) otherwise. */
  connections?: number
}

export type Measured = {
  name: string
  requestsPerSecond: number
  /** Milliseconds, to a hundredth (formatted by `ms`). */
  p50: number
  p99: number
  completed: number
  non2xx: number
  /** Connection errors and timeouts (no answer at all). */
  errors: number
  statuses: Record<string, number>
  seconds: number
  ranOut: boolean
}

type Running = { stop: () => void; done: Promise<{ result: Result; ranOut: boolean; latencies: number[] }> }

/**
 * A latency as the tables print it: a tenth of a millisecond under 10 ms, whole milliseconds above.
 * autocannon's own percentiles are whole milliseconds (truncated), which made a page served in 0.4 ms
 * read as 0 ms and any ratio over it meaningless; the bench keeps each answer's time itself.
 */
export const ms = (value: number): string => (value < 10 ? value.toFixed(1) : value.toFixed(0))

/** The p-th percentile (nearest rank) of sorted values. */
export const percentile = (sorted: ArrayLike<number>, p: number): number => {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number
}

const start = (autocannon: Autocannon, target: Target, seconds: number, next: () => number): Running => {
  let ranOut = false
  const base: RequestSpec = { method: target.method, path: target.path, headers: target.headers, body: target.body }
  const vary = target.vary
  const instance = autocannon({
    url: serverUrl,
    connections: target.connections ?? SETTINGS.connections,
    duration: seconds,
    timeout: 30,
    requests: [
      vary
        ? {
            ...base,
            setupRequest: (request) => {
              const variation = vary(next())
              if (variation.last && !ranOut) {
                ranOut = true
                setImmediate(() => instance.stop())
              }
              return {
                ...request,
                path: variation.path ?? request.path,
                headers: { ...request.headers, ...variation.headers },
                body: variation.body ?? request.body,
              }
            },
          }
        : base,
    ],
  })
  // Each 2xx answer's time, as autocannon's own latency histogram counts them, but not truncated.
  const latencies: number[] = []
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime)
  })
  return {
    stop: () => instance.stop(),
    done: Promise.resolve(instance).then((result) => ({ result, ranOut, latencies })),
  }
}

const drive = async (target: Target, seconds: number, next: () => number) =>
  start(await loadAutocannon(), target, seconds, next).done

/** Each path's request counter, kept across its warm-ups and its run, so a rotating path never repeats itself. */
const counters = new WeakMap<Target, number>()
const counterOf = (target: Target) => () => {
  const n = counters.get(target) ?? 0
  counters.set(target, n + 1)
  return n
}

/** Load without measuring: after start-up the first seconds of any path are much slower (JIT, Next's route modules). */
export const warm = async (target: Target, seconds: number): Promise<void> => {
  await drive(target, seconds, counterOf(target))
}

const measured = (
  target: Target,
  { result, ranOut, latencies }: { result: Result; ranOut: boolean; latencies: number[] },
): Measured => {
  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]),
  )
  const sorted = Float64Array.from(latencies).sort()
  const hundredth = (value: number) => Math.round(value * 100) / 100
  return {
    name: target.name,
    requestsPerSecond: result.requests.total / result.duration,
    p50: hundredth(percentile(sorted, 50)),
    p99: hundredth(percentile(sorted, 99)),
    completed: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    statuses,
    seconds: result.duration,
    ranOut,
  }
}

/** `seconds` measured after the usual warm-up (WARMUP_SECONDS). */
export const measure = async (target: Target, seconds = SETTINGS.seconds): Promise<Measured> => {
  await warm(target, WARMUP_SECONDS)
  return measured(target, await drive(target, seconds, counterOf(target)))
}

/**
 * Load that runs until `stop` (at most `maxSeconds`), measured from its first request: for a path
 * loaded while something else happens (the home page during launch day's burst).
 */
export const loadUntilStopped = (target: Target, maxSeconds: number): { stop: () => Promise<Measured> } => {
  const next = counterOf(target)
  const running = loadAutocannon().then((autocannon) => start(autocannon, target, maxSeconds, next))
  return {
    stop: async () => {
      const load = await running
      load.stop()
      return measured(target, await load.done)
    },
  }
}
