import type {
  CollectionBeforeOperationHook,
  FieldAccess,
  FieldAccessArgs,
  SelectIncludeType,
  SelectType,
} from 'payload'
import { getSelectMode } from 'payload/shared'

import { isStaffUser } from './roles'

/**
 * A field read rule whose answer depends on other fields of the document (a premium body on the
 * post's `requiredFeature`, ...). Payload runs field read rules in places where those fields are
 * missing, and a rule that then falls back to "allow" leaks the field:
 *
 * - REST, GraphQL (`select: true`) and the Local API read with `select`: only the selected columns
 *   are loaded, so `?select[body]=true` hands the rule a document without `requiredFeature`. The
 *   collection's `forceSelect` (see `forceSelectOf`) adds them to every include-mode select.
 * - Payload leaves an exclude-mode select (`?select[requiredFeature]=false`) as it is, and the
 *   PostgreSQL adapter then hands the rule `requiredFeature: null` (read as "not premium"): the
 *   collection's `keepForcedFields` hook takes the forced fields out of such a select first.
 * - A `where` or `sort` on the field (REST, GraphQL, count, versions) is checked with permissions
 *   computed without any document (Payload's validateQueryPaths: getEntityPermissions with
 *   fetchData false): a rule that allowed there would let anyone filter on the field's content and
 *   read it out one guess at a time.
 * - `/api/access` and `/api/<collection>/access` describe the permissions without a document.
 *
 * So: staff always read; without a document, or with a document that lacks any field the rule
 * reads, everyone else is refused; otherwise `decide` answers with the whole document.
 */
export type DocumentFieldRead<Doc extends Record<string, unknown>> = FieldAccess & {
  readonly reads: readonly (keyof Doc & string)[]
}

export const documentFieldRead = <Doc extends Record<string, unknown>>(
  reads: readonly (keyof Doc & string)[],
  decide: (args: Omit<FieldAccessArgs, 'doc'> & { doc: Doc }) => boolean | Promise<boolean>,
): DocumentFieldRead<Doc> => {
  const rule: FieldAccess = async (args) => {
    if (isStaffUser(args.req.user)) return true
    const doc = args.doc as Record<string, unknown> | undefined
    if (!doc || typeof doc !== 'object') return false
    // `null` is a value the rule can decide on; an absent key means the field was not loaded.
    if (!reads.every((name) => Object.prototype.hasOwnProperty.call(doc, name))) return false
    return (await decide({ ...args, doc: doc as Doc })) === true
  }
  return Object.assign(rule, { reads })
}

/**
 * The `forceSelect` of a collection whose field rules are `documentFieldRead`s: every field they
 * read is loaded by every find and findByID (and the versions' reads), whatever the caller selects.
 */
export const forceSelectOf = (...rules: { reads: readonly string[] }[]): SelectIncludeType =>
  Object.fromEntries(rules.flatMap((rule) => rule.reads).map((name) => [name, true] as const))

/** The select without the exclusions of forced paths. */
const withoutForced = (select: SelectType, forced: SelectIncludeType): SelectType => {
  const kept: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(select)) {
    const force = forced[name]
    if (force === true && value === false) continue
    if (force && typeof force === 'object' && value && typeof value === 'object') {
      const nested = withoutForced(value as SelectType, force)
      if (Object.keys(nested).length > 0) kept[name] = nested
      continue
    }
    kept[name] = value
  }
  return kept as SelectType
}

// PATCH: exclude-select
/**
 * `forceSelect` for exclude-mode selects too: Payload merges `forceSelect` only into include-mode
 * selects, so a read that excludes a forced field (`?select[requiredFeature]=false`) would hand the
 * field rules a document without it. This collection hook (beforeOperation, which find, findByID and
 * the versions' reads run before they sanitize the select, for REST, GraphQL, the Local API and
 * relationship population alike) drops the forced fields from such a select (under `version` for
 * the versions); a select left empty reads everything.
 */
export const keepForcedFields =
  (forced: SelectIncludeType): CollectionBeforeOperationHook =>
  ({ args, operation }) => {
    const versions = (operation as string) === 'findVersions' || (operation as string) === 'findVersionByID'
    if (operation !== 'read' && !versions) return args
    const select = (args as { select?: SelectType }).select
    if (!select || typeof select !== 'object' || getSelectMode(select) !== 'exclude') return args
    const kept = withoutForced(select, versions ? { version: forced } : forced)
    return { ...args, select: Object.keys(kept).length > 0 ? kept : undefined }
  }
