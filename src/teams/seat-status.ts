/** A seat's life: assigned and its link sent (`pending`), taken by the member (`claimed`), ended (`revoked`). */
export const SEAT_STATUSES = ['pending', 'claimed', 'revoked'] as const
export type SeatStatus = (typeof SEAT_STATUSES)[number]
