import type { EventLog, EventRequest } from './events'
import type { State } from './state'

/** What every part of the stand-in works with: one account (test or live mode, by its key). */
export type Processor = {
  state: State
  events: EventLog
  livemode: boolean
  /** Base of the hosted pages' URLs. */
  publicUrl: string
}

/** The API call an action runs for, when it runs for one; its events then name that request. */
export type Origin = { request?: EventRequest }
