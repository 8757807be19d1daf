import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { type DependencyTree, parseCircular, parseDependencyTree } from 'dpdm'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * The layers, checked on the source itself:
 *
 * - Next.js stays in src/app: server actions live beside their pages, the session helper
 *   (cookies → user) and the content cache in src/app/_lib, admin components in src/app/(payload).
 *   No other module under src/ imports `next/*`, so the capabilities run the same in Next, the express
 *   host, the jobs worker, scripts and tests. (A type-only import of `next`'s `Metadata`, as the
 *   content's SEO builders use, is erased at compile time and allowed.)
 * - No import cycle among src/**, collections, plugins and endpoints (dpdm, type-only imports
 *   skipped as `dpdm -T` does: they vanish at compile time).
 * - No cycle between the folders of src/ either (auth importing billing while billing imported auth
 *   was issue 13), type-only imports counted: a type is a dependency on its folder too. Each
 *   capability declares its own slice of config/runtime.ts (declaration merging), so config/ imports
 *   no capability; db/ is handed the content import rather than importing it.
 */

const ROOT = process.cwd()
const SOURCE = /\.(?:ts|tsx|mts|cts|js|jsx|mjs)$/

const walk = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return walk(full)
    return SOURCE.test(entry.name) ? [full] : []
  })

type ModuleImport = { specifier: string; typeOnly: boolean; line: number }

/** Every module a file names: static imports and re-exports, `import()`, `require()`, with whether it is type-only. */
const importsOf = (file: string): ModuleImport[] => {
  const text = fs.readFileSync(file, 'utf8')
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  )
  const found: ModuleImport[] = []
  const add = (node: ts.Node, specifier: ts.Expression | undefined, typeOnly: boolean) => {
    if (specifier && ts.isStringLiteralLike(specifier)) {
      found.push({
        specifier: specifier.text,
        typeOnly,
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      })
    }
  }
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      const everyNameTypeOnly =
        clause !== undefined &&
        !clause.name &&
        clause.namedBindings !== undefined &&
        ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0 &&
        clause.namedBindings.elements.every((element) => element.isTypeOnly)
      add(node, node.moduleSpecifier, Boolean(clause?.isTypeOnly) || everyNameTypeOnly)
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly)
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly)
    } else if (ts.isCallExpression(node)) {
      const dynamicImport = node.expression.kind === ts.SyntaxKind.ImportKeyword
      const callsRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require'
      if (dynamicImport || callsRequire) add(node, node.arguments[0], false)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal, true)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Next's modules: `next/...` always; `next` itself unless the import is type-only. */
const importsNext = ({ specifier, typeOnly }: ModuleImport) =>
  specifier.startsWith('next/') || (specifier === 'next' && !typeOnly)

const nextImportsOutsideApp = (srcDir: string): string[] =>
  walk(srcDir)
    .filter((file) => !path.relative(srcDir, file).split(path.sep).join('/').startsWith('app/'))
    .flatMap((file) =>
      importsOf(file)
        .filter(importsNext)
        .map((found) => `${path.relative(ROOT, file)}:${found.line} imports '${found.specifier}'`),
    )

const GRAPH_ENTRIES = ['src/**/*.{ts,tsx}', 'collections/**/*.ts', 'plugins/**/*.ts', 'endpoints/**/*.ts']

/**
 * dpdm's module graph of these entries, paths relative to `context`: type-only imports left out (`-T`,
 * `transform`) unless `types` asks for them.
 */
const moduleGraph = (entries: string[], context: string, { types = false } = {}): Promise<DependencyTree> =>
  parseDependencyTree(entries, {
    cwd: context,
    context,
    tsconfig: path.join(context, 'tsconfig.json'),
    transform: !types,
    skipDynamicImports: false,
  })

/** The folder of src/ a module is in (null for a module outside src/ or at its top). */
const folderOf = (file: string) => /^src\/([^/]+)\//.exec(file)?.[1] ?? null

