import { createLocalReq, formatNames, type SanitizedCollectionConfig, toWords } from 'payload'
import { beforeAll, describe, expect, it } from 'vitest'

import config from '../../payload.config'
import { generateLicenseKey } from '../../src/licensing/keys'
import type { User } from '../../src/payload-types'
import {
  type DataField,
  type FieldReadRule,
  findFieldReadRules,
  hasContent,
  joinsTo,
  type Leaf,
  plantValue,
  referencesTo,
  token,
  valuesAt,
  wrapInContainers,
} from '../support/field-rules'
import { api, type ApiResponse, createUser, graphql, type TestUser, usePayload } from '../support/payload'
import { seedPlansWithoutProcessor } from '../support/licenses'

/**
 * Every field-level read rule, found by walking the config, against every way of reading around it.
 *
 * How a field read rule is abused. Payload applies a field's `access.read` when it shapes a document
 * for a response (afterRead, with the document), but:
 * - a `select` loads only the selected columns, so a rule that reads another field of the document
 *   (the premium body reads `requiredFeature`) finds it missing, and an exclude-mode select
 *   (`select[requiredFeature]=false`) hands it over as null: a rule that then allows gives the field
 *   away (`/api/posts?select[body]=true`, the blog's premium server action, GraphQL `select: true`);
 * - a `where` or `sort` on the field (REST list, `/count`, versions, GraphQL, and through a
 *   relationship from another collection) is checked with permissions computed without any document:
 *   a rule that allows there lets anyone ask "is the text like X?" and read the field one guess at a
 *   time from totalDocs, or from the order of the rows;
 * - a related collection populates the row (`depth`, `populate[...]`) or lists it (a join), and
 *   drafts (`draft=true`) and versions read it through other operations: the rule must hold there too.
 *
 * What is covered. The walker (tests/support/field-rules.ts) visits every collection of the config,
 * Payload's own included (users and its sessions, payload-preferences, payload-jobs,
 * payload-locked-documents, payload-migrations, payload-kv), and every field at any depth (groups,
 * arrays, named and unnamed tabs, rows, collapsibles, blocks) that has `access.read`. For each such
 * field and each actor (an anonymous visitor; a customer of the free plan; a subscriber, whose
 * standard license lacks the premium feature; support staff), it asks the rule itself, given the whole
 * row, whether the actor may read the field. Where it may not, a unique value (the sentinel) is
 * planted in the field of two rows the actor reads at row level (asserted; where the actor reads none,
 * as an anonymous visitor reads no user, two rows it cannot see are probed and asserted hidden), and:
 * - rows: REST by id and list, depth 2, and exclude-mode selects of every other field in turn;
 * - select: `select[field]=true` and `select` of each leaf inside it, by id and list;
 * - where: `equals`, `not_equals`, `in`, `like`/`contains` (text) and `exists`, on the field and on
 *   every leaf inside it (JSON and rich text: `body.root.children.children.text`), a right guess
 *   against a wrong one, on the list, on `/count`, unscoped and nested in `or`/`and`: status and
 *   totalDocs must be the same;
 * - sort: `sort=field` against `sort=-field` (and each leaf) over the two rows: the same order;
 * - populate: a row of the actor's in every collection of ROWS that relates to the field's collection,
 *   pointing at the probed row: `depth=2`, `populate[collection][field]`, a `where` and a `sort`
 *   through the relationship; and the join fields that list the row;
 * - GraphQL: list and by id, with and without `select: true`;
 * - drafts and versions: `draft=true` by id, list and where, `/versions` list, select, where and by id.
 * The sentinel must appear in no response body, and no returned document may show the field with
 * content. Where the rule allows an actor, the test checks instead that the actor does read the
 * sentinel (a rule that refuses everyone would pass every probe and break the product).
 *
 * Not probed: a `where` through a relationship that ends in a join field (three hops): Payload 3.90
 * refuses it but validates the third hop again in a promise it never awaits (validateSearchParams.js,
 * pathsToQuery), which adds an unhandled rejection per such request.
 *
 * A collection with a field read rule needs one entry in ROWS below (how to make a row an actor
 * reads): without it this file fails and says so. A new field with a read rule in a collection that
 * has an entry is covered without writing anything. FIELD_READ_ONLY=posts.body runs one field's cases.
 */

const sanitized = await config
const walk = findFieldReadRules(sanitized)
const payload = usePayload()

type Id = number | string
type Data = Record<string, unknown>
type ActorName = 'anonymous' | 'customer' | 'subscriber' | 'support'
type Actor = {
  name: ActorName
  user: (User & { collection: 'users' }) | null
  as: { token: string } | null
  staff: boolean
}

const ACTORS: ActorName[] = ['anonymous', 'customer', 'subscriber', 'support']

/** What a row maker may use. */
type Kit = {
  /** A row of `slug` from `data`, with the collection's registry defaults and every required field filled. */
  create: (slug: string, data: Data) => Promise<Id>
  /** A fresh customer (for rows staff read that belong to someone). */
  customer: () => Promise<Id>
  plan: (slug: string) => Promise<Id>
}
type RowRequest = { slug: string; actor: Actor; index: 0 | 1; data: Data; kit: Kit }

type RowEntry = {
  /** A row `actor` reads at row level, holding `data` (the planted values), or null when it reads none (of that index). */
  make: (request: RowRequest) => Promise<Id | null>
  /** Required or identifying values every row of the collection gets (planted values override them). */
  defaults?: (kit: Kit) => Data | Promise<Data>
  /** `local`: through payload.create (hooks, versions); `db`: the adapter alone (uploads without a file, no side effects). */
  via?: 'local' | 'db'
  /** Fields the maker sets itself (the owner): a planted value there gives way. */
  fixed?: string[]
  /** Fields that, once set, hide the row from its owner at row level (an API key's revokedAt). */
  hiddenWhenSet?: string[]
  /** Rows only admins read (none of the actors, support included): every actor's rows are probed as hidden. */
  adminsOnly?: boolean
  /** Fields no value can be planted in, and why (Payload computes them): they are probed for their absence only. */
  unplantable?: Record<string, string>
}

