/**
 * docs/ENVIRONMENT.md and .env.example are generated from the schema in src/config/env.ts
 * (`npm run docs:env`): these fail when either is stale or a variable is documented badly.
 */
import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { ENV_SCHEMA, envVariables } from '../../src/config/env'
import { ENV_EXAMPLE_FILE, envExample, ENVIRONMENT_DOC_FILE, environmentDoc } from '../../src/config/env-docs'

const root = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8')
const STALE = 'stale: run `npm run docs:env` and commit the result'

describe('the environment docs', () => {
  it('every schema variable is in .env.example, and every variable there is in the schema', () => {
    const listed = [...read(ENV_EXAMPLE_FILE).matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!)
    const declared = Object.keys(ENV_SCHEMA.shape)
    expect(
      declared.filter((name) => !listed.includes(name)),
      `missing from ${ENV_EXAMPLE_FILE}`,
    ).toEqual([])
    expect(
      listed.filter((name) => !declared.includes(name)),
      `in ${ENV_EXAMPLE_FILE} but unknown to the schema`,
    ).toEqual([])
    expect(new Set(listed).size).toBe(listed.length)
  })

  it('.env.example is the text the schema generates', () => {
    expect(read(ENV_EXAMPLE_FILE), `${ENV_EXAMPLE_FILE} is ${STALE}`).toBe(envExample())
  })

  it('docs/ENVIRONMENT.md is the text the schema generates', () => {
    expect(read(ENVIRONMENT_DOC_FILE), `${ENVIRONMENT_DOC_FILE} is ${STALE}`).toBe(environmentDoc())
  })

  it('lists every variable once, in a table row with its default, production rule, secrecy and description', () => {
    const doc = environmentDoc()
    for (const { name, description } of envVariables()) {
      const rows = doc.split('\n').filter((line) => line.startsWith(`| \`${name}\` |`))
      expect(rows, name).toHaveLength(1)
      expect(rows[0]!.split(/(?<!\\)\|/).slice(1, -1)).toHaveLength(5)
      expect(rows[0]).toContain(description.replace(/\|/g, '\\|'))
    }
  })

  it('every description is one sentence on one line, and a variable named like a secret is marked secret', () => {
    for (const variable of envVariables()) {
      expect(variable.description, variable.name).toMatch(/^[A-Z`][^\n]*\.$/)
      if (/SECRET|_TOKEN$|PASSWORD|SIGNING_KEY/.test(variable.name))
        expect(variable.secret, `${variable.name} looks like a secret`).toBe(true)
    }
  })
})
