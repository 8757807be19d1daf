import type { PayloadRequest } from 'payload'
import type Stripe from 'stripe'

import type { BillingSettings } from '../purchases'

/** The processor event of one of these types: `event.data.object` is typed by the type. */
export type EventOf<Type extends Stripe.Event['type']> = Extract<Stripe.Event, { type: Type }>

type HandlerContext<Type extends Stripe.Event['type']> = {
  req: PayloadRequest
  event: EventOf<Type>
  settings: BillingSettings
}

/**
 * One handler per event type (or per family of types handled alike). `load` reads the current objects
 * from the processor before the transaction opens (the event's copy may be stale, and no network call
 * should hold a transaction); `apply` writes every effect through `req`, inside the event's one
 * transaction.
 */
export type EventHandler<Type extends Stripe.Event['type'], Loaded> = {
  load: (processor: Stripe, event: EventOf<Type>) => Promise<Loaded>
  apply: (context: HandlerContext<Type>, loaded: Loaded) => Promise<void>
}

/** What the transaction of a loaded event runs. */
type ApplyEvent = (context: { req: PayloadRequest; settings: BillingSettings }) => Promise<void>

/** A handler as the registry holds it: `load` reads, and answers what the transaction applies. */
export type RegisteredHandler = {
  types: readonly Stripe.Event['type'][]
  load: (processor: Stripe, event: Stripe.Event) => Promise<ApplyEvent>
}

const isOneOf = <Type extends Stripe.Event['type']>(
  event: Stripe.Event,
  types: readonly Type[],
): event is EventOf<Type> => {
  const names: readonly string[] = types
  return names.includes(event.type)
}

/** The handler of these event types, for the registry (./events/index.ts). */
export const defineHandler = <Type extends Stripe.Event['type'], Loaded>(
  types: readonly Type[],
  handler: EventHandler<Type, Loaded>,
): RegisteredHandler => ({
  types,
  load: async (processor, event) => {
    if (!isOneOf(event, types)) throw new Error(`no handler here for ${event.type}`)
    const loaded = await handler.load(processor, event)
    return ({ req, settings }) => handler.apply({ req, event, settings }, loaded)
  },
})
