/**
 * Lighthouse (issues 26 and 42): the public pages on Lighthouse's default config (the mobile preset: a
 * mid-range phone's screen, simulated slow 4G and a 4x slower CPU) and on its desktop preset, in
 * Debian's headless Chromium, one page at a time against the otherwise idle production server. Records
 * the four category scores, the largest contentful paint, the Total Blocking Time, the bytes transferred
 * and the unused JavaScript, and names the audits that keep a category under the target. Each page's
 * HTML and JSON reports stay in LIGHTHOUSE.reportDir.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { ROOT } from './processes'
import type { Check } from './report'
import { LIGHTHOUSE } from './settings'
import {
  type LaunchedChrome,
  loadChromeLauncher,
  loadLighthouse,
  loadLighthouseDesktopConfig,
  type LighthouseResult,
} from './tools'

type Log = (line: string) => void

const CATEGORIES = [
  { id: 'performance', title: 'performance' },
  { id: 'accessibility', title: 'accessibility' },
  { id: 'best-practices', title: 'best practices' },
  { id: 'seo', title: 'SEO' },
] as const

/** Lighthouse's two presets: its default (a phone) and desktop. */
export type Preset = 'mobile' | 'desktop'

/** The least score a category must reach on a preset (issue 42). */
const targetOf = (preset: Preset, categoryId: string): number =>
  preset === 'desktop'
    ? LIGHTHOUSE.desktopScore
    : categoryId === 'performance'
      ? LIGHTHOUSE.mobilePerformance
      : LIGHTHOUSE.otherCategories

export type PageScore = {
  path: string
  preset: Preset
  /** The page's HTTP status when the bench warmed it. */
  status: number
  /** 0-100 per category id; null when Lighthouse could not score it. */
  scores: Record<string, number | null>
  lcpMs: number | null
  tbtMs: number | null
  totalBytes: number | null
  unusedJsBytes: number | null
  /** Per category under the target: the audits that cost it points, worst first. */
  failing: { category: string; audits: string[] }[]
  runtimeError: string | null
  /** Audits Lighthouse could not run (none of them may weigh in a score: see `failing`). */
  errored: { ids: string[]; messages: string[] }
  warnings: string[]
  benchmarkIndex: number | null
  /** The performance scores of every run, when there were several. */
  performanceRuns: number[]
  /** Lighthouse's HTML and JSON reports of this run. */
  report: { html: string; json: string }
}

const SKIPPED_MODES = new Set(['notApplicable', 'informative', 'manual', 'error'])

/** What an audit's savings are worth to the metrics (ms of LCP, FCP and TBT, and CLS x 1000), for ordering. */
const savingsOf = (audit: LighthouseResult['audits'][string]): number => {
  const savings = audit.metricSavings ?? {}
  return (savings.LCP ?? 0) + (savings.FCP ?? 0) + (savings.TBT ?? 0) + (savings.CLS ?? 0) * 1000
}

/**
 * The audits that keep `categoryId` down: the scored ones by the points they cost, then the unscored
 * ones (performance's opportunities and diagnostics) that fail, by their estimated savings. Audits
 * Lighthouse could not run are listed apart (`erroredAudits`).
 */
