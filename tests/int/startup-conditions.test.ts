/**
 * Lexical's default Node entries (`dist/*.node.mjs`) pick their build with a top-level `await import()`,
 * and Node 20's ESM loader can deadlock on a graph of them: the process exits 13 with nothing printed.
 * Every entry point therefore runs Node with `--conditions=production|development`, which resolves
 * Lexical's builds directly. These are the cheap guards; `scripts/prove-startup.ts` is the full proof.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'

import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../..')

type Exports = Record<string, { import?: Record<string, unknown> } | string>

/** Every `lexical` and `@lexical/*` specifier whose import entry has a `node` (top-level await) variant. */
const lexicalSpecifiers = (): string[] => {
  const packages = [
    'lexical',
    ...fs.readdirSync(path.join(root, 'node_modules/@lexical')).map((name) => `@lexical/${name}`),
  ]
  return packages.flatMap((name) => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
      exports?: Exports
    }
    return Object.entries(manifest.exports ?? {})
      .filter(
        ([subpath, entry]) =>
          !subpath.includes('*') && typeof entry === 'object' && entry.import && 'node' in entry.import,
      )
      .map(([subpath]) => (subpath === '.' ? name : `${name}/${subpath.slice(2)}`))
  })
}

/** Where Node's ESM resolver sends each specifier under these flags (resolved from the project root). */
const resolveAll = async (flags: string[], specifiers: string[]): Promise<string[]> => {
  const code = `for (const s of ${JSON.stringify(specifiers)}) console.log(import.meta.resolve(s))`
  const { stdout } = await run(process.execPath, [...flags, '--input-type=module', '-e', code], { cwd: root })
  return stdout.trim().split('\n')
}

describe('Lexical under --conditions', () => {
  const specifiers = lexicalSpecifiers()

  it('finds the entries that choose their build with a top-level await', () => {
    expect(specifiers.length).toBeGreaterThan(20)
    expect(specifiers).toContain('lexical')
    expect(fs.readFileSync(path.join(root, 'node_modules/lexical/dist/Lexical.node.mjs'), 'utf8')).toMatch(
      /^const mod = await /m,
    )
  })

  it('without a condition, Node picks those entries', async () => {
    const resolved = await resolveAll([], specifiers)
    expect(resolved.every((file) => file.endsWith('.node.mjs'))).toBe(true)
  })

  it.each([
    ['production', '.prod.mjs'],
    ['development', '.dev.mjs'],
  ])(
    'with --conditions=%s, every entry resolves to its %s build, which has no top-level await',
    async (condition, suffix) => {
      const resolved = await resolveAll([`--conditions=${condition}`], specifiers)
      expect(resolved).toHaveLength(specifiers.length)
      for (const file of resolved) {
        expect(file).toMatch(new RegExp(`${suffix.replace('.', '\\.')}$`))
        expect(fs.readFileSync(new URL(file), 'utf8')).not.toMatch(/^const mod = await /m)
      }
    },
  )

  it('node --conditions=production --import tsx imports @payloadcms/richtext-lexical 20 times, exit 0 each time', async () => {
    const code = "import('@payloadcms/richtext-lexical').then((m) => console.log('loaded', typeof m.lexicalEditor))"
    const once = async () => {
      try {
        const { stdout } = await run(process.execPath, ['--conditions=production', '--import', 'tsx', '--eval', code], {
          cwd: root,
          timeout: 60_000,
        })
        return { code: 0, stdout: stdout.trim() }
      } catch (error) {
        const failed = error as { code?: number | string; signal?: string; stdout?: string }
        return { code: failed.code ?? failed.signal ?? 'unknown', stdout: failed.stdout ?? '' }
      }
    }
    const results: { code: number | string; stdout: string }[] = []
    // Two at a time: the machine has two cores.
    for (let round = 0; round < 10; round += 1) results.push(...(await Promise.all([once(), once()])))
    expect(results.map((result) => result.code)).toEqual(Array(20).fill(0))
    expect(results.every((result) => result.stdout === 'loaded function')).toBe(true)
  }, 240_000)
})

describe('entry points', () => {
  const scripts = (
    JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts

  // Node itself with tsx's loader, not the tsx command: its parent process relays SIGTERM and, when the
  // server does not acknowledge it within 30 ms (a busy start-up on two cores), kills it (exit 143).
  it.each(['dev', 'migrate:dev', 'bench'])('npm run %s runs node --conditions with the tsx loader', (name) => {
    expect(scripts[name]).toMatch(/\bnode --conditions=(production|development) --import tsx /)
  })

  // The production scripts run what `npm run build` compiled ahead, like the server: no loader, no TypeScript.
  it.each([
    ['jobs', 'jobs'],
    ['migrate', 'migrate'],
    ['seed', 'seed'],
    ['content:import', 'content-import'],
  ])('npm run %s runs the built dist/scripts/%s.mjs with --conditions=production', (name, file) => {
    expect(scripts[name]).toMatch(new RegExp(`\\bnode --conditions=production dist/scripts/${file}\\.mjs$`))
    expect(scripts[name]).not.toContain('tsx')
  })

  // Production runs server.ts compiled ahead by `npm run build` (no TypeScript compiled at run time, no
  // loader thread); the child that prepares the database gets tsx's loader from src/process/child.ts.
  it('npm start runs the built server with --conditions=production, and npm run build builds it', () => {
    // The heap flags after it are checked in start-command.test.ts.
    expect(scripts.start).toMatch(/\bnode --conditions=production( --[\w-]+=\w+)* dist\/server\/server\.mjs$/)
    expect(scripts.start).toMatch(/^NODE_ENV=production MALLOC_ARENA_MAX=2 exec node /)
    expect(scripts.build).toContain('npm run build:server')
    expect(scripts['build:server']).toBe('node scripts/build-server.mjs')
  })

  it.each(['tests/int/production-start.test.ts'])('%s starts server.ts with --conditions', (file) => {
    expect(fs.readFileSync(path.join(root, file), 'utf8')).toMatch(/--conditions=(production|development)/)
  })

  // These start the built server with npm start's own flags (its --conditions among them) and variables.
  it.each([
    'scripts/smoke.sh',
    'tests/e2e/global-setup.ts',
    'tests/support/production-server.ts',
    'scripts/bench/processes.ts',
  ])("%s starts the built server with startNodeArgs and npm start's variables", (file) => {
    const source = fs.readFileSync(path.join(root, file), 'utf8')
    expect(source).toMatch(/startNodeArgs\((root|ROOT|'\.')\)/)
    expect(source).toMatch(/startEnv\((root|ROOT), |startCommand\('\.'\)\.env/)
  })
})
