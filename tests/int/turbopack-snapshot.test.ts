import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
/** Next's Turbopack for this machine's platform (the one CI and the bench run on). */
const binary = path.join(root, 'node_modules/@next/swc-linux-x64-gnu/next-swc.linux-x64-gnu.node')
const VARIABLE = 'TURBO_ENGINE_SNAPSHOT_IDLE_TIMEOUT_MILLIS'

/**
 * `npm run dev` delays Turbopack's cache snapshots with an environment variable Turbopack reads but does
 * not document (docs/PATCHES.md, `turbopack-snapshot-delay`). A Next upgrade that drops or renames it
 * makes the setting silently moot: this notices.
 */
describe("Turbopack's snapshot delay", () => {
  it.runIf(fs.existsSync(binary))(`is a variable Turbopack reads (${VARIABLE})`, () => {
    expect(fs.readFileSync(binary).includes(VARIABLE)).toBe(true)
  })

  it('is set by server.ts in development only, and not over a value given to it', () => {
    const source = fs.readFileSync(path.join(root, 'server.ts'), 'utf8')
    expect(source).toMatch(new RegExp(`if \\(dev\\) \\{[^}]*process\\.env\\.${VARIABLE} \\?\\?= '\\d+'`))
  })
})
