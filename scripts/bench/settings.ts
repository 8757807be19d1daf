/**
 * What the bench's processes agree on: ports, the stand-ins' credentials and prices. Read from the
 * environment once, so the driver and the stand-ins process (started with the same environment) match.
 */
import { DEFAULT_PRICES } from '@starter-kit/standins/processor'

const intFrom = (name: string, fallback: number): number => {
  const raw = process.env[name]?.trim()
  if (!raw) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`)
  return value
}

const priceId = (suffix: string): string => {
  const price = DEFAULT_PRICES.find((candidate) => candidate.id.endsWith(suffix))
  if (!price) throw new Error(`the processor stand-in has no *${suffix} price`)
  return price.id
}

/** BENCH_PORT is the server's; the stand-ins take the four ports after it. */
const base = intFrom('BENCH_PORT', 4150)

export const PORTS = {
  server: base,
  processor: base + 1,
  codeHost: base + 2,
  smtp: base + 3,
  control: base + 4,
}

export const PROCESSOR = {
  secretKey: 'sk_test_bench_0123456789',
  publishableKey: 'pk_test_bench_0123456789',
  webhookSecret: 'whsec_bench_0123456789',
}

export const CODE_HOST = { token: 'ghp_bench_0123456789', owner: 'kit-org', repo: 'starter-kit' }

export const PRICES = {
  standardLifetime: priceId('standard_lifetime'),
  ultimateLifetime: priceId('ultimate_lifetime'),
  proMonthly: priceId('pro_monthly'),
  proYearly: priceId('pro_yearly'),
}

export const SETTINGS = {
  /** Seconds per path (BENCH_SECONDS). */
  seconds: intFrom('BENCH_SECONDS', 10),
  connections: intFrom('BENCH_CONNECTIONS', 16),
  /** Seconds of unmeasured load on every path before the first run (BENCH_WARMUP_SECONDS). */
  firstWarmupSeconds: intFrom('BENCH_WARMUP_SECONDS', 5),
  /** Prepared checkout.session.completed events; default: enough for twice the floor's rate. */
  events: process.env.BENCH_EVENTS ? intFrom('BENCH_EVENTS', 1) : null,
  databaseUrl: process.env.BENCH_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/kit_bench',
  /** BENCH_BUILD=1 builds even when .next holds a production build. */
  forceBuild: process.env.BENCH_BUILD === '1',
}

/** What a browser sends for a page that matters to the server: it accepts a compressed answer. */
export const BROWSER_HEADERS = { 'accept-encoding': 'gzip, deflate, br' }

/** Launch day (scripts/bench/launch.ts): a burst of purchases while visitors load the home page. */
export const LAUNCH = {
  /** Unique paid checkouts delivered in the burst (BENCH_LAUNCH_PURCHASES). */
  purchases: intFrom('BENCH_LAUNCH_PURCHASES', 300),
  /** Deliveries in flight at once. */
  deliveryWidth: 8,
  /** Visitors loading the home page, during the burst and alone before it. */
  visitors: 8,
  /** Seconds of the home page alone (after a warm-up), for its p50 (BENCH_LAUNCH_ALONE_SECONDS). */
  aloneSeconds: intFrom('BENCH_LAUNCH_ALONE_SECONDS', 10),
  /** Targets (issue 26; the p99 over p50 from issue 42). */
  emailDeadlineSeconds: 120,
  maxP99OverAloneP50: 3,
  /** How long the bench waits for the license emails before it reports them missing. */
  emailWaitSeconds: intFrom('BENCH_LAUNCH_EMAIL_WAIT_SECONDS', 300),
}

/** Lighthouse (scripts/bench/lighthouse.ts): the public pages on the mobile and desktop presets, the server idle. */
export const LIGHTHOUSE = {
  chromiumPath: process.env.CHROMIUM_PATH?.trim() || '/usr/bin/chromium',
  /** Runs per page; the run with the median performance score is reported (BENCH_LIGHTHOUSE_RUNS). */
  runs: intFrom('BENCH_LIGHTHOUSE_RUNS', 5),
  /** Where each page's HTML and JSON reports are kept (BENCH_LIGHTHOUSE_DIR). */
  reportDir: process.env.BENCH_LIGHTHOUSE_DIR?.trim() || '.data/bench-lighthouse',
  /** Runs per page on the desktop preset (BENCH_LIGHTHOUSE_DESKTOP_RUNS). */
  desktopRuns: intFrom('BENCH_LIGHTHOUSE_DESKTOP_RUNS', 3),
  /**
   * Targets (issue 42): on the mobile preset performance at least 97 with Total Blocking Time at most
   * 150 ms, the other three categories 100; on the desktop preset 100 in all four.
   */
  mobilePerformance: 97,
  maxTbtMs: 150,
  otherCategories: 100,
  desktopScore: 100,
}

/** The bench's own processes: where the driver reaches the stand-ins' control server. */
export const controlUrl = `http://127.0.0.1:${PORTS.control}`
export const serverUrl = `http://127.0.0.1:${PORTS.server}`
