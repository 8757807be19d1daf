import { track } from '../../../analytics/track'
import { relationId } from '../../../db/relations'
import type { DisputeState } from '../../../licensing/status'
import { idOf } from '../../processor'
import { defineHandler } from '../define'
import { applyChargeChanges, loadChargeOwner } from '../steps'

/** A closed dispute's outcome; any other status is still open. */
const DISPUTE_STATES: Record<string, DisputeState> = {
  won: 'won',
  warning_closed: 'won',
  prevented: 'won',
  lost: 'lost',
}

/** A chargeback opened or closed: it suspends, restores or revokes what its charge paid for. */
export const chargeDispute = defineHandler(['charge.dispute.created', 'charge.dispute.closed'], {
  load: async (processor, event) => {
    const dispute = await processor.disputes.retrieve(event.data.object.id)
    const charge = await processor.charges.retrieve(idOf(dispute.charge)!)
    return { dispute, payment: await loadChargeOwner(processor, charge) }
  },
  apply: async (context, { dispute, payment }) => {
    if (!payment) return
    const disputeStatus = DISPUTE_STATES[dispute.status] ?? 'open'
    const { owner, source } = await applyChargeChanges(context, payment, { disputeStatus })
    await track(context.req, {
      name: `dispute_${disputeStatus === 'open' ? 'opened' : disputeStatus}`,
      userId: relationId(owner.user),
      email: owner.email ?? null,
      // The currency and charge: the insights sum disputes by currency (docs/INSIGHTS.md).
      properties: {
        disputeId: dispute.id,
        reason: dispute.reason,
        amount: dispute.amount,
        currency: dispute.currency,
        chargeId: idOf(dispute.charge),
        ...source,
      },
      sourceId: dispute.id,
      occurredAt: new Date(context.event.created * 1000),
    })
  },
})
