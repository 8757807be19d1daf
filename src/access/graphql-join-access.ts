import type { GraphQLFieldResolver } from 'graphql'
import type { Config, FieldAccess, GraphQLExtension, PayloadRequest } from 'payload'

type JoinResolver = GraphQLFieldResolver<Record<string, unknown>, { req: PayloadRequest }>

// PATCH: graphql-join-access
/**
 * Payload's GraphQL resolves a join field with a query of its own (overrideAccess: false on the joined
 * collection) and never consults the join field's own read access, which REST applies. This wraps
 * the resolver of every top-level join field that has `access.read`: when it refuses, the answer is
 * null and no query runs (a customer never gets the customer view's joins, even on their own user).
 */
const guardJoins: GraphQLExtension = (_graphQL, { collections }) => {
  for (const collection of Object.values(collections)) {
    const type = collection.graphQL?.type
    if (!type) continue
    const fields = type.getFields()
    for (const field of collection.config.flattenedFields) {
      const read: FieldAccess | undefined = field.type === 'join' ? field.access?.read : undefined
      const target = fields[field.name]
      if (!read || !target?.resolve) continue
      const resolve = target.resolve as JoinResolver
      const guarded: JoinResolver = async (parent, args, context, info) => {
        const allowed = await read({ req: context.req, doc: parent, id: parent.id as number | string | undefined })
        return allowed ? resolve(parent, args, context, info) : null
      }
      target.resolve = guarded
    }
  }
  return {}
}

/** The config's GraphQL settings with the guard added to its queries extension (keeping any other). */
export const graphQLWithJoinAccess = (graphQL: Config['graphQL']): NonNullable<Config['graphQL']> => {
  const queries = graphQL?.queries
  return {
    ...graphQL,
    queries: (library, context) => ({ ...guardJoins(library, context), ...(queries ? queries(library, context) : {}) }),
  }
}