const failingAudits = (lhr: LighthouseResult, categoryId: string): string[] => {
  const category = lhr.categories[categoryId]
  if (!category) return []
  const described = (id: string) => {
    const audit = lhr.audits[id]
    if (!audit) return id
    if (audit.scoreDisplayMode === 'error') return `${id} (could not run: ${audit.errorMessage ?? 'unknown error'})`
    const score = audit.score === null ? '' : `score ${Math.round(audit.score * 100)}`
    return `${id} (${[score, audit.displayValue].filter(Boolean).join(', ')})`
  }
  const weighted: { id: string; lost: number }[] = []
  const unweighted: { id: string; savings: number; score: number }[] = []
  for (const ref of category.auditRefs) {
    const audit = lhr.audits[ref.id]
    if (audit?.scoreDisplayMode === 'error' && ref.weight > 0) {
      weighted.push({ id: ref.id, lost: ref.weight })
      continue
    }
    if (!audit || SKIPPED_MODES.has(audit.scoreDisplayMode) || audit.score === null || audit.score >= 1) continue
    if (ref.weight > 0) weighted.push({ id: ref.id, lost: ref.weight * (1 - audit.score) })
    else if (audit.score < 0.9) unweighted.push({ id: ref.id, savings: savingsOf(audit), score: audit.score })
  }
  return [
    ...weighted.sort((a, b) => b.lost - a.lost).map(({ id }) => described(id)),
    ...unweighted.sort((a, b) => b.savings - a.savings || a.score - b.score).map(({ id }) => described(id)),
  ].slice(0, 10)
}

/** Audits Lighthouse could not run on the page (their ids, and each distinct error once). */
const erroredAudits = (lhr: LighthouseResult): { ids: string[]; messages: string[] } => {
  const errored = Object.values(lhr.audits).filter((audit) => audit.scoreDisplayMode === 'error')
  return {
    ids: errored.map((audit) => audit.id),
    messages: [...new Set(errored.map((audit) => audit.errorMessage ?? 'unknown error'))],
  }
}

const numeric = (lhr: LighthouseResult, id: string): number | null => lhr.audits[id]?.numericValue ?? null

const unusedJavaScript = (lhr: LighthouseResult): number | null => {
  const audit = lhr.audits['unused-javascript']
  if (!audit) return null
  const details = audit.details as { overallSavingsBytes?: number } | undefined
  return details?.overallSavingsBytes ?? (audit.scoreDisplayMode === 'notApplicable' ? 0 : null)
}

const fileName = (pagePath: string, preset: Preset) =>
  `${pagePath === '/' ? 'home' : pagePath.replace(/^\//, '').replace(/[^A-Za-z0-9_-]+/g, '_')}${preset === 'desktop' ? '.desktop' : ''}`

/** A page's score from one Lighthouse result. */
const scoreOf = (
  pagePath: string,
  preset: Preset,
  status: number,
  lhr: LighthouseResult,
  report: PageScore['report'],
): PageScore => {
  const scores: Record<string, number | null> = {}
  for (const { id } of CATEGORIES) {
    const score = lhr.categories[id]?.score
    scores[id] = score === null || score === undefined ? null : Math.round(score * 100)
  }
  return {
    path: pagePath,
    preset,
    status,
    scores,
    lcpMs: numeric(lhr, 'largest-contentful-paint'),
    tbtMs: numeric(lhr, 'total-blocking-time'),
    totalBytes: numeric(lhr, 'total-byte-weight'),
    unusedJsBytes: unusedJavaScript(lhr),
    failing: CATEGORIES.filter(({ id }) => (scores[id] ?? 0) < targetOf(preset, id)).map(({ id, title }) => ({
      category: title,
      audits: failingAudits(lhr, id),
    })),
    runtimeError: lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : null,
    errored: erroredAudits(lhr),
    warnings: lhr.runWarnings,
    benchmarkIndex: lhr.environment.benchmarkIndex ?? null,
    performanceRuns: [],
    report,
  }
}

/** Three plain requests per page, so Lighthouse sees each page as a visitor after the first would (rendered, cached). */
const warmPage = async (url: string): Promise<number> => {
  let status = 0
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const response = await fetch(url, { redirect: 'manual' })
    await response.arrayBuffer()
    status = response.status
  }
  return status
}

class ChromiumError extends Error {}

export type LighthouseOutcome = {
  pages: PageScore[]
  chromium: string
  error: string | null
  seconds: number
  loadBefore: number[]
}

