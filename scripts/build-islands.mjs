// The public pages' one script (docs/PUBLIC_PAGES.md): src/app/(frontend)/_islands/ bundled for the
// browser. `npm run build:server` writes it to dist/islands/islands.js for production; the development
// server builds it in memory when it starts (server.ts).
import fs from 'node:fs'
import path from 'node:path'

import { build } from 'esbuild'

const ISLANDS_FILE = 'dist/islands/islands.js'

/** The bundle's bytes; written to ISLANDS_FILE (under `root`) when `write` is set. */
export const buildIslands = async (root, { write = false } = {}) => {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['src/app/(frontend)/_islands/index.ts'],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
  })
  const code = Buffer.from(result.outputFiles[0].contents)
  if (write) {
    fs.mkdirSync(path.join(root, path.dirname(ISLANDS_FILE)), { recursive: true })
    fs.writeFileSync(path.join(root, ISLANDS_FILE), code)
  }
  return code
}