/** Each pair of folders of src/ that import each other, directly or through other folders, with an import of each way. */
const folderCycles = (graph: DependencyTree): string[] => {
  const edges = new Map<string, Set<string>>()
  const because = new Map<string, string>()
  for (const [file, dependencies] of Object.entries(graph)) {
    const from = folderOf(file)
    if (!from) continue
    for (const dependency of dependencies ?? []) {
      const to = dependency.id ? folderOf(dependency.id) : null
      if (!to || to === from) continue
      edges.set(from, (edges.get(from) ?? new Set()).add(to))
      because.set(`${from}->${to}`, `${file} -> ${dependency.id}`)
    }
  }
  /** Every folder `from` reaches through imports, directly or through others. */
  const reachable = (from: string): Set<string> => {
    const seen = new Set<string>()
    const stack = [from]
    while (stack.length > 0) {
      for (const next of edges.get(stack.pop()!) ?? []) {
        if (seen.has(next)) continue
        seen.add(next)
        stack.push(next)
      }
    }
    return seen
  }
  const folders = [...edges.keys()].sort()
  return folders.flatMap((a) =>
    folders
      .filter((b) => a < b && reachable(a).has(b) && reachable(b).has(a))
      .map(
        (b) =>
          `${a} <-> ${b} (${because.get(`${a}->${b}`) ?? 'through others'}; ${because.get(`${b}->${a}`) ?? 'through others'})`,
      ),
  )
}

/** The compiler options of the fixtures dpdm reads. */
const FIXTURE_TSCONFIG = '{ "compilerOptions": { "module": "esnext", "moduleResolution": "bundler", "strict": true } }'

/** A throwaway folder of source files (the checks' own proof that they catch what they look for). */
const fixture = (files: Record<string, string>): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-architecture-'))
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  return dir
}

