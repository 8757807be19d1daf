import { recordExpiredCheckout } from '../../../recovery/record'
import { DEFAULT_RECOVERY } from '../../../recovery/states'
import { defineHandler } from '../define'

/**
 * A checkout the buyer left until the processor expired it (docs/CHECKOUT_RECOVERY.md): recorded once,
 * with the recovery email due later when the buyer consented. An expired checkout is final, so the
 * event's own copy is read as it is (it carries the recovery link and the consent).
 */
export const checkoutExpired = defineHandler(['checkout.session.expired'], {
  load: (_processor, event) => Promise.resolve(event.data.object),
  apply: async ({ req, event, settings }, session) => {
    await recordExpiredCheckout(req, session, {
      settings: settings.recovery ?? DEFAULT_RECOVERY,
      expiredAt: new Date(event.created * 1000),
    })
  },
})
