/**
 * What `npm start` runs, read from package.json so that everything else that starts the built server
 * (the production-build tests, the browser scenarios, the bench, scripts/smoke.sh) runs it with the same
 * Node flags and variables: the heap and malloc settings there are part of the production configuration
 * (docs/PERFORMANCE.md, "Memory"), and a test or a benchmark without them would measure another server.
 */
import fs from 'node:fs'
import path from 'node:path'

/** The server `npm run build` compiles ahead and `npm start` runs. */
export const BUILT_SERVER = 'dist/server/server.mjs'

export type StartCommand = {
  /** The variables `npm start` sets for the server, e.g. `{ NODE_ENV: 'production', MALLOC_ARENA_MAX: '2' }`. */
  env: Record<string, string>
  /** The arguments it gives `node` before the script, e.g. `['--conditions=production', '--max-semi-space-size=8', ...]`. */
  nodeArgs: string[]
}

/**
 * What `npm start` runs, parsed from package.json. Throws when the start script no longer has the shape
 * `NAME=value ... exec node <--flags> dist/server/server.mjs`, so a change there cannot silently drop a
 * setting elsewhere.
 */
export const startCommand = (root: string): StartCommand => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>
  }
  const script = manifest.scripts?.start ?? ''
  const words = script.trim().split(/\s+/)
  const node = words.indexOf('node')
  const server = words.indexOf(BUILT_SERVER)
  const nodeArgs = node >= 0 && server > node ? words.slice(node + 1, server) : null
  const assignments = node >= 0 ? words.slice(0, node).filter((word) => word !== 'exec') : null
  if (
    !nodeArgs ||
    nodeArgs.some((word) => !word.startsWith('--')) ||
    !assignments ||
    assignments.some((word) => !/^[A-Z_][A-Z0-9_]*=\S+$/.test(word))
  ) {
    throw new Error(
      `package.json's start script is not "NAME=value … exec node <--flags> ${BUILT_SERVER}": ${JSON.stringify(script)}`,
    )
  }
  const env = Object.fromEntries(
    assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  )
  return { env, nodeArgs }
}

/** `npm start`'s Node flags (see `startCommand`). */
export const startNodeArgs = (root: string): string[] => startCommand(root).nodeArgs

/**
 * The environment of a built server started as `npm start` starts it: `env` with the start script's
 * own variables over it (the script sets them whatever the caller's environment says).
 */
export const startEnv = (root: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...env,
  ...startCommand(root).env,
})
