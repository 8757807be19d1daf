import { GRAPHQL_POST } from '@payloadcms/next/routes'
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  Kind,
  parse,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql'
import { getPayload, type SanitizedConfig } from 'payload'
import { RateLimiterRes } from 'rate-limiter-flexible'

import { clientAddress } from '../http/client-address'
import { addressBucket } from '../http/ip-address'
import { staffSessionCheck } from '../http/staff-session'
import { limiterOf } from './rate-limit'

/**
 * What one GraphQL request may ask of the server, for anonymous visitors and customers (staff keep
 * Payload's own bounds). Payload bounds a query's complexity (1,000 by default) but counts a list of 100
 * documents as one field, so 200 aliases of `Plans(limit: 100)` passed and held the one Node process
 * for seconds. Sized to what is sent: the site's pages and the admin send no GraphQL at all; of the
 * project's tests' 663 queries the largest has 3 top-level fields, nests 8 levels and costs 11,451 (a
 * probe of every field of a user's joined licenses); the standard introspection query nests 15 levels,
 * costs 220 and stays allowed. tests/int/graphql-limits.test.ts checks both.
 */
export const GRAPHQL_LIMITS = {
  /** Tokens in the document: the parser stops past this, so a huge document costs no more than a small one. */
  maxTokens: 5_000,
  /** Operations in one document (only one of them runs; the rest are still parsed and validated). */
  maxOperations: 1,
  /** Top-level fields of the operation, aliases included: each is at least one database query. */
  maxRootFields: 8,
  /** Nesting of selections. */
  maxDepth: 16,
  /** The estimated cost below: fields, each list's fields counted once per document it may return. */
  maxCost: 20_000,
} as const

/** How many documents a paginated list returns when the query does not say (Payload's default `limit`). */
const DEFAULT_LIMIT = 10
/** What an unbounded list (`limit: 0`, `pagination: false`) is counted as: more than any bound allows. */
const UNBOUNDED = 10_000

export type GraphQLMeasure = { operations: number; rootFields: number; depth: number; cost: number }

type Variables = Record<string, unknown>

const argumentValue = (value: ValueNode, variables: Variables): unknown => {
  if (value.kind === Kind.VARIABLE) return variables[value.name.value]
  if (value.kind === Kind.INT) return Number(value.value)
  if (value.kind === Kind.BOOLEAN) return value.value
  return undefined
}

/**
 * How many documents a field's `docs` may hold: its `limit` (a literal or a variable; Payload's default
 * when absent), or UNBOUNDED for `limit: 0` or `pagination: false`.
 */
const documentsOf = (field: FieldNode, variables: Variables): number => {
  const args = Object.fromEntries(
    (field.arguments ?? []).map((arg) => [arg.name.value, argumentValue(arg.value, variables)]),
  )
  if (args.pagination === false) return UNBOUNDED
  const limit = args.limit
  if (limit === undefined || limit === null) return DEFAULT_LIMIT
  return typeof limit === 'number' && Number.isFinite(limit) && limit > 0 ? Math.min(limit, UNBOUNDED) : UNBOUNDED
}

/**
 * The operations, top-level fields, depth and cost of a document, from its text alone (no schema):
 * every field costs 1, and the fields under a paginated list's `docs` count once per document the list
 * may return. Fragments are expanded where they are spread (each at most once per path, so a cycle ends).
 */
export const measureGraphQL = (document: DocumentNode, variables: Variables = {}): GraphQLMeasure => {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition)
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION)

  /** Each field of a selection set, fragments expanded. */
  const fieldsOf = (set: SelectionSetNode, seen: Set<string>): { field: FieldNode; seen: Set<string> }[] =>
    set.selections.flatMap((selection) => {
      if (selection.kind === Kind.FIELD) return [{ field: selection, seen }]
      if (selection.kind === Kind.INLINE_FRAGMENT) return fieldsOf(selection.selectionSet, seen)
      const name = selection.name.value
      const fragment = fragments.get(name)
      if (!fragment || seen.has(name)) return []
      return fieldsOf(fragment.selectionSet, new Set([...seen, name]))
    })

  let depth = 0
  /** `listSize`: how many documents the field owning this set returns under `docs`, when it is a paginated list. */
  const costOf = (set: SelectionSetNode, level: number, seen: Set<string>, listSize: number): number => {
    depth = Math.max(depth, level)
    let cost = 0
    for (const { field, seen: path } of fieldsOf(set, seen)) {
      const inner = field.selectionSet ? costOf(field.selectionSet, level + 1, path, documentsOf(field, variables)) : 0
      cost += (field.name.value === 'docs' ? listSize : 1) * (1 + inner)
    }
    return cost
  }

  let rootFields = 0
  let cost = 0
  for (const operation of operations) {
    const roots = fieldsOf(operation.selectionSet, new Set())
    rootFields = Math.max(rootFields, roots.length)
    cost = Math.max(cost, costOf(operation.selectionSet, 1, new Set(), 1))
  }
  return { operations: operations.length, rootFields, depth, cost }
}

