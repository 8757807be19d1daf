/** Where a role the service gives stands: being given, given, or refused by Discord (docs/COMMUNITY.md). */
export const GRANT_STATES = ['pending', 'granted', 'failed'] as const

export type GrantState = (typeof GRANT_STATES)[number]
