import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { usePayload } from '../support/payload'

/**
 * endpoints/README.md is the index from an HTTP path to its file: every endpoint the service
 * registers (on the config or on a collection) must be in its table, and the table names no path
 * that is not registered.
 */
const payload = usePayload()

const README = fs.readFileSync(path.resolve(import.meta.dirname, '../../endpoints/README.md'), 'utf8')

/** `POST /api/x/:id` from each table row's first cell (several per cell allowed); query strings dropped. */
const documented = (): Set<string> => {
  const found = new Set<string>()
  for (const line of README.split('\n').filter((row) => row.startsWith('| `'))) {
    const cell = line.split('|')[1] ?? ''
    for (const match of cell.matchAll(/`(GET|POST|PUT|PATCH|DELETE|OPTIONS) (\/api\/[^`?\s]+)/g))
      found.add(`${match[1]} ${match[2]}`)
  }
  return found
}

/** Payload's and its SEO plugin's own routes (auth on `users`, preferences, jobs, access): their docs index them. */
const PAYLOAD_OWN = /^[A-Z]+ \/api\/(access$|users\/|payload-preferences\/|payload-jobs\/|plugin-seo\/)/

const registered = (): Set<string> => {
  const config = payload().config
  const found = new Set<string>()
  const add = (method: string, route: string) => {
    const entry = `${method.toUpperCase()} ${route}`
    if (!PAYLOAD_OWN.test(entry)) found.add(entry)
  }
  // Payload's default routes are the same handlers on every collection (and its own root ones, such as
  // the jobs runner's, on the config); ours are each registered once.
  const handlerUses = new Map<unknown, number>()
  const collectionEndpoints = config.collections.flatMap((collection) =>
    (Array.isArray(collection.endpoints) ? collection.endpoints : []).map((endpoint) => ({
      slug: collection.slug,
      endpoint,
    })),
  )
  for (const { endpoint } of collectionEndpoints)
    handlerUses.set(endpoint.handler, (handlerUses.get(endpoint.handler) ?? 0) + 1)
  for (const { slug, endpoint } of collectionEndpoints)
    if (handlerUses.get(endpoint.handler) === 1) add(endpoint.method, `/api/${slug}${endpoint.path}`)
  for (const endpoint of config.endpoints ?? []) add(endpoint.method, `/api${endpoint.path}`)
  return found
}

describe('endpoints/README.md', () => {
  it('lists every endpoint the service registers, and nothing else', () => {
    const routes = registered()
    expect(routes.size).toBeGreaterThan(20)
    const table = documented()
    expect([...routes].filter((route) => !table.has(route)).sort()).toEqual([])
    // Payload REST rows (support requests and replies) are the collections' own routes.
    const unregistered = [...table].filter(
      (route) => !routes.has(route) && !/\/api\/support_(requests|replies)$/.test(route),
    )
    expect(unregistered.sort()).toEqual([])
  })
})