/** A row that `field` makes the actor's: anonymous reads none; staff read a customer's. */
const owned = (
  field: string,
  options: Pick<RowEntry, 'defaults' | 'via' | 'hiddenWhenSet'> & { unique?: boolean } = {},
): RowEntry => ({
  ...options,
  fixed: [field],
  make: async ({ slug, actor, index, data, kit }) => {
    if (!actor.user) return null
    if (actor.staff) return kit.create(slug, { ...data, [field]: data[field] ?? (await kit.customer()) })
    if (options.unique && index > 0) return null
    return kit.create(slug, { ...data, [field]: actor.user.id })
  },
})

/** A row everyone reads (published content, the public catalogue). */
const published = (options: Pick<RowEntry, 'defaults' | 'via'> = {}): RowEntry => ({
  ...options,
  make: ({ slug, data, kit }) => kit.create(slug, data),
})

let versionSeed = 0
const past = () => new Date(Date.now() - 86_400_000).toISOString()

/**
 * How to make a row each actor reads, per collection. Every collection with a field read rule
 * needs a line; the others here are for the populate probes (rows that point at a probed row).
 */
const ROWS: Record<string, RowEntry> = {
  // A customer reads only themselves; support reads every user.
  users: {
    via: 'local',
    make: async ({ actor, index, kit }) =>
      !actor.user ? null : actor.staff ? kit.customer() : index === 0 ? actor.user.id : null,
  },
  api_keys: owned('user', { hiddenWhenSet: ['revokedAt'] }),
  // A revoked license of the free plan: a row of theirs that opens nothing (the actor's rights stay as they are).
  licenses: owned('user', {
    defaults: async (kit) => ({
      status: 'revoked',
      source: 'manual',
      plan: await kit.plan('free'),
      key: generateLicenseKey(),
    }),
  }),
  // One per user (unique): a customer reads one.
  repo_access: owned('user', { unique: true }),
  templates: {
    ...published({ via: 'db', defaults: () => ({ publishedAt: past() }) }),
    unplantable: { thumbnailURL: 'Payload computes it for image uploads only; an archive has none' },
  },
  posts: published({ via: 'local', defaults: () => ({ _status: 'published', requiredFeature: 'advanced' }) }),
  changelog_entries: published({
    via: 'local',
    defaults: () => ({ _status: 'published', version: `97.${(versionSeed += 1)}.0` }),
  }),
  // An image is public only while published content shows it (src/content/public-media.ts): the cover of a published post.
  media: {
    via: 'db',
    make: async ({ data, kit }) => {
      const id = await kit.create('media', data)
      await kit.create('posts', { cover: id, requiredFeature: null })
      return id
    },
  },
  // Staff read every seat; a customer reads none through the collection (the owner's endpoint answers for them).
  license_seats: {
    via: 'db',
    defaults: async (kit) => ({
      email: `seat-${(versionSeed += 1)}@example.test`,
      status: 'pending',
      license: await kit.create('licenses', {
        user: await kit.customer(),
        status: 'revoked',
        source: 'manual',
        plan: await kit.plan('free'),
        key: generateLicenseKey(),
      }),
    }),
    make: async ({ slug, actor, data, kit }) => (actor.staff ? kit.create(slug, data) : null),
  },
  // Roles given on Discord: a customer reads their own; Discord's last error is for staff.
  community_grants: owned('user', { defaults: () => ({ state: 'granted', roleId: '1400000000000000201' }) }),
  // The catalogue: an active plan everyone reads; its Discord role is for staff.
  plans: published({
    via: 'db',
    defaults: () => ({ active: true, isFree: false, billing: 'lifetime', order: 0, buttonText: 'Buy' }),
  }),
  // Populate sources.
  discord_links: owned('user', { unique: true }),
  downloads: owned('user', { defaults: () => ({ version: `96.${(versionSeed += 1)}.0` }) }),
  template_downloads: owned('user'),
  support_requests: owned('user'),
  oauth_identities: owned('user'),
  user_subscriptions: owned('user'),
  one_time_purchases: owned('user'),
  payment_history: owned('user'),
  releases: {
    via: 'db',
    defaults: () => ({ version: `95.${(versionSeed += 1)}.0` }),
    make: () => Promise.resolve(null),
  },
  // Admins only: none of the actors (support included) reads an endpoint, so each probes two rows it cannot see.
  webhook_endpoints: {
    via: 'db',
    adminsOnly: true,
    defaults: () => ({ url: 'https://93.184.216.34/hook', events: ['order.paid'], enabled: true }),
    make: ({ slug, data, kit }) => kit.create(slug, data),
  },
}

const collectionOf = (slug: string): SanitizedCollectionConfig => {
  const found = sanitized.collections.find((collection) => collection.slug === slug)
  if (!found) throw new Error(`no collection ${slug}`)
  return found
}

// --- the actors and the rows --------------------------------------------------------------------

const shared: { support: Actor; admin: Actor } = {} as never

const actorOf = (name: ActorName, who: TestUser | null): Actor => ({
  name,
  user: who ? { ...who.user, collection: 'users' } : null,
  as: who ? { token: who.token } : null,
  staff: name === 'support',
})

const grant = async (who: TestUser, plan: string, status: 'active' | 'revoked') => {
  const { docs } = await payload().find({ collection: 'plans', where: { slug: { equals: plan } }, limit: 1, depth: 0 })
  await payload().create({
    collection: 'licenses',
    data: { key: generateLicenseKey(), user: who.user.id, plan: docs[0]!.id, source: 'manual', status, seats: 1 },
    overrideAccess: true,
  })
}

/** A fresh set of actors for one field (rows owned by a customer never collide with another field's). */
const freshActors = async (): Promise<Record<ActorName, Actor>> => {
  const [customer, subscriber] = await Promise.all([
    createUser(payload(), 'customer'),
    createUser(payload(), 'customer'),
  ])
  await grant(subscriber, 'standard', 'active')
  return {
    anonymous: actorOf('anonymous', null),
    customer: actorOf('customer', customer),
    subscriber: actorOf('subscriber', subscriber),
    support: shared.support,
  }
}

