import { track } from '../../../analytics/track'
import { relationId } from '../../../db/relations'
import { defineHandler } from '../define'
import { applyChargeChanges, chargeOf, loadChargeOwner } from '../steps'

/** A charge refunded, in part or in full: recorded on what it paid for (a one-time purchase or a subscription's invoice). */
export const chargeRefunded = defineHandler(['charge.refunded'], {
  load: async (processor, event) => loadChargeOwner(processor, await processor.charges.retrieve(event.data.object.id)),
  apply: async (context, loaded) => {
    if (!loaded) return
    const charge = chargeOf(loaded)
    const { owner, amount, source } = await applyChargeChanges(context, loaded, {
      refundedAmount: charge.amount_refunded,
    })
    await track(context.req, {
      name: charge.refunded ? 'refund_full' : 'refund_partial',
      userId: relationId(owner.user),
      email: owner.email ?? null,
      // The currency and the processor's time of the event: the insights count each refund on its own day (docs/INSIGHTS.md).
      properties: { amountRefunded: charge.amount_refunded, amount, currency: charge.currency, ...source },
      sourceId: `${charge.id}:${charge.amount_refunded}`,
      occurredAt: new Date(context.event.created * 1000),
    })
  },
})
