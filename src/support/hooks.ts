import type { CollectionAfterChangeHook, CollectionBeforeChangeHook, CollectionBeforeValidateHook, PayloadRequest } from 'payload'
import { ValidationError } from 'payload'

import { isStaffUser } from '../access/roles'
import { relationId } from '../db/relations'
import { ServiceError } from '../http/errors'
import { canAccessFeature } from '../licensing/entitlements'
import type { SupportReply, SupportRequest, User } from '../payload-types'
import type { FeatureKey } from '../plans/features'
import { SEND_SUPPORT_REPLY_TASK } from './jobs'
import { countSupportMessage } from './limits'

/** The feature key that makes a customer's requests high priority. */
export const SUPPORT_FEATURE: FeatureKey = 'support'

const accountOf = (req: PayloadRequest): User | null => (req.user && req.user.collection === 'users' ? (req.user as User) : null)

/** Text is stored trimmed, so a subject or message of spaces only is empty, and refused as missing. */
export const trimText =
  (names: string[], singleLine: string[] = []): CollectionBeforeValidateHook =>
  ({ data }) => {
    if (!data) return data
    const next = { ...data }
    for (const name of names) {
      const value: unknown = next[name]
      if (typeof value === 'string') next[name] = singleLine.includes(name) ? value.replace(/\s+/g, ' ').trim() : value.trim()
    }
    return next
  }

/**
 * A new request: the signed-in user files it for themselves (the service, with no user, names one),
 * it starts open, and its priority comes from the owner's plans: `high` with the `support` key. The
 * body never decides any of them (their fields refuse API input). Customers are rate-limited.
 */
export const fileSupportRequest: CollectionBeforeChangeHook<SupportRequest> = async ({ data, operation, req }) => {
  if (operation !== 'create') return data
  const requester = accountOf(req)
  const owner = requester?.id ?? relationId(data.user)
  if (!owner) throw new ValidationError({ collection: 'support_requests', errors: [{ path: 'user', message: 'A support request needs its customer.' }] }, req.t)
  if (requester && !isStaffUser(requester)) await countSupportMessage(req.payload, 'requests', owner)
  const priority = (await canAccessFeature(req.payload, owner, SUPPORT_FEATURE, req)) ? 'high' : 'normal'
  return { ...data, user: owner, priority, status: 'open' }
}

const notFound = () => new ServiceError(404, 'support_request_not_found', 'There is no such support request.')

/**
 * A reply joins a request: staff answer any request; a customer adds a follow-up to their own request
 * while it is not closed (someone else's answers 404, as an unknown one does). Author, customer and
 * `fromStaff` come from the request and the session, never from the body.
 */
export const checkSupportReply: CollectionBeforeChangeHook<SupportReply> = async ({ data, operation, req }) => {
  if (operation !== 'create') return data
  const requester = accountOf(req)
  const requestId = relationId(data.request)
  if (!requestId) throw notFound()
  const request = await req.payload.findByID({ collection: 'support_requests', id: requestId, depth: 0, req, overrideAccess: true, disableErrors: true })
  if (!request) throw notFound()
  const customer = relationId(request.user)
  const fromStaff = requester ? isStaffUser(requester) : Boolean(data.fromStaff)
  const author = requester?.id ?? relationId(data.author)
  if (!fromStaff) {
    if (!author || author !== customer) throw notFound()
    if (request.status === 'closed') throw new ServiceError(409, 'request_closed', 'This request is closed. File a new one.')
    if (requester) await countSupportMessage(req.payload, 'followUps', author)
  }
  return { ...data, request: request.id, customer, author, fromStaff, emailedAt: null }
}

/**
 * After a reply: a staff answer marks an open request answered and queues its email (in the same
 * transaction, so a rolled-back reply sends nothing); a customer's follow-up reopens an answered one.
 */
export const afterSupportReply: CollectionAfterChangeHook<SupportReply> = async ({ doc, operation, req }) => {
  if (operation !== 'create') return doc
  const requestId = relationId(doc.request)
  if (!requestId) return doc
  const request = await req.payload.findByID({ collection: 'support_requests', id: requestId, depth: 0, req, overrideAccess: true })
  const next = doc.fromStaff ? (request.status === 'open' ? 'answered' : null) : request.status === 'answered' ? 'open' : null
  if (next) await req.payload.update({ collection: 'support_requests', id: requestId, data: { status: next }, depth: 0, req, overrideAccess: true })
  if (doc.fromStaff) await req.payload.jobs.queue({ task: SEND_SUPPORT_REPLY_TASK, input: { replyId: doc.id }, req })
  return doc
}
