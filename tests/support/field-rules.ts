import crypto from 'node:crypto'

import type { Block, Field, FieldAccess, SanitizedCollectionConfig, SanitizedConfig } from 'payload'

/**
 * The field-level read rules of a Payload config, found by walking every collection's fields at
 * any depth (groups, named and unnamed tabs, rows, collapsibles, arrays, blocks and block
 * references), and the values a test plants in them. Used by tests/int/access-field-read.test.ts.
 */

/** A field that holds data under a name (what `where`, `sort` and `select` name). */
export type DataField = Extract<Field, { name: string }>

/** One container between the collection and a field: a group or named tab (an object), an array or blocks (a list of rows). */
export type Container = { kind: 'object' | 'array' | 'blocks'; name: string; field: DataField; block?: Block }

export type FieldReadRule = {
  collection: string
  /** The dot path of the field's data: `body`, `source`, `sessions`, `group.inner`. */
  path: string
  field: DataField
  read: FieldAccess
  /** The containers from the document down to (not including) the field. */
  containers: Container[]
}

export type Walk = {
  rules: FieldReadRule[]
  /** Every collection walked, with how many data fields it has at any depth. */
  visited: { collection: string; fields: number }[]
}

const blocksOf = (config: SanitizedConfig, field: DataField): Block[] => {
  if (field.type !== 'blocks') return []
  const own = field.blocks ?? []
  const referenced = ((field as { blockReferences?: (Block | string)[] }).blockReferences ?? []).map((ref) =>
    typeof ref === 'string' ? (config.blocks ?? []).find((block) => block.slug === ref) : ref,
  )
  return [...own, ...referenced.filter((block): block is Block => Boolean(block))]
}

/** Every field with `access.read`, at any depth, in every collection of the config (Payload's own included). */
export const findFieldReadRules = (config: SanitizedConfig): Walk => {
  const rules: FieldReadRule[] = []
  const visited: Walk['visited'] = []
  for (const collection of config.collections) {
    let count = 0
    const walk = (fields: Field[], path: string[], containers: Container[]) => {
      for (const field of fields) {
        if (field.type === 'row' || field.type === 'collapsible') {
          walk(field.fields, path, containers)
          continue
        }
        if (field.type === 'tabs') {
          for (const tab of field.tabs) {
            if ('name' in tab && tab.name) {
              const tabField = { ...tab, type: 'group' } as unknown as DataField
              count += 1
              if (tab.access?.read)
                rules.push({
                  collection: collection.slug,
                  path: [...path, tab.name].join('.'),
                  field: tabField,
                  read: tab.access.read,
                  containers,
                })
              walk(
                tab.fields,
                [...path, tab.name],
                [...containers, { kind: 'object', name: tab.name, field: tabField }],
              )
            } else walk(tab.fields, path, containers)
          }
          continue
        }
        if (!('name' in field) || !field.name) continue
        const named = field
        count += 1
        const here = [...path, named.name]
        const read = 'access' in named ? named.access?.read : undefined
        if (read) rules.push({ collection: collection.slug, path: here.join('.'), field: named, read, containers })
        if (named.type === 'group')
          walk(named.fields, here, [...containers, { kind: 'object', name: named.name, field: named }])
        if (named.type === 'array')
          walk(named.fields, here, [...containers, { kind: 'array', name: named.name, field: named }])
        if (named.type === 'blocks') {
          for (const block of blocksOf(config, named))
            walk(block.fields, here, [...containers, { kind: 'blocks', name: named.name, field: named, block }])
        }
      }
    }
    walk(collection.fields, [], [])
    visited.push({ collection: collection.slug, fields: count })
  }
  return { rules, visited }
}

// --- planted values -------------------------------------------------------------------------

let counter = 0
/** A token found nowhere else: lowercase letters and digits, safe in a URL, a slug and a search. */
export const token = (): string => {
  counter += 1
  return `zq${counter.toString(36)}x${crypto.randomBytes(5).toString('hex')}`
}

/** A Lexical document of one paragraph holding `text`, as the editor stores it. */
export const lexicalOf = (text: string) => ({
  root: {
    type: 'root',
    version: 1,
    direction: null,
    format: '',
    indent: 0,
    children: [
      {
        type: 'paragraph',
        version: 1,
        direction: null,
        format: '',
        indent: 0,
        textFormat: 0,
        textStyle: '',
        children: [{ type: 'text', version: 1, text, format: 0, mode: 'normal', style: '', detail: 0 }],
      },
    ],
  },
})

/**
 * One leaf of a planted value: where a `where` or `sort` reaches it (`body.root.children.children.text`,
 * `source.path`, `sessions.id`), the value, a different value of the same kind (the wrong guess),
 * and whether `like` applies.
 */