/**
 * Lighthouse on each of `pages` (paths) under `baseUrl`, one at a time: LIGHTHOUSE.runs runs each on the
 * mobile preset, then LIGHTHOUSE.desktopRuns on the desktop preset (on each, the run with the median
 * performance score is kept), each in a fresh Chromium. Returns an error instead of throwing when
 * Chromium cannot be started, so the load figures of the run are still written.
 */
export const runLighthouse = async (baseUrl: string, pages: string[], log: Log): Promise<LighthouseOutcome> => {
  const started = Date.now()
  const loadBefore = os.loadavg()
  const chromePath = LIGHTHOUSE.chromiumPath
  if (!fs.existsSync(chromePath)) {
    const error = `no Chromium at ${chromePath} (apt-get install -y chromium, or set CHROMIUM_PATH)`
    log(`Lighthouse skipped: ${error}`)
    return { pages: [], chromium: 'none', error, seconds: 0, loadBefore }
  }
  const reportDir = path.resolve(ROOT, LIGHTHOUSE.reportDir)
  fs.mkdirSync(reportDir, { recursive: true })
  const chromeLauncher = await loadChromeLauncher()
  const lighthouse = await loadLighthouse()
  const desktopConfig = await loadLighthouseDesktopConfig()
  const results: PageScore[] = []
  let version = chromePath
  /** One Lighthouse run in a Chromium of its own, as Lighthouse's CLI runs: no run inherits another's compiled code. */
  const runOnce = async (url: string, preset: Preset) => {
    let chrome: LaunchedChrome
    try {
      chrome = await chromeLauncher.launch({
        chromePath,
        // Root cannot use Chromium's sandbox; a container's /dev/shm may be small.
        chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
        handleSIGINT: false,
        logLevel: 'error',
      })
    } catch (error) {
      throw new ChromiumError(
        `Chromium (${chromePath}) did not start: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
    try {
      if (version === chromePath) {
        const answer = (await (await fetch(`http://127.0.0.1:${chrome.port}/json/version`)).json()) as {
          Browser?: string
        }
        version = `${answer.Browser ?? 'Chromium'} (${chromePath})`
      }
      const result = await lighthouse(
        url,
        { port: chrome.port, output: ['html', 'json'], logLevel: 'error' },
        preset === 'desktop' ? desktopConfig : undefined,
      )
      if (!result) throw new Error(`Lighthouse returned nothing for ${url}`)
      return result
    } finally {
      chrome.kill()
    }
  }
  try {
    for (const pagePath of pages) {
      const url = `${baseUrl}${pagePath}`
      const status = await warmPage(url)
      for (const [preset, count] of [
        ['mobile', LIGHTHOUSE.runs],
        ['desktop', LIGHTHOUSE.desktopRuns],
      ] as const) {
        const runs: PageScore[] = []
        for (let run = 0; run < count; run += 1) {
          const result = await runOnce(url, preset)
          const [html, json] = result.report as string[]
          runs.push(scoreOf(pagePath, preset, status, result.lhr, { html: html ?? '', json: json ?? '' }))
        }
        const sorted = [...runs].sort((a, b) => (a.scores.performance ?? -1) - (b.scores.performance ?? -1))
        const median = {
          ...(sorted[Math.floor((sorted.length - 1) / 2)] as PageScore),
          performanceRuns: runs.map((run) => run.scores.performance ?? -1),
        }
        fs.writeFileSync(path.join(reportDir, `${fileName(pagePath, preset)}.report.html`), median.report.html)
        fs.writeFileSync(path.join(reportDir, `${fileName(pagePath, preset)}.report.json`), median.report.json)
        results.push(median)
        const scoreText = CATEGORIES.map(({ id, title }) => `${title} ${median.scores[id] ?? '-'}`).join(', ')
        const spread = runs.length > 1 ? ` (performance over the runs: ${median.performanceRuns.join(', ')})` : ''
        log(
          `  ${pagePath} (${preset}): ${scoreText}; LCP ${median.lcpMs === null ? '-' : `${(median.lcpMs / 1000).toFixed(2)} s`}, TBT ${median.tbtMs === null ? '-' : `${median.tbtMs.toFixed(0)} ms`}${spread}`,
        )
      }
    }
  } catch (error) {
    if (!(error instanceof ChromiumError)) throw error
    log(`Lighthouse stopped: ${error.message}`)
    return {
      pages: results,
      chromium: chromePath,
      error: error.message,
      seconds: (Date.now() - started) / 1000,
      loadBefore,
    }
  }
  return { pages: results, chromium: version, error: null, seconds: (Date.now() - started) / 1000, loadBefore }
}