const plans = new Map<string, Id>()
const kit: Kit = {
  plan: async (slug) => {
    if (!plans.has(slug)) {
      const { docs } = await payload().find({
        collection: 'plans',
        where: { slug: { equals: slug } },
        limit: 1,
        depth: 0,
      })
      plans.set(slug, docs[0]!.id)
    }
    return plans.get(slug)!
  },
  customer: async () => (await createUser(payload(), 'customer')).user.id,
  create: async (slug, data) => {
    const entry = ROWS[slug]
    const merged = { ...((await entry?.defaults?.(kit)) ?? {}), ...data }
    const filled = await fillRequired(collectionOf(slug).fields as DataField[], merged)
    if (slug === 'users') {
      const created = await payload().create({
        collection: 'users',
        data: { password: `pw-${token()}`, emailVerified: true, roles: ['customer'], ...filled } as never,
        overrideAccess: true,
      })
      return created.id
    }
    if ((entry?.via ?? 'db') === 'local') {
      const created = await payload().create({
        collection: slug as never,
        data: filled as never,
        overrideAccess: true,
        context: { contentImport: true },
        draft: false,
      })
      return (created as { id: Id }).id
    }
    const created = await payload().db.create({ collection: slug as never, data: filled })
    return (created as { id: Id }).id
  },
}

/** An id of some row of `slug` (for a relationship's value): an existing one, else a new one. */
const rowOf = async (slug: string): Promise<Id> => {
  const { docs } = await payload().find({
    collection: slug as never,
    limit: 1,
    depth: 0,
    overrideAccess: true,
    sort: '-id',
    select: {} as never,
    pagination: false,
  })
  if (docs[0]) return (docs[0] as { id: Id }).id
  return kit.create(slug, {})
}

/** `data` with every required field (top level, groups, named tabs) given a value. */
const fillRequired = async (fields: DataField[], data: Data): Promise<Data> => {
  const filled = { ...data }
  for (const field of fields as unknown as Array<{
    type: string
    name?: string
    required?: boolean
    defaultValue?: unknown
    fields?: DataField[]
    tabs?: Array<{ name?: string; fields: DataField[] }>
  }>) {
    if (field.type === 'row' || field.type === 'collapsible')
      Object.assign(filled, await fillRequired(field.fields!, filled))
    else if (field.type === 'tabs') {
      for (const tab of field.tabs!) {
        if (tab.name) filled[tab.name] = await fillRequired(tab.fields, (filled[tab.name] as Data) ?? {})
        else Object.assign(filled, await fillRequired(tab.fields, filled))
      }
    } else if (field.name && field.type === 'group') {
      if (filled[field.name] !== undefined || field.required)
        filled[field.name] = await fillRequired(field.fields!, (filled[field.name] as Data) ?? {})
    } else if (field.name && field.required && filled[field.name] === undefined && field.name !== 'id') {
      if (field.defaultValue !== undefined && typeof field.defaultValue !== 'function')
        filled[field.name] = field.defaultValue
      else filled[field.name] = (await plantValue(field as DataField, field.name, { rowOf })).value
    }
  }
  return filled
}

/** A row as staff see it: everything, joins and hidden fields included. */
const observe = async (slug: string, id: Id): Promise<Data> =>
  await payload().findByID({
    collection: slug as never,
    id,
    depth: 0,
    overrideAccess: true,
    showHiddenFields: true,
    user: shared.admin.user,
    draft: false,
  })

const sameValue = (a: unknown, b: unknown) =>
  JSON.stringify(a) === JSON.stringify(b) || (a !== null && typeof a === 'object' && (a as { id?: unknown }).id === b)

type ProbedRow = { id: Id; doc: Data; tokens: string[]; leaves: Leaf[] }

/**
 * Plant a value in `rule`'s field of a row `actor` reads (or, for index 1, a second one), and read
 * it back as staff. A planted value the collection's hooks replaced is written through the adapter;
 * one the maker fixed (the owner) is probed with the value it has.
 */
const plantRow = async (rule: FieldReadRule, actor: Actor, index: 0 | 1): Promise<ProbedRow | null> => {
  const entry = ROWS[rule.collection]!
  const topName = rule.containers[0]?.name ?? rule.field.name
  let planted: { value: unknown; tokens: string[]; leaves: Leaf[] } = { value: undefined, tokens: [], leaves: [] }
  let data: Data = {}
  if (rule.field.type !== 'join') {
    planted = await plantValue(rule.field, rule.path, { rowOf })
    data = wrapInContainers(rule.containers, rule.field.name, planted.value)
  }
  const id = await entry.make({ slug: rule.collection, actor, index, data, kit })
  if (id === null) return null
  if (rule.field.type === 'join') {
    // The join's value: a row of the joined collection that points at this one.
    const join = rule.field as unknown as { collection: string; on: string }
    const joined = await kit.create(join.collection, { [join.on]: id })
    planted = {
      value: joined,
      tokens: [],
      leaves: [{ path: `${rule.path}.id`, value: joined, wrong: 2_000_000_000, like: false, sortable: false }],
    }
  } else {
    let doc = await observe(rule.collection, id)
    const stuck = () =>
      planted.leaves.every((leaf) => valuesAt(doc, leaf.path).values.some((value) => sameValue(value, leaf.value)))
    if (!stuck() && !(entry.fixed ?? []).includes(topName)) {
      const existing = doc[topName]
      const value = data[topName]
      const merged = Array.isArray(existing) && Array.isArray(value) ? [...existing, ...value] : value
      await payload().db.updateOne({ collection: rule.collection as never, id, data: { [topName]: merged } })
      doc = await observe(rule.collection, id)
    }
    // Probe with the values the row has (a fixed owner, a value Payload computes).
    planted.leaves = planted.leaves.map((leaf) => {
      const values = valuesAt(doc, leaf.path).values.filter((value) => value !== null && value !== undefined)
      if (values.some((value) => sameValue(value, leaf.value)) || values.length === 0) return leaf
      const actual = typeof values[0] === 'object' ? ((values[0] as { id?: unknown }).id ?? values[0]) : values[0]
      return { ...leaf, value: actual }
    })
    planted.tokens = planted.tokens.filter((text) => JSON.stringify(doc).includes(text))
    // A value Payload computes from planted ones (an upload's url from its filename) is a token too.
    for (const value of valuesAt(doc, rule.path).values)
      if (typeof value === 'string' && value.length >= 12 && !planted.tokens.includes(value)) planted.tokens.push(value)
  }
  return { id, doc: await observe(rule.collection, id), tokens: planted.tokens, leaves: planted.leaves }
}