export type Leaf = { path: string; value: unknown; wrong: unknown; like: boolean; sortable: boolean }

export type Planted = {
  value: unknown
  /** Strings that exist only in this value: none may appear in a response to someone refused. */
  tokens: string[]
  leaves: Leaf[]
}

export type PlantContext = {
  /** An id of a row of that collection (an existing one, or a new one). */
  rowOf: (collection: string) => Promise<number | string>
}

const optionValues = (field: DataField): string[] =>
  field.type === 'select' || field.type === 'radio'
    ? field.options.map((option) => (typeof option === 'string' ? option : option.value))
    : []

let numberSeed = 900_000_000 + crypto.randomInt(0, 50_000_000)
// In the future: a planted session or expiry stays live (Payload drops expired sessions).
let dateSeed = Date.UTC(2090, 0, 1) + crypto.randomInt(0, 1000) * 86_400_000

/** A value for `field` with its own tokens (and every data field inside it filled), and its leaves under `path`. */
export const plantValue = async (field: DataField, path: string, context: PlantContext): Promise<Planted> => {
  switch (field.type) {
    case 'text':
    case 'textarea':
    case 'code': {
      const value = token()
      const planted = field.type === 'text' && field.hasMany ? [value] : value
      return { value: planted, tokens: [value], leaves: [{ path, value, wrong: token(), like: true, sortable: true }] }
    }
    case 'email': {
      const value = `${token()}@example.test`
      return {
        value,
        tokens: [value],
        leaves: [{ path, value, wrong: `${token()}@example.test`, like: true, sortable: true }],
      }
    }
    case 'number': {
      numberSeed += 7919
      const value = numberSeed
      return {
        value: field.hasMany ? [value] : value,
        tokens: [String(value)],
        leaves: [{ path, value, wrong: value + 1, like: false, sortable: true }],
      }
    }
    case 'date': {
      dateSeed += 86_400_000 + 1234
      const value = new Date(dateSeed).toISOString()
      return {
        value,
        tokens: [value],
        leaves: [{ path, value, wrong: new Date(dateSeed + 3_600_000).toISOString(), like: false, sortable: true }],
      }
    }
    case 'checkbox':
      return { value: true, tokens: [], leaves: [{ path, value: true, wrong: false, like: false, sortable: true }] }
    case 'select':
    case 'radio': {
      const options = optionValues(field)
      const value = options[options.length - 1]
      const wrong = options.find((option) => option !== value) ?? token()
      const hasMany = field.type === 'select' && field.hasMany
      return {
        value: hasMany ? [value] : value,
        tokens: [],
        leaves: [{ path, value, wrong, like: false, sortable: true }],
      }
    }
    case 'point':
      return {
        value: [12.3456, 45.6789],
        tokens: [],
        leaves: [{ path, value: '12.3456,45.6789', wrong: '1,1', like: false, sortable: false }],
      }
    case 'json': {
      const value = token()
      return {
        value: { probe: value },
        tokens: [value],
        leaves: [{ path: `${path}.probe`, value, wrong: token(), like: true, sortable: false }],
      }
    }
    case 'richText': {
      const value = token()
      return {
        value: lexicalOf(value),
        tokens: [value],
        leaves: [{ path: `${path}.root.children.children.text`, value, wrong: token(), like: true, sortable: false }],
      }
    }
    case 'relationship':
    case 'upload': {
      const targets = Array.isArray(field.relationTo) ? field.relationTo : [field.relationTo]
      const target = targets[0]!
      const id = await context.rowOf(target)
      const one = Array.isArray(field.relationTo) ? { relationTo: target, value: id } : id
      const leafPath = Array.isArray(field.relationTo) ? `${path}.value` : path
      return {
        value: field.hasMany ? [one] : one,
        tokens: [],
        leaves: [
          {
            path: leafPath,
            value: id,
            wrong: typeof id === 'number' ? 2_000_000_000 : token(),
            like: false,
            sortable: !field.hasMany,
          },
        ],
      }
    }
    case 'group': {
      const planted = await plantFields(field.fields, path, context)
      return planted
    }
    case 'array': {
      const row = await plantFields(field.fields, path, context)
      return { ...row, value: [row.value] }
    }
    case 'blocks': {
      const block = (field.blocks ?? [])[0]
      if (!block) return { value: [], tokens: [], leaves: [] }
      const row = await plantFields(block.fields, path, context)
      return { ...row, value: [{ ...(row.value as object), blockType: block.slug }] }
    }
    default:
      return { value: undefined, tokens: [], leaves: [] }
  }
}

