import { track } from '../../../analytics/track'
import { relationId } from '../../../db/relations'
import { defineHandler } from '../define'
import { applySubscription, loadSubscription } from '../steps'

/** A subscription started, changed (status, cancellation, plan) or ended: its row and license follow its current state. */
export const customerSubscription = defineHandler(
  ['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted'],
  {
    load: (processor, event) => loadSubscription(processor, event.data.object.id),
    apply: async (context, loaded) => {
      const { previous, subscription } = await applySubscription(context, loaded)
      if (context.event.type === 'customer.subscription.updated' && previous) {
        await track(context.req, {
          name: 'subscription_updated',
          userId: relationId(subscription.user),
          email: subscription.email,
          properties: { status: subscription.status, cancelAtPeriodEnd: subscription.cancelAtPeriodEnd },
          sourceId: context.event.id,
        })
      }
    },
  },
)
