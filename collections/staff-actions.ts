import type { UIField } from 'payload'

/** The support actions an edit view may offer; each is a POST to its /api/staff/... endpoint (endpoints/staff.ts). */
export type StaffActionKey =
  | 'license.revoke'
  | 'license.restore'
  | 'license.resendEmail'
  | 'repoAccess.resendInvitation'
  | 'apiKey.revoke'
  | 'seat.revoke'
  | 'activation.remove'
  | 'user.scheduleDeletion'
  | 'user.syncCommunity'

/**
 * The support actions' buttons in an edit view's sidebar (src/app/(payload)/_components/StaffActions.tsx).
 * A `ui` field: no column, nothing in the API; the endpoints behind the buttons check staff themselves.
 */
export const staffActionsField = (actions: StaffActionKey[]): UIField => ({
  name: 'staffActions',
  type: 'ui',
  admin: {
    position: 'sidebar',
    components: { Field: { path: '/app/(payload)/_components/StaffActions#StaffActions', clientProps: { actions } } },
  },
})
