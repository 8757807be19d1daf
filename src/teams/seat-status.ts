/** A seat's life: assigned and its link sent (`pending`), taken by the member (`claimed`), ended (`revoked`). */
export const SEAT_STATUSES = ['pending', 'claimed', 'revoked'] as const
export type SeatStatus = (typeof SEAT_STATUSES)[number]

/** Who ended an activation: the key's holder through the API, the owner in the dashboard, or staff. */
export const DEACTIVATED_BY = ['key', 'owner', 'staff'] as const
export type DeactivatedBy = (typeof DEACTIVATED_BY)[number]