/** What the rule answers for the actor with the whole document (the truth every other path must agree with). */
const ruleAllows = async (rule: FieldReadRule, actor: Actor, doc: Data): Promise<boolean> => {
  const req = await createLocalReq({ user: actor.user ?? undefined }, payload())
  let sibling: unknown = doc
  for (const container of rule.containers) {
    const inner = (sibling as Data | undefined)?.[container.name]
    sibling = Array.isArray(inner) ? inner[0] : inner
  }
  return Boolean(await rule.read({ req, doc, data: doc, id: doc.id as Id, siblingData: sibling as Data }))
}

type Case = {
  actor: Actor
  /** Rows planted for the probes (the second one, where there is one, has other values). */
  rows: ProbedRow[]
  /** Whether the actor reads the rows at row level. */
  visible: boolean
  /** The rule lets the actor read the field of these rows: only the positive check runs. */
  entitled: boolean
}

// --- probing --------------------------------------------------------------------------------------

const query = (params: Record<string, string | number | boolean>) =>
  Object.entries(params)
    .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)
    .join('&')

/** `a.b.c` as a nested select parameter: `select[a][b][c]=true`. */
const selectParam = (path: string, prefix = 'select') =>
  `${prefix}${path
    .split('.')
    .map((segment) => `[${segment}]`)
    .join('')}`

/** The documents of a REST answer: a list's docs, or the document itself. */
const docsOf = (body: unknown): unknown[] => {
  if (!body || typeof body !== 'object') return []
  const docs = (body as { docs?: unknown }).docs
  if (Array.isArray(docs)) return docs
  return 'id' in body ? [body] : []
}

/** The answer reveals nothing: none of the tokens in the body, and the field absent from every document. */
const expectNoLeak = (
  label: string,
  response: ApiResponse | { status?: number; body: unknown },
  rule: FieldReadRule,
  rows: ProbedRow[],
  docs: unknown[] = docsOf(response.body),
) => {
  const text = JSON.stringify(response.body)
  for (const row of rows)
    for (const secret of row.tokens)
      expect(
        text.includes(secret),
        `${label}: the planted value of ${rule.collection}.${rule.path} is in the response: ${text.slice(0, Number(process.env.FIELD_READ_SHOW ?? 300))}`,
      ).toBe(false)
  for (const doc of docs.filter((one) => one !== undefined && one !== null)) {
    // A refused field is left out; Payload leaves a refused array (or a group in GraphQL) as an empty shell.
    const { values } = valuesAt(doc, rule.path)
    expect(
      values.some(hasContent),
      `${label}: ${rule.collection}.${rule.path} is in a returned document: ${JSON.stringify(doc).slice(0, 300)}`,
    ).toBe(false)
  }
}

/** Two answers that must be the same: status and totalDocs (and the ids, when asked). */
const answerOf = (response: ApiResponse, ids = false) => ({
  status: response.status,
  totalDocs: (response.body as { totalDocs?: number } | null)?.totalDocs ?? null,
  ...(ids ? { ids: docsOf(response.body).map((doc) => (doc as { id: Id }).id) } : {}),
})

const get = (actor: Actor, path: string) => api('GET', path, { as: actor.as })

const probeRows = async (rule: FieldReadRule, c: Case) => {
  const slug = rule.collection
  const [row] = c.rows
  const one = await get(c.actor, `/${slug}/${row!.id}`)
  const list = await get(c.actor, `/${slug}?${query({ 'where[id][equals]': row!.id })}`)
  if (c.visible) {
    expect(
      one.status,
      `${slug} row ${row!.id} must be readable by ${c.actor.name} (else the probes mean nothing): ${JSON.stringify(one.body).slice(0, 200)}`,
    ).toBe(200)
    expect(list.body.totalDocs, `${slug} list for ${c.actor.name}`).toBe(1)
  } else {
    expect([403, 404], `${slug} row ${row!.id} must be hidden from ${c.actor.name} at row level`).toContain(one.status)
    expect(
      list.status === 403 || list.body.totalDocs === 0,
      `${slug} list must hide row ${row!.id} from ${c.actor.name}`,
    ).toBe(true)
  }
  expectNoLeak('by id', one, rule, c.rows)
  expectNoLeak('list', list, rule, c.rows)
  expectNoLeak('by id, depth 2', await get(c.actor, `/${slug}/${row!.id}?depth=2`), rule, c.rows)
  expectNoLeak(
    'list, depth 2',
    await get(c.actor, `/${slug}?${query({ 'where[id][equals]': row!.id, depth: 2 })}`),
    rule,
    c.rows,
  )
  // Exclude-mode selects leave out what the rule may read (Payload merges no forceSelect into them): each
  // other top-level field in turn, the forced ones, and the id; then the forced ones in a list.
  const top = rule.path.split('.')[0]
  const forced = Object.keys((collectionOf(slug) as { forceSelect?: Data }).forceSelect ?? {})
  const others = collectionOf(slug)
    .flattenedFields.filter((field) => field.name !== top && field.type !== 'join')
    .map((field) => field.name)
  for (const excluded of new Set(['id', ...forced, ...others])) {
    expectNoLeak(
      `select[${excluded}]=false`,
      await get(c.actor, `/${slug}/${row!.id}?${selectParam(excluded)}=false`),
      rule,
      c.rows,
    )
  }
  expectNoLeak(
    'list, forced fields excluded',
    await get(
      c.actor,
      `/${slug}?where[id][equals]=${row!.id}&${['id', ...forced].map((name) => `${selectParam(name)}=false`).join('&')}`,
    ),
    rule,
    c.rows,
  )
}