const kib = (bytes: number | null) => (bytes === null ? '-' : (bytes / 1024).toFixed(0))

/** One preset's table; a score under its target, or a TBT over its limit on a phone, in bold. */
export const lighthouseTable = (pages: PageScore[], preset: Preset): string => {
  const lines = [
    `| page | ${CATEGORIES.map(({ title }) => title).join(' | ')} | LCP (s) | TBT (ms) | total bytes (KiB) | unused JS (KiB) |`,
    `| --- | ${CATEGORIES.map(() => '---:').join(' | ')} | ---: | ---: | ---: | ---: |`,
  ]
  for (const page of pages.filter((candidate) => candidate.preset === preset)) {
    const scores = CATEGORIES.map(({ id }) => {
      const score = page.scores[id]
      return score === null || score === undefined ? '-' : score < targetOf(preset, id) ? `**${score}**` : String(score)
    })
    const tbt =
      page.tbtMs === null
        ? '-'
        : preset === 'mobile' && page.tbtMs > LIGHTHOUSE.maxTbtMs
          ? `**${page.tbtMs.toFixed(0)}**`
          : page.tbtMs.toFixed(0)
    lines.push(
      `| \`${page.path}\` | ${scores.join(' | ')} | ${page.lcpMs === null ? '-' : (page.lcpMs / 1000).toFixed(2)} | ${tbt} | ${kib(page.totalBytes)} | ${kib(page.unusedJsBytes)} |`,
    )
  }
  return lines.join('\n')
}

/** The notes: what misses the target where, and why (the audits), and the run's conditions. */
export const lighthouseNotes = (outcome: LighthouseOutcome, serverIdle: string): string[] => {
  if (outcome.error) return [`Lighthouse did not run: ${outcome.error}.`]
  const benchmark = outcome.pages.map((page) => page.benchmarkIndex).filter((value): value is number => value !== null)
  const runs = (count: number) =>
    count === 1 ? 'one run per page' : `${count} runs per page, the one with the median performance score kept`
  const lines = [
    `Lighthouse 12.2.3 in ${outcome.chromium}, headless: its default config (the mobile preset: simulated slow 4G, 4x CPU slowdown, a 412x823 screen), ${runs(LIGHTHOUSE.runs)}, then its desktop preset, ${runs(LIGHTHOUSE.desktopRuns)}; one page at a time after three plain requests to it (rendered and cached as for any visitor after the first), each run in a Chromium of its own (as Lighthouse's CLI runs); ${serverIdle}; load average before it ${outcome.loadBefore.map((value) => value.toFixed(2)).join(', ')}; Lighthouse's CPU benchmark index ${benchmark.length > 0 ? `${Math.min(...benchmark)}-${Math.max(...benchmark)}` : 'unknown'}; ${outcome.seconds.toFixed(0)} s in all. Reports: \`${LIGHTHOUSE.reportDir}/<page>[.desktop].report.html\`.`,
  ]
  for (const page of outcome.pages) {
    const name = `\`${page.path}\` (${page.preset})`
    if (page.status !== 200) lines.push(`\`${page.path}\` answered ${page.status} before Lighthouse loaded it.`)
    if (page.runtimeError) lines.push(`${name}: Lighthouse's runtime error ${page.runtimeError}.`)
    for (const { category, audits } of page.failing) {
      const id = CATEGORIES.find((c) => c.title === category)?.id ?? ''
      lines.push(
        `${name} under ${targetOf(page.preset, id)} in ${category} (${page.scores[id] ?? '-'}): ${audits.length > 0 ? audits.join('; ') : 'no failing audit named'}.`,
      )
    }
    if (page.performanceRuns.length > 1)
      lines.push(`${name} performance over its runs: ${page.performanceRuns.join(', ')}.`)
    for (const warning of page.warnings) lines.push(`${name}: Lighthouse warned: ${warning.replace(/\s+/g, ' ')}`)
  }
  // Audits Lighthouse could not run, grouped: usually the same few on every page (a newer Chromium's trace format).
  const errored = new Map<string, string[]>()
  for (const page of outcome.pages) {
    if (page.errored.ids.length === 0) continue
    const key = `${page.errored.ids.join(', ')}: ${page.errored.messages.map((message) => message.replace(/\s+/g, ' ')).join(' / ')}`
    errored.set(key, [...(errored.get(key) ?? []), `\`${page.path}\` (${page.preset})`])
  }
  for (const [key, pages] of errored)
    lines.push(
      `Audits Lighthouse could not run on ${pages.length === outcome.pages.length ? 'every page' : pages.join(', ')} (none weighs in a score unless named above): ${key}.`,
    )
  return lines
}