describe('Next.js stays in src/app', () => {
  it('no module under src/ outside src/app/ imports next/*', () => {
    expect(nextImportsOutsideApp(path.join(ROOT, 'src'))).toEqual([])
  })

  it('the scan finds every form of import (proof on a fixture)', () => {
    const dir = fixture({
      'src/app/page.tsx': "import { redirect } from 'next/navigation'\n",
      'src/auth/a.ts': "import { cookies } from 'next/headers'\n",
      'src/auth/b.ts': "export { revalidateTag } from 'next/cache'\n",
      'src/auth/c.ts': "export const later = () => import('next/navigation')\n",
      'src/auth/d.ts': "import type { NextRequest } from 'next/server'\n",
      'src/auth/e.ts': "import next from 'next'\n",
      'src/auth/ok.ts':
        "import type { Metadata } from 'next'\nimport { type Payload } from 'payload'\nexport const nextPage = 'next/page'\n",
    })
    try {
      expect(
        nextImportsOutsideApp(path.join(dir, 'src'))
          .map((line) => line.replace(/^.*src\//, 'src/'))
          .sort(),
      ).toEqual([
        "src/auth/a.ts:1 imports 'next/headers'",
        "src/auth/b.ts:1 imports 'next/cache'",
        "src/auth/c.ts:1 imports 'next/navigation'",
        "src/auth/d.ts:1 imports 'next/server'",
        "src/auth/e.ts:1 imports 'next'",
      ])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('no import cycles', () => {
  it('among src/**, collections, plugins and endpoints (dpdm, type-only imports skipped)', async () => {
    const graph = await moduleGraph(GRAPH_ENTRIES, ROOT)
    // The graph really is the project's: the layers it must see are in it.
    for (const file of [
      'src/auth/oauth.ts',
      'src/billing/claim.ts',
      'collections/Users.ts',
      'plugins/billing.ts',
      'endpoints/webhook.ts',
      'src/app/_lib/session.ts',
    ]) {
      expect(graph).toHaveProperty([file])
    }
    expect(parseCircular(graph).map((cycle) => cycle.join(' -> '))).toEqual([])
  }, 120_000)

  it('dpdm reports a cycle through values, not one through types only (proof on a fixture)', async () => {
    const dir = fixture({
      'tsconfig.json': FIXTURE_TSCONFIG,
      'src/a.ts': "import { b } from './b'\nexport const a = () => b()\n",
      'src/b.ts': "import { a } from './a'\nexport const b = () => a\n",
      'src/c.ts': "import type { D } from './d'\nexport type C = { d?: D }\nexport const c = 1\n",
      'src/d.ts': "import { c } from './c'\nexport type D = { c: typeof c }\n",
    })
    try {
      const tree = await parseDependencyTree(['src/**/*.ts'], {
        cwd: dir,
        context: dir,
        tsconfig: path.join(dir, 'tsconfig.json'),
        transform: true,
      })
      expect(parseCircular(tree).map((cycle) => [...cycle].sort())).toEqual([['src/a.ts', 'src/b.ts']])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('between the folders of src/: none, type-only imports counted', async () => {
    const typed = await moduleGraph(GRAPH_ENTRIES, ROOT, { types: true })
    // Type-only imports are in it (this one is nothing else).
    expect(typed['src/billing/purchases.ts']?.map((dependency) => dependency.id)).toContain(
      'src/licensing/subscription-statuses.ts',
    )
    expect(folderCycles(typed)).toEqual([])
  }, 120_000)

  it('the folder check sees a cycle made by a type-only import, through a third folder too (proof on a fixture)', async () => {
    const dir = fixture({
      'tsconfig.json': FIXTURE_TSCONFIG,
      'src/config/runtime.ts':
        "import type { Slice } from '../billing/runtime'\nexport type Runtimes = { billing: Slice }\n",
      'src/billing/runtime.ts':
        "import type { Runtimes } from '../config/runtime'\nexport type Slice = { ok: true }\nexport type All = Runtimes\n",
      'src/db/bootstrap.ts':
        "import { importContent } from '../content/import'\nexport const prepare = () => importContent()\n",
      'src/content/import.ts': "import { pool } from '../jobs/pool'\nexport const importContent = () => pool\n",
      'src/jobs/pool.ts': "import type { Prepare } from '../db/types'\nexport const pool: Prepare | null = null\n",
      'src/db/types.ts': 'export type Prepare = () => void\n',
      'src/plans/ok.ts': "import type { Slice } from '../billing/runtime'\nexport const slice: Slice = { ok: true }\n",
    })
    try {
      const entries = ['src/**/*.ts']
      expect(folderCycles(await moduleGraph(entries, dir, { types: true }))).toEqual([
        'billing <-> config (src/billing/runtime.ts -> src/config/runtime.ts; src/config/runtime.ts -> src/billing/runtime.ts)',
        'content <-> db (through others; src/db/bootstrap.ts -> src/content/import.ts)',
        'content <-> jobs (src/content/import.ts -> src/jobs/pool.ts; through others)',
        'db <-> jobs (through others; src/jobs/pool.ts -> src/db/types.ts)',
      ])
      // Without the types (as the module check reads them) none of them is seen.
      expect(folderCycles(await moduleGraph(entries, dir))).toEqual([])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("plugins' runtimes", () => {
  it('reach config.custom only through src/config/runtime.ts (typed, named per plugin)', () => {
    const files = ['src', 'plugins', 'collections', 'endpoints'].flatMap((dir) => walk(path.join(ROOT, dir)))
    const untyped = files.filter(
      (file) =>
        !file.endsWith(path.join('src', 'config', 'runtime.ts')) &&
        /\.custom\s*(\?\.|as\b|\.(?!s?css\b)\w)/.test(
          fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
        ),
    )
    expect(untyped.map((file) => path.relative(ROOT, file))).toEqual([])
  })
})
