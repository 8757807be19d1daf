/**
 * The bench's results as a Markdown table with the run's context (command, date, commit, build,
 * machine), printed and written below the hand-written header of docs/PERFORMANCE.md.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { type Measured, ms } from './load'
import { ROOT } from './processes'

export type Row = Measured & { rssMiB: number; ratio: number }

/** One target of the issues the bench answers to: what it asks, what this run measured, whether it holds (null: not measured). */
export type Check = { target: string; measured: string; met: boolean | null }

export const checkLine = (check: Check): string =>
  `${check.met === null ? 'NOT MEASURED' : check.met ? 'MET' : 'NOT MET'}: ${check.target}: ${check.measured}`

/** A titled part of the generated text below the main table (launch day, Lighthouse): its Markdown lines. */
export type Section = { title: string; lines: string[] }

export type Context = {
  command: string
  date: Date
  build: string
  postgres: string
  settings: string
  loadBefore: number[]
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

const commit = (): string => {
  try {
    const dirty = git('status', '--porcelain', '--untracked-files=no') !== ''
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' (with uncommitted changes in the working tree)' : ''}`
  } catch {
    return 'unknown (not a git checkout)'
  }
}

const machine = (postgres: string): string => {
  const model =
    /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ??
    os.cpus()[0]?.model ??
    'unknown CPU'
  const memory = (os.totalmem() / 1024 ** 3).toFixed(1)
  return `${model}, ${os.cpus().length} cores, ${memory} GiB memory; Node ${process.version}; PostgreSQL ${postgres}`
}

const fixed = (value: number, digits = 0) => value.toFixed(digits)

export const table = (rows: Row[]): string => {
  const lines = [
    '| path | req/s | p50 (ms) | p99 (ms) | non-2xx | ratio to floor | server RSS max (MiB) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows) {
    const failed = row.non2xx + row.errors
    lines.push(
      `| ${row.name} | ${fixed(row.requestsPerSecond)} | ${ms(row.p50)} | ${ms(row.p99)} | ${failed} | ${fixed(row.ratio, 2)} | ${fixed(row.rssMiB)} |`,
    )
  }
  return lines.join('\n')
}

/** Status codes of the paths that had failures, and paths that ran out of prepared requests. */
export const notes = (rows: Row[]): string[] => {
  const lines: string[] = []
  for (const row of rows) {
    if (row.non2xx + row.errors > 0) {
      const statuses = Object.entries(row.statuses)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', ')
      lines.push(`${row.name}: statuses ${statuses}; ${row.errors} without an answer (errors, timeouts)`)
    }
    if (row.ranOut) lines.push(`${row.name}: ran out of prepared events after ${row.seconds} s (raise BENCH_EVENTS)`)
  }
  return lines
}

const GENERATED_MARKER = '<!-- Everything below this line is written by `npm run bench`. -->'

export const render = (rows: Row[], extra: string[], context: Context, sections: Section[] = []): string =>
  [
    `Command: \`${context.command}\``,
    '',
    `Date: ${context.date.toISOString()}; commit ${commit()}; ${context.build}.`,
    '',
    `Machine: ${machine(context.postgres)}; load average before the run ${context.loadBefore.map((value) => value.toFixed(2)).join(', ')}.`,
    '',
    `Settings: ${context.settings}.`,
    '',
    table(rows),
    '',
    ...extra.map((line) => `- ${line}`),
    '',
    ...sections.flatMap((section) => [`### ${section.title}`, '', ...section.lines, '']),
  ].join('\n')

/** Replaces what follows the marker in docs/PERFORMANCE.md (the header above it is kept). */
export const writePerformance = (generated: string): string => {
  const file = path.join(ROOT, 'docs/PERFORMANCE.md')
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : `# Performance\n\n${GENERATED_MARKER}\n`
  const at = existing.indexOf(GENERATED_MARKER)
  const header =
    at === -1 ? `${existing.trimEnd()}\n\n${GENERATED_MARKER}` : existing.slice(0, at + GENERATED_MARKER.length)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, `${header}\n\n${generated}`)
  return file
}