const probeSelect = async (rule: FieldReadRule, c: Case) => {
  const slug = rule.collection
  const ids = c.rows.map((row) => row.id).join(',')
  const paths = [
    ...new Set([
      rule.path,
      ...c.rows[0]!.leaves.map((leaf) =>
        leaf.path
          .split('.')
          .slice(0, rule.path.split('.').length + 1)
          .join('.'),
      ),
    ]),
  ]
  for (const path of paths) {
    expectNoLeak(
      `select ${path} by id`,
      await get(c.actor, `/${slug}/${c.rows[0]!.id}?${selectParam(path)}=true`),
      rule,
      c.rows,
    )
    expectNoLeak(
      `select ${path} list`,
      await get(c.actor, `/${slug}?where[id][in]=${ids}&${selectParam(path)}=true`),
      rule,
      c.rows,
    )
    expectNoLeak(
      `select ${path} list, depth 2`,
      await get(c.actor, `/${slug}?where[id][in]=${ids}&${selectParam(path)}=true&depth=2`),
      rule,
      c.rows,
    )
  }
}

const probeWhere = async (rule: FieldReadRule, c: Case) => {
  const slug = rule.collection
  const ids = c.rows.map((row) => row.id).join(',')
  const [row] = c.rows
  const asks: { label: string; right: string; wrong: string }[] = []
  const scoped = (clause: string) => `where[and][0][id][in]=${ids}&${clause}`
  for (const leaf of row!.leaves) {
    const ops = ['equals', 'not_equals', 'in', ...(leaf.like ? ['like', 'contains'] : [])]
    for (const op of ops) {
      const clause = (value: unknown) => `where[and][1][${leaf.path}][${op}]=${encodeURIComponent(String(value))}`
      asks.push({ label: `${leaf.path} ${op}`, right: scoped(clause(leaf.value)), wrong: scoped(clause(leaf.wrong)) })
    }
    // The attacker's plain form, and nested in or/and.
    asks.push({
      label: `${leaf.path} equals, unscoped`,
      right: `where[${leaf.path}][equals]=${encodeURIComponent(String(leaf.value))}`,
      wrong: `where[${leaf.path}][equals]=${encodeURIComponent(String(leaf.wrong))}`,
    })
    asks.push({
      label: `${leaf.path} in or/and`,
      right: `where[or][0][and][0][id][in]=${ids}&where[or][0][and][1][${leaf.path}][equals]=${encodeURIComponent(String(leaf.value))}`,
      wrong: `where[or][0][and][0][id][in]=${ids}&where[or][0][and][1][${leaf.path}][equals]=${encodeURIComponent(String(leaf.wrong))}`,
    })
  }
  for (const path of new Set([rule.path, ...row!.leaves.map((leaf) => leaf.path)])) {
    asks.push({
      label: `${path} exists`,
      right: scoped(`where[and][1][${path}][exists]=true`),
      wrong: scoped(`where[and][1][${path}][exists]=false`),
    })
  }
  for (const ask of asks) {
    const [right, wrong] = [await get(c.actor, `/${slug}?${ask.right}`), await get(c.actor, `/${slug}?${ask.wrong}`)]
    expect(
      answerOf(right),
      `where ${ask.label} (list) tells a right guess from a wrong one for ${c.actor.name}`,
    ).toEqual(answerOf(wrong))
    expectNoLeak(`where ${ask.label}`, right, rule, c.rows)
    const [countRight, countWrong] = [
      await get(c.actor, `/${slug}/count?${ask.right}`),
      await get(c.actor, `/${slug}/count?${ask.wrong}`),
    ]
    expect(
      answerOf(countRight),
      `where ${ask.label} (count) tells a right guess from a wrong one for ${c.actor.name}`,
    ).toEqual(answerOf(countWrong))
  }
}

const probeSort = async (rule: FieldReadRule, c: Case, probe: { notApplicable: (note: string) => void }) => {
  if (c.rows.length < 2)
    return probe.notApplicable(
      `${c.actor.name} reads one row of ${rule.collection} at most: an order of one row reveals nothing`,
    )
  const ids = c.rows.map((row) => row.id).join(',')
  const paths = new Set([rule.path, ...c.rows[0]!.leaves.filter((leaf) => leaf.sortable).map((leaf) => leaf.path)])
  for (const path of paths) {
    const order = async (sort: string) =>
      answerOf(
        await get(c.actor, `/${rule.collection}?where[id][in]=${ids}&sort=${sort}&${selectParam('id')}=true`),
        true,
      )
    expect(await order(path), `sort=${path} against sort=-${path} for ${c.actor.name}`).toEqual(await order(`-${path}`))
  }
}

