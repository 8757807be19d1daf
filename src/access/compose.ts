import type { Access, AccessArgs, AccessResult, Where } from 'payload'

/**
 * Combine access rules. `or` grants when any rule grants; row filters (`Where`) are OR-ed.
 * `and` grants when every rule grants; row filters are AND-ed.
 */
export const or =
  (...rules: Access[]): Access =>
  async (args: AccessArgs) => {
    const filters: Where[] = []
    for (const rule of rules) {
      const result: AccessResult = await rule(args)
      if (result === true) return true
      if (result && typeof result === 'object') filters.push(result)
    }
    if (filters.length === 0) return false
    return filters.length === 1 ? (filters[0] as Where) : { or: filters }
  }

export const and =
  (...rules: Access[]): Access =>
  async (args: AccessArgs) => {
    const filters: Where[] = []
    for (const rule of rules) {
      const result: AccessResult = await rule(args)
      if (!result) return false
      if (typeof result === 'object') filters.push(result)
    }
    if (filters.length === 0) return true
    return filters.length === 1 ? (filters[0] as Where) : { and: filters }
  }

/** Rows whose `field` is the signed-in user. */
export const ownRows =
  (field: string): Access =>
  ({ req }) =>
    req.user ? { [field]: { equals: req.user.id } } : false
