import type { UIField } from 'payload'

import type { StaffActionKey } from '../src/components/StaffActions'

/**
 * The support actions' buttons in an edit view's sidebar (src/components/StaffActions.tsx). A `ui`
 * field: no column, nothing in the API; the endpoints behind the buttons check staff themselves.
 */
export const staffActionsField = (actions: StaffActionKey[]): UIField => ({
  name: 'staffActions',
  type: 'ui',
  admin: {
    position: 'sidebar',
    components: { Field: { path: '/components/StaffActions#StaffActions', clientProps: { actions } } },
  },
})