/**
 * The targets (issue 42): on a phone (the mobile preset) every page's performance at least 97 with TBT at
 * most 150 ms and the other categories 100; on the desktop preset 100 in all four.
 */
export const lighthouseChecks = (outcome: LighthouseOutcome, expectedPages: string[]): Check[] => {
  const targets: Record<Preset, string> = {
    mobile: `Lighthouse (mobile): every public page's performance at least ${LIGHTHOUSE.mobilePerformance} with TBT at most ${LIGHTHOUSE.maxTbtMs} ms, the other categories ${LIGHTHOUSE.otherCategories} (${expectedPages.length} pages)`,
    desktop: `Lighthouse (desktop): every public page ${LIGHTHOUSE.desktopScore} in all four categories (${expectedPages.length} pages)`,
  }
  return (['mobile', 'desktop'] as const).map((preset) => {
    if (outcome.error) return { target: targets[preset], measured: outcome.error, met: null }
    const pages = outcome.pages.filter((page) => page.preset === preset)
    const misses = pages.flatMap((page) => [
      ...CATEGORIES.filter(({ id }) => (page.scores[id] ?? 0) < targetOf(preset, id)).map(
        ({ id, title }) => `\`${page.path}\` ${title} ${page.scores[id] ?? '-'}`,
      ),
      ...(preset === 'mobile' && (page.tbtMs === null || page.tbtMs > LIGHTHOUSE.maxTbtMs)
        ? [`\`${page.path}\` TBT ${page.tbtMs === null ? '-' : `${page.tbtMs.toFixed(0)} ms`}`]
        : []),
    ])
    const missing = expectedPages.filter((pagePath) => !pages.some((page) => page.path === pagePath))
    const worst = (values: number[]) => (values.length > 0 ? values : [0])
    const measured =
      misses.length === 0 && missing.length === 0
        ? preset === 'mobile'
          ? `all pages: performance ${Math.min(...worst(pages.map((page) => page.scores.performance ?? 0)))} or more, TBT at most ${Math.max(...worst(pages.map((page) => page.tbtMs ?? 0))).toFixed(0)} ms, the other categories ${LIGHTHOUSE.otherCategories}`
          : 'all pages, all categories'
        : [...misses, ...missing.map((pagePath) => `\`${pagePath}\` not measured`)].join(', ')
    return { target: targets[preset], measured, met: misses.length === 0 && missing.length === 0 }
  })
}
