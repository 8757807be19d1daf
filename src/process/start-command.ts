/**
 * What `npm start` runs, read from package.json so that everything else that starts the built server
 * (the production-build tests, the browser scenarios, the bench, scripts/smoke.sh) runs it with the same
 * Node flags: the heap settings there are part of the production configuration (docs/PERFORMANCE.md,
 * "Memory"), and a test or a benchmark without them would measure another server.
 */
import fs from 'node:fs'
import path from 'node:path'

/** The server `npm run build` compiles ahead and `npm start` runs. */
export const BUILT_SERVER = 'dist/server/server.mjs'

/**
 * The arguments `npm start` gives `node` before the script, e.g. `['--conditions=production',
 * '--max-semi-space-size=8', ...]`. Throws when the start script no longer has the shape
 * `[VAR=value ...] exec node <flags> dist/server/server.mjs`, so a change there cannot silently drop
 * the flags elsewhere.
 */
export const startNodeArgs = (root: string): string[] => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
  const script = manifest.scripts?.start ?? ''
  const words = script.trim().split(/\s+/)
  const node = words.indexOf('node')
  const server = words.indexOf(BUILT_SERVER)
  const flags = node >= 0 && server > node ? words.slice(node + 1, server) : null
  if (!flags || flags.some((word) => !word.startsWith('--'))) {
    throw new Error(`package.json's start script is not "… node <--flags> ${BUILT_SERVER}": ${JSON.stringify(script)}`)
  }
  return flags
}