/** Why a measured document is refused, or null when it is within GRAPHQL_LIMITS. */
const refusalOf = (measure: GraphQLMeasure): string | null => {
  const limits = GRAPHQL_LIMITS
  if (measure.operations > limits.maxOperations)
    return `This document holds ${measure.operations} operations; send one operation per request.`
  if (measure.rootFields > limits.maxRootFields) {
    return `This query asks for ${measure.rootFields} top-level fields (aliases included); at most ${limits.maxRootFields} are allowed in one request.`
  }
  if (measure.depth > limits.maxDepth)
    return `This query nests ${measure.depth} levels deep; at most ${limits.maxDepth} are allowed.`
  if (measure.cost > limits.maxCost) {
    return `This query may return too much (estimated cost ${measure.cost}, at most ${limits.maxCost}): ask for fewer documents (limit) or fewer fields.`
  }
  return null
}

const graphQLError = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  Response.json(
    { errors: [{ message, extensions: { code } }] },
    { status, headers: { 'Cache-Control': 'no-store', ...headers } },
  )

/** The request's GraphQL document, or null when the body is not one (Payload's handler then refuses it itself). */
const documentOf = async (request: Request): Promise<{ query: string; variables: Variables } | null> => {
  try {
    const body = (await request.clone().json()) as { query?: unknown; variables?: unknown }
    if (typeof body?.query !== 'string') return null
    const variables = body.variables && typeof body.variables === 'object' ? (body.variables as Variables) : {}
    return { query: body.query, variables }
  } catch {
    return null
  }
}

/**
 * POST /api/graphql: Payload's handler behind bounds for everyone but staff (a valid staff session,
 * checked on its signature without a database read). In order, each before any database work of the
 * query: the document is parsed with at most GRAPHQL_LIMITS.maxTokens tokens and measured (400
 * `query_too_complex`), then the client address is counted against `graphql:ip` (429 `rate_limited`),
 * shared by every instance through the rate-limit table.
 */
export const guardedGraphQLPost = (config: Promise<SanitizedConfig> | SanitizedConfig) => {
  const handler = GRAPHQL_POST(config)
  let staffSession: ((headers: { authorization?: string; cookie?: string }) => Promise<boolean>) | null = null
  return async (request: Request): Promise<Response> => {
    const payload = await getPayload({ config })
    // The raw secret: staffSessionCheck derives Payload's signing key from it (payload.secret is already derived).
    staffSession ??= staffSessionCheck(payload.config.secret)
    const isStaff = await staffSession({
      authorization: request.headers.get('authorization') ?? undefined,
      cookie: request.headers.get('cookie') ?? undefined,
    })
    if (!isStaff) {
      const sent = await documentOf(request)
      if (sent) {
        let document: DocumentNode | null = null
        try {
          document = parse(sent.query, { maxTokens: GRAPHQL_LIMITS.maxTokens, noLocation: true })
        } catch (error) {
          // A syntax error is Payload's handler's to answer; a document past the token limit is ours.
          if (error instanceof Error && /Document contains more th(?:at|an) \d+ tokens/.test(error.message)) {
            return graphQLError(
              400,
              'query_too_complex',
              `This document is too long: at most ${GRAPHQL_LIMITS.maxTokens} tokens are allowed.`,
            )
          }
        }
        const refusal = document ? refusalOf(measureGraphQL(document, sent.variables)) : null
        if (refusal) return graphQLError(400, 'query_too_complex', refusal)
      }
      try {
        await limiterOf(payload, 'graphql:ip').consume(addressBucket(clientAddress(request.headers)))
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error
        const retryAfter = Math.max(1, Math.ceil(error.msBeforeNext / 1000))
        return graphQLError(429, 'rate_limited', `Too many GraphQL requests. Try again in ${retryAfter} seconds.`, {
          'Retry-After': String(retryAfter),
        })
      }
    }
    return handler(request)
  }
}