/** Every data field of `fields` planted (through rows, collapsibles and tabs), as one object. */
const plantFields = async (fields: Field[], path: string, context: PlantContext): Promise<Planted> => {
  const value: Record<string, unknown> = {}
  const tokens: string[] = []
  const leaves: Leaf[] = []
  const add = async (list: Field[], target: Record<string, unknown>, prefix: string) => {
    for (const field of list) {
      if (field.type === 'row' || field.type === 'collapsible') {
        await add(field.fields, target, prefix)
        continue
      }
      if (field.type === 'tabs') {
        for (const tab of field.tabs) {
          if ('name' in tab && tab.name) {
            const inner: Record<string, unknown> = {}
            target[tab.name] = inner
            await add(tab.fields, inner, `${prefix}.${tab.name}`)
          } else await add(tab.fields, target, prefix)
        }
        continue
      }
      if (!('name' in field) || !field.name || field.type === 'join' || ('virtual' in field && field.virtual)) continue
      const planted = await plantValue(field, `${prefix}.${field.name}`, context)
      if (planted.value === undefined) continue
      target[field.name] = planted.value
      tokens.push(...planted.tokens)
      leaves.push(...planted.leaves)
    }
  }
  await add(fields, value, path)
  return { value, tokens, leaves }
}

/** `value` at the field's place in a document: inside its groups (objects), arrays and blocks (one row each). */
export const wrapInContainers = (containers: Container[], name: string, value: unknown): Record<string, unknown> => {
  let data: Record<string, unknown> = { [name]: value }
  for (const container of [...containers].reverse()) {
    if (container.kind === 'object') data = { [container.name]: data }
    else if (container.kind === 'array') data = { [container.name]: [data] }
    else data = { [container.name]: [{ ...data, blockType: container.block?.slug }] }
  }
  return data
}

/**
 * The values at a dot path in a document: through objects, and through every row of an array.
 * `present` is whether the last key exists on any of the objects reached (a field left out by its
 * read rule is absent; one that was read is present, null or not).
 */
export const valuesAt = (doc: unknown, path: string): { present: boolean; values: unknown[] } => {
  let current: unknown[] = [doc]
  const segments = path.split('.')
  let present = false
  segments.forEach((segment, index) => {
    const next: unknown[] = []
    for (const item of current) {
      const rows = Array.isArray(item) ? item : [item]
      for (const row of rows) {
        if (!row || typeof row !== 'object') continue
        if (!Object.prototype.hasOwnProperty.call(row, segment)) continue
        if (index === segments.length - 1) present = true
        next.push((row as Record<string, unknown>)[segment])
      }
    }
    current = next
  })
  return { present, values: current }
}

/** Whether a value shows anything: not null, not an empty list, not an object of nothing (a refused group or array in GraphQL). */
export const hasContent = (value: unknown): boolean => {
  if (value === null || value === undefined) return false
  if (Array.isArray(value)) return value.some(hasContent)
  if (typeof value === 'object') return Object.values(value).some(hasContent)
  return true
}

/** The collections that point at `target` through a relationship or upload field, and where. */
export const referencesTo = (
  config: SanitizedConfig,
  target: string,
): { collection: string; path: string; field: DataField; containers: Container[] }[] => {
  const found: { collection: string; path: string; field: DataField; containers: Container[] }[] = []
  for (const collection of config.collections) {
    const walk = (fields: Field[], path: string[], containers: Container[]) => {
      for (const field of fields) {
        if (field.type === 'row' || field.type === 'collapsible') walk(field.fields, path, containers)
        else if (field.type === 'tabs')
          for (const tab of field.tabs)
            walk(
              tab.fields,
              'name' in tab && tab.name ? [...path, tab.name] : path,
              'name' in tab && tab.name
                ? [...containers, { kind: 'object', name: tab.name, field: tab as unknown as DataField }]
                : containers,
            )
        else if ('name' in field && field.name) {
          const here = [...path, field.name]
          if (
            (field.type === 'relationship' || field.type === 'upload') &&
            (Array.isArray(field.relationTo)
              ? (field.relationTo as string[]).includes(target)
              : field.relationTo === target)
          ) {
            found.push({ collection: collection.slug, path: here.join('.'), field: field, containers })
          }
          if (field.type === 'group')
            walk(field.fields, here, [...containers, { kind: 'object', name: field.name, field: field }])
          if (field.type === 'array')
            walk(field.fields, here, [...containers, { kind: 'array', name: field.name, field: field }])
        }
      }
    }
    walk(collection.fields, [], [])
  }
  return found
}

/** The join fields (any collection) that list rows of `target`. */
export const joinsTo = (config: SanitizedConfig, target: string): { collection: string; name: string; on: string }[] =>
  config.collections.flatMap((collection: SanitizedCollectionConfig) =>
    collection.flattenedFields
      .filter((field) => field.type === 'join' && field.collection === target)
      .map((field) => ({ collection: collection.slug, name: field.name, on: (field as { on: string }).on })),
  )
