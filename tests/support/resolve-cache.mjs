/**
 * Loaded into each test worker (`execArgv` in vitest.config.ts): a cache in front of Node's module resolution.
 *
 * Node 24 works out the format of every `.js` file it resolves from the nearest package.json, and in doing so
 * parses that package's whole `exports` map again, each time (nodejs/node#58126). drizzle-orm's and date-fns's
 * maps are about 200 KB each and the config loads hundreds of their files: about a second of every test file's
 * start. Here a relative `.js`, `.mjs` or `.cjs` import is resolved once per target file, its format read from a
 * package.json type cached per folder; a bare specifier is resolved once per importing folder. Anything
 * else, and anything that fails, goes to Node's own resolution, which then gives its own error.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs'
import { registerHooks } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const resolved = new Map()
const packageTypes = new Map()

/** The `type` of the package.json nearest to `directory`: 'module', 'commonjs', or null when none says. */
const packageType = (directory) => {
  const known = packageTypes.get(directory)
  if (known !== undefined) return known
  const type = readPackageType(directory)
  packageTypes.set(directory, type)
  return type
}

const readPackageType = (directory) => {
  let manifest
  try {
    manifest = readFileSync(path.join(directory, 'package.json'), 'utf8')
  } catch {
    const parent = path.dirname(directory)
    return parent === directory || path.basename(directory) === 'node_modules' ? null : packageType(parent)
  }
  try {
    const { type } = JSON.parse(manifest)
    return type === 'module' || type === 'commonjs' ? type : null
  } catch {
    return null
  }
}

/** A relative import of a script file, resolved as Node would, or null to let Node do it. */
const resolveScript = (url) => {
  if (url.search || url.hash) return null
  const extension = path.extname(url.pathname)
  if (extension !== '.js' && extension !== '.mjs' && extension !== '.cjs') return null
  let real
  try {
    const file = fileURLToPath(url)
    if (!statSync(file).isFile()) return null
    real = realpathSync(file)
  } catch {
    return null
  }
  const format = extension === '.mjs' ? 'module' : extension === '.cjs' ? 'commonjs' : packageType(path.dirname(real))
  if (format === null) return null
  return { url: pathToFileURL(real).href, format, shortCircuit: true }
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL
    const isImport = context.conditions?.includes('import') ?? false
    if (!parent?.startsWith('file:')) return nextResolve(specifier, context)
    const isRelative = specifier.startsWith('./') || specifier.startsWith('../')
    const isBare = !isRelative && !specifier.startsWith('/') && !/^[a-z][a-z0-9+.-]*:/i.test(specifier)
    if (!isRelative && !isBare) return nextResolve(specifier, context)
    const where = isRelative
      ? new URL(specifier, parent).href
      : `${specifier}\0${parent.slice(0, parent.lastIndexOf('/'))}`
    const key = `${where}\0${context.conditions?.join(',')}\0${JSON.stringify(context.importAttributes ?? {})}`
    const hit = resolved.get(key)
    if (hit) return hit
    const answer =
      (isRelative && isImport && resolveScript(new URL(specifier, parent))) || nextResolve(specifier, context)
    resolved.set(key, { ...answer, shortCircuit: true })
    return answer
  },
})
