import { describeImport, importContent } from '../src/content/import'
import { withBootstrapLock } from '../src/db/bootstrap'
import { withPayload } from './with-payload'

/**
 * `npm run content:import`: import src/content/{blog,changelog}/*.mdx into the CMS (the server
 * does this at start-up too). `-- --check` writes nothing and reports what an import would do.
 * Exits 1 when a source is invalid (each problem with its file and line).
 */
const check = process.argv.includes('--check')
try {
  await withPayload(async (payload, env) => {
    const report = await withBootstrapLock(payload, () => importContent(payload, { root: env.contentDir, check }))
    for (const line of describeImport(report)) console.info(line)
  })
} catch (error) {
  console.error((error as Error).message)
  process.exitCode = 1
}