const probePopulate = async (rule: FieldReadRule, c: Case, probe: { notApplicable: (note: string) => void }) => {
  const refs = referencesTo(sanitized, rule.collection).filter((ref) => ROWS[ref.collection])
  let probed = 0
  const failures: string[] = []
  const through = new Map<(typeof refs)[number], Id[]>()
  for (const row of c.rows) {
    for (const ref of refs) {
      const source = ROWS[ref.collection]!
      const data = wrapInContainers(
        ref.containers,
        ref.field.name,
        Array.isArray((ref.field as { relationTo?: unknown }).relationTo)
          ? { relationTo: rule.collection, value: row.id }
          : row.id,
      )
      const made = await source
        .make({ slug: ref.collection, actor: c.actor, index: 0, data, kit })
        .catch((error: Error) => {
          failures.push(`${ref.collection}.${ref.path}: ${error.message}`)
          return null
        })
      if (made === null) continue
      const pointed = valuesAt(await observe(ref.collection, made), ref.path).values.some(
        (value) => sameValue(value, row.id) || (value as { value?: unknown })?.value === row.id,
      )
      const readable = (await get(c.actor, `/${ref.collection}/${made}?depth=0`)).status === 200
      if (!pointed || !readable) continue
      probed += 1
      const populated = (body: unknown) =>
        docsOf(body).flatMap((doc) =>
          valuesAt(doc, ref.path).values.map((value) =>
            value && typeof value === 'object' && 'value' in value && 'relationTo' in value
              ? (value as { value: unknown }).value
              : value,
          ),
        )
      for (const path of [
        `/${ref.collection}/${made}?depth=2`,
        `/${ref.collection}?where[id][equals]=${made}&depth=2`,
        `/${ref.collection}/${made}?depth=1&${selectParam(rule.path.split('.')[0]!, `populate[${rule.collection}]`)}=true`,
      ]) {
        const response = await get(c.actor, path)
        expectNoLeak(
          `populate from ${ref.collection}.${ref.path} (${path})`,
          response,
          rule,
          c.rows,
          populated(response.body),
        )
      }
      // A where through the relationship (downloads?where[license.revokedReason][like]=...). Not for a join
      // field: a third hop (licenses?where[user.downloads.id]...) is refused, but Payload 3.90 validates it
      // once more in a promise it never awaits (validateSearchParams.js, pathsToQuery), which only adds an
      // unhandled rejection per request.
      if (Array.isArray((ref.field as { relationTo?: unknown }).relationTo) || rule.field.type === 'join') continue
      for (const leaf of row.leaves) {
        const ask = (value: unknown) =>
          get(
            c.actor,
            `/${ref.collection}?where[and][0][id][equals]=${made}&where[and][1][${ref.path}.${leaf.path}][equals]=${encodeURIComponent(String(value))}`,
          )
        expect(
          answerOf(await ask(leaf.value)),
          `where ${ref.collection}.${ref.path}.${leaf.path} tells a right guess from a wrong one for ${c.actor.name}`,
        ).toEqual(answerOf(await ask(leaf.wrong)))
      }
      const list = through.get(ref) ?? []
      through.set(ref, [...list, made])
    }
  }
  // A sort through the relationship, over rows that point at the two probed rows.
  for (const [ref, made] of through) {
    if (made.length < 2) continue
    for (const path of new Set([
      rule.path,
      ...c.rows[0]!.leaves.filter((leaf) => leaf.sortable).map((leaf) => leaf.path),
    ])) {
      const order = async (sort: string) =>
        answerOf(
          await get(
            c.actor,
            `/${ref.collection}?where[id][in]=${made.join(',')}&sort=${sort}&${selectParam('id')}=true`,
          ),
          true,
        )
      expect(
        await order(`${ref.path}.${path}`),
        `sort=${ref.collection}.${ref.path}.${path} against its reverse for ${c.actor.name}`,
      ).toEqual(await order(`-${ref.path}.${path}`))
    }
  }
  if (probed === 0 && failures.length > 0)
    throw new Error(`could not make a row that points at ${rule.collection}: ${failures.join('; ')}`)
  if (probed === 0)
    probe.notApplicable(`no collection in ROWS gives ${c.actor.name} a row that points at ${rule.collection}`)
}

const probeJoins = async (rule: FieldReadRule, c: Case, probe: { notApplicable: (note: string) => void }) => {
  const joins = joinsTo(sanitized, rule.collection)
  if (joins.length === 0) return probe.notApplicable(`no join field lists ${rule.collection}`)
  for (const join of joins) {
    for (const row of c.rows) {
      const owner = valuesAt(row.doc, join.on).values[0]
      const ownerId = owner && typeof owner === 'object' ? (owner as { id: Id }).id : (owner as Id | undefined)
      if (ownerId === undefined || ownerId === null) continue
      const response = await get(c.actor, `/${join.collection}/${ownerId}?depth=2&joins[${join.name}][limit]=100`)
      const listed = docsOf(response.body).flatMap((doc) =>
        valuesAt(doc, `${join.name}.docs`).values.flatMap((docs) => (Array.isArray(docs) ? docs : [])),
      )
      expectNoLeak(`join ${join.collection}.${join.name}`, response, rule, c.rows, listed)
    }
  }
}

// GraphQL: the collection's query names as Payload makes them, and a selection of the field from the schema.
type GqlType = { kind: string; name: string | null; ofType?: GqlType | null }
type GqlField = { name: string; args: { name: string }[]; type: GqlType }
const gqlTypes = new Map<string, GqlField[] | null>()
const typeFields = async (name: string): Promise<GqlField[] | null> => {
  if (!gqlTypes.has(name)) {
    const deep = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }'
    const result = await graphql(
      `{ __type(name: "${name}") { fields { name args { name } type { ${deep} } } } }`,
      shared.admin.as,
    )
    gqlTypes.set(name, (result.data as unknown as { __type?: { fields: GqlField[] } | null })?.__type?.fields ?? null)
  }
  return gqlTypes.get(name)!
}
const named = (type: GqlType): GqlType =>
  type.ofType && (type.kind === 'NON_NULL' || type.kind === 'LIST') ? named(type.ofType) : type
const selectionOf = async (field: GqlField, depth: number): Promise<string | null> => {
  const type = named(field.type)
  if (type.kind === 'SCALAR' || type.kind === 'ENUM') return field.name
  if (depth === 0 || !type.name) return null
  if (type.kind === 'UNION') return `${field.name} { __typename }`
  const inner = (await typeFields(type.name)) ?? []
  const parts = (
    await Promise.all(inner.filter((f) => f.args.length === 0).map((f) => selectionOf(f, depth - 1)))
  ).filter(Boolean)
  return parts.length ? `${field.name} { ${parts.join(' ')} }` : `${field.name} { __typename }`
}
const gqlNames = (collection: SanitizedCollectionConfig) => {
  const settings = (collection.graphQL || {}) as { singularName?: string; pluralName?: string }
  const fromSlug = formatNames(collection.slug)
  const singular = settings.singularName ? toWords(settings.singularName, true) : fromSlug.singular
  const plural = settings.pluralName ? toWords(settings.pluralName, true) : fromSlug.plural
  return { singular, plural: singular === plural ? `all${singular}` : plural }
}

