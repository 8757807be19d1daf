// `npm run build:server`: compiles what production runs besides Next's own build, ahead of time, so
// production loads no TypeScript compiler and installs no development dependency:
// - dist/server/server.mjs, the express host (`npm start`). NODE_ENV is defined as production, so
//   esbuild drops the development-only branches and what they import: the stand-ins and the embedded
//   PostgreSQL's start-up (docs/OPERATIONS.md, "Production build").
// - dist/scripts/*.mjs, the command-line entry points (`npm run jobs`, `migrate`, `seed`,
//   `content:import`, and the start-up's database preparation). NODE_ENV stays a run-time choice there:
//   `npm run migrate` also serves development databases.
// - dist/islands/islands.js, the public pages' script (scripts/build-islands.mjs).
// Packages stay external (node_modules); the build fails when a stand-in reached any built entry point.
import fs from 'node:fs'
import path from 'node:path'

import { build } from 'esbuild'

import { buildIslands } from './build-islands.mjs'
import { STANDIN_IN_BUNDLE } from './standin-leak.mjs'

const root = path.resolve(import.meta.dirname, '..')
/** Where the output goes, relative to the project (it must stay inside it, for node_modules): `dist`, or BUILD_OUT_DIR (tests). */
const out = process.env.BUILD_OUT_DIR ?? 'dist'
export const SCRIPTS = ['jobs', 'migrate', 'seed', 'content-import', 'prepare-database']

const common = {
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  logLevel: 'warning',
  // next/cache has no "exports" map: Node's ESM resolver needs the file's name (tsx and Next add it themselves).
  alias: { 'next/cache': 'next/cache.js' },
}

for (const dir of [`${out}/server`, `${out}/scripts`]) fs.rmSync(path.join(root, dir), { recursive: true, force: true })

await Promise.all([
  build({
    ...common,
    entryPoints: ['server.ts'],
    outdir: `${out}/server`,
    define: { 'process.env.NODE_ENV': '"production"' },
  }),
  build({ ...common, entryPoints: SCRIPTS.map((name) => `scripts/${name}.ts`), outdir: `${out}/scripts` }),
  ...(out === 'dist' ? [buildIslands(root, { write: true })] : []),
])

const leaked = ['server', 'scripts'].flatMap((dir) =>
  fs
    .readdirSync(path.join(root, out, dir))
    .filter((file) => STANDIN_IN_BUNDLE.test(fs.readFileSync(path.join(root, out, dir, file), 'utf8')))
    .map((file) => `${out}/${dir}/${file}`),
)
if (leaked.length > 0) {
  console.error(`build:server: the stand-ins reached the production build (${leaked.join(', ')})`)
  process.exit(1)
}
