/**
 * A plan's update policy, recorded on each license at grant (src/licensing/update-window.ts reads it):
 * `lifetime` (every release), `major` (up to the major version current at grant) or `months`.
 */
export const UPDATE_POLICIES = ['lifetime', 'major', 'months'] as const
export type UpdatePolicy = (typeof UPDATE_POLICIES)[number]