const probeGraphQL = async (rule: FieldReadRule, c: Case, probe: { notApplicable: (note: string) => void }) => {
  const collection = collectionOf(rule.collection)
  if (collection.graphQL === false) return probe.notApplicable(`${rule.collection} has no GraphQL`)
  const { singular, plural } = gqlNames(collection)
  const top = rule.path.split('.')[0]!
  const field = ((await typeFields(singular)) ?? []).find((f) => f.name === top)
  // Not in the schema (a hidden field): GraphQL cannot ask for it; the id query still runs.
  const selection = field ? await selectionOf(field, 3) : null
  const pick = `id ${selection ?? ''}`
  const ids = c.rows.map((row) => row.id)
  for (const select of ['', 'select: true, ']) {
    const where = `{ OR: [${ids.map((id) => `{ id: { equals: ${id} } }`).join(', ')}] }`
    const list = await graphql(`{ ${plural}(${select}where: ${where}) { docs { ${pick} } } }`, c.actor.as)
    const byId = await graphql(`{ ${singular}(${select}id: ${ids[0]}) { ${pick} } }`, c.actor.as)
    const listDocs = (list.data?.[plural] as { docs?: unknown[] } | null)?.docs ?? []
    const oneDoc = (byId.data as Record<string, unknown> | undefined)?.[singular]
    for (const [label, result, docs] of [
      [`GraphQL ${plural}(${select})`, list, listDocs],
      [`GraphQL ${singular}(${select})`, byId, oneDoc ? [oneDoc] : []],
    ] as const) {
      const text = JSON.stringify(result)
      for (const row of c.rows)
        for (const secret of row.tokens)
          expect(
            text.includes(secret),
            `${label}: the planted value of ${rule.collection}.${rule.path} is in ${text.slice(0, 300)}`,
          ).toBe(false)
      for (const doc of docs) {
        const { values } = valuesAt(doc, rule.path)
        expect(
          values.some(hasContent),
          `${label}: ${rule.collection}.${rule.path} has a value for ${c.actor.name}: ${JSON.stringify(doc).slice(0, 200)}`,
        ).toBe(false)
      }
    }
    if (c.visible)
      expect(
        listDocs.length,
        `GraphQL ${plural}: ${c.actor.name} reads the rows at row level: ${JSON.stringify(list).slice(0, 400)}`,
      ).toBeGreaterThan(0)
  }
}

const probeVersions = async (rule: FieldReadRule, c: Case, probe: { notApplicable: (note: string) => void }) => {
  const collection = collectionOf(rule.collection)
  if (!collection.versions) return probe.notApplicable(`${rule.collection} keeps no versions`)
  const slug = rule.collection
  for (const row of c.rows) {
    const versionDocs = (body: unknown) => docsOf(body).map((doc) => (doc as { version?: unknown }).version)
    for (const path of [
      `/${slug}/versions?where[parent][equals]=${row.id}&depth=2`,
      `/${slug}/versions?where[parent][equals]=${row.id}&${selectParam(`version.${rule.path}`)}=true`,
    ]) {
      const response = await get(c.actor, path)
      expectNoLeak(`versions ${path}`, response, rule, c.rows, versionDocs(response.body))
    }
    const { docs } = await payload().findVersions({
      collection: slug as never,
      where: { parent: { equals: row.id } },
      overrideAccess: true,
      limit: 1,
      depth: 0,
    })
    if (docs[0]) {
      const response = await get(c.actor, `/${slug}/versions/${docs[0].id}`)
      expectNoLeak('version by id', response, rule, c.rows, [(response.body as { version?: unknown } | null)?.version])
    }
    for (const leaf of row.leaves) {
      const ask = (value: unknown) =>
        get(
          c.actor,
          `/${slug}/versions?where[parent][equals]=${row.id}&where[version.${leaf.path}][equals]=${encodeURIComponent(String(value))}`,
        )
      expect(answerOf(await ask(leaf.value)), `versions where version.${leaf.path}`).toEqual(
        answerOf(await ask(leaf.wrong)),
      )
    }
    if (collection.versions && typeof collection.versions === 'object' && collection.versions.drafts) {
      expectNoLeak('draft by id', await get(c.actor, `/${slug}/${row.id}?draft=true&depth=2`), rule, c.rows)
      expectNoLeak(
        'draft list, select',
        await get(c.actor, `/${slug}?draft=true&where[id][equals]=${row.id}&${selectParam(rule.path)}=true`),
        rule,
        c.rows,
      )
      for (const leaf of row.leaves) {
        const ask = (value: unknown) =>
          get(
            c.actor,
            `/${slug}?draft=true&where[id][equals]=${row.id}&where[${leaf.path}][equals]=${encodeURIComponent(String(value))}`,
          )
        expect(answerOf(await ask(leaf.value)), `draft where ${leaf.path}`).toEqual(answerOf(await ask(leaf.wrong)))
      }
    }
  }
}

/** Where the rule lets the actor read the field: the actor does read the planted value. */
const expectEntitledRead = async (rule: FieldReadRule, c: Case) => {
  const response = await get(c.actor, `/${rule.collection}/${c.rows[0]!.id}`)
  expect(response.status).toBe(200)
  if ((rule.field as { hidden?: boolean }).hidden) return
  expect(
    valuesAt(response.body, rule.path).values.some(hasContent),
    `${c.actor.name} may read ${rule.collection}.${rule.path} (its rule says so) but REST leaves it out`,
  ).toBe(true)
  const text = JSON.stringify(response.body)
  for (const secret of c.rows[0]!.tokens) expect(text, `${c.actor.name} reads the planted value`).toContain(secret)
}

// --- the generated tests --------------------------------------------------------------------------

beforeAll(async () => {
  await seedPlansWithoutProcessor(payload())
  const [support, admin] = await Promise.all([createUser(payload(), 'support'), createUser(payload(), 'admin')])
  shared.support = actorOf('support', support)
  // An admin (staff): reads rows whole for the test itself (joins included) and introspects GraphQL.
  shared.admin = actorOf('support', admin)
})

/** The field rules the walker must find (it cannot silently find nothing). */
const KNOWN_RULES = [
  'posts.body',
  'posts.source',
  'changelog_entries.source',
  'changelog_entries.release',
  'licenses.revokedReason',
  'licenses.revokedBy',
  'licenses.overrideReason',
  'repo_access.lastError',
  'media.sourceHash',
  'api_keys.keyHash',
  'api_keys.user',
  'templates.filename',
  'templates.downloadCount',
  'users.sessions',
  'users.licenses',
  'users.discordLink',
  'users.communityGrants',
  'plans.discordRoleId',
  'community_grants.lastError',
]

describe('the walker', () => {
  it('visits every collection of the running config, Payload’s own included', () => {
    const walked = walk.visited.map((entry) => entry.collection)
    expect(walked).toEqual(payload().config.collections.map((collection) => collection.slug))
    for (const own of [
      'users',
      'payload-preferences',
      'payload-jobs',
      'payload-locked-documents',
      'payload-migrations',
      'payload-kv',
    ])
      expect(walked).toContain(own)
    expect(walk.visited.every((entry) => entry.fields > 0)).toBe(true)
  })

  it('finds the known field read rules, and the same ones in the running config', () => {
    const found = walk.rules.map((rule) => `${rule.collection}.${rule.path}`)
    for (const known of KNOWN_RULES) expect(found, `the walker misses ${known}`).toContain(known)
    expect(findFieldReadRules(payload().config).rules.map((rule) => `${rule.collection}.${rule.path}`)).toEqual(found)
  })

  it('has a ROWS entry for every collection with a field read rule', () => {
    const missing = [...new Set(walk.rules.map((rule) => rule.collection))].filter((slug) => !ROWS[slug])
    expect(missing, `add a line to ROWS in tests/int/access-field-read.test.ts for: ${missing.join(', ')}`).toEqual([])
  })

  it('posts load what the premium body rule reads with any select (forceSelect)', () => {
    expect((payload().collections.posts.config as { forceSelect?: Data }).forceSelect).toEqual({
      requiredFeature: true,
    })
  })
})

const PROBES = {
  'rows: by id, list, depth 2 and exclude-mode selects': probeRows,
  'select[field]': probeSelect,
  'where: a right guess answers as a wrong one (list, count, or/and)': probeWhere,
  'sort=field and sort=-field give the same order': probeSort,
  'populate (depth=2, populate[...]), where and sort through a relationship from related collections': probePopulate,
  'joins that list the row': probeJoins,
  'GraphQL list and by id (with and without select)': probeGraphQL,
  'drafts and versions': probeVersions,
} as const

// FIELD_READ_ONLY=posts.body (a prefix of collection.path) runs the cases of matching fields only, when working on one.
const only = process.env.FIELD_READ_ONLY
for (const rule of walk.rules.filter((one) => !only || `${one.collection}.${one.path}`.startsWith(only))) {
  describe(`${rule.collection}.${rule.path} (${rule.field.type}, read rule)`, () => {
    if (!ROWS[rule.collection]) {
      it('has a row registry entry', () => {
        throw new Error(
          `${rule.collection}.${rule.path} has a field read rule but ROWS in tests/int/access-field-read.test.ts has no entry for ${rule.collection}: add one line saying how to make a row each actor reads`,
        )
      })
      return
    }
    const cases = new Map<ActorName, Case>()
    beforeAll(async () => {
      const actors = await freshActors()
      const staffRows = async () =>
        [await plantRow(rule, actors.support, 0), await plantRow(rule, actors.support, 1)].filter(
          (row): row is ProbedRow => row !== null,
        )
      let hidden: ProbedRow[] | null = null
      for (const name of ACTORS) {
        const actor = actors[name]
        const own = [await plantRow(rule, actor, 0)]
        if (own[0]) own.push(await plantRow(rule, actor, 1))
        let rows = own.filter((row): row is ProbedRow => row !== null)
        let visible = rows.length > 0
        const topName = rule.containers[0]?.name ?? rule.field.name
        if (visible && !actor.staff && (ROWS[rule.collection]!.hiddenWhenSet ?? []).includes(topName)) visible = false
        if (ROWS[rule.collection]!.adminsOnly) visible = false
        if (rows.length === 0) rows = hidden ??= await staffRows()
        const entitled = visible && (await ruleAllows(rule, actor, rows[0]!.doc))
        cases.set(name, { actor, rows, visible, entitled })
      }
    }, 300_000)

    for (const name of ACTORS) {
      // One test per field and actor: which probes apply is known only once the rows exist, so a probe
      // that does not apply (one row to sort, nothing relates to the collection, no versions) is noted
      // on the test rather than reported as a skipped test.
      it(`${name}: the planted value is stored, the rule given the whole row decides, and no read around it reveals the value`, async (context) => {
        const c = cases.get(name)!
        expect(c.rows.length).toBeGreaterThan(0)
        const unplantable = ROWS[rule.collection]!.unplantable?.[rule.path]
        if (unplantable) await context.annotate(`nothing can be planted in ${rule.path}: ${unplantable}`)
        for (const row of unplantable ? [] : c.rows) {
          const stored = valuesAt(row.doc, rule.path).values.some(hasContent)
          expect(
            stored,
            `${rule.collection}.${rule.path}: nothing planted in row ${row.id} (staff read ${JSON.stringify(row.doc).slice(0, 300)})`,
          ).toBe(true)
        }
        if (c.entitled) {
          await context.annotate(`${name} may read ${rule.collection}.${rule.path}: checked that it does`)
          if (!unplantable) await expectEntitledRead(rule, c)
          return
        }
        const notApplicable: string[] = []
        const probeContext = { notApplicable: (note: string) => void notApplicable.push(note) }
        for (const [label, probe] of Object.entries(PROBES)) {
          try {
            await probe(rule, c, probeContext)
          } catch (error) {
            if (error instanceof Error) error.message = `${label}: ${error.message}`
            throw error
          }
        }
        if (notApplicable.length > 0) await context.annotate(`not applicable: ${notApplicable.join('; ')}`)
      }, 600_000)
    }
  })
}
