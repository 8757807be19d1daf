import type { CollectionAfterChangeHook, CollectionBeforeChangeHook } from 'payload'

import { isStaffUser } from '../src/access/roles'
import { relationId } from '../src/db/relations'
import { accountOf } from '../src/http/account'
import { ServiceError } from '../src/http/errors'
import type { SupportReply } from '../src/payload-types'
import { SEND_SUPPORT_REPLY_TASK } from '../src/support/jobs'
import { countSupportMessage } from '../src/support/limits'

/** The support replies collection's hooks (collections/SupportReplies.ts). */

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
  const request = await req.payload.findByID({
    collection: 'support_requests',
    id: requestId,
    depth: 0,
    req,
    overrideAccess: true,
    disableErrors: true,
  })
  if (!request) throw notFound()
  const customer = relationId(request.user)
  const fromStaff = requester ? isStaffUser(requester) : Boolean(data.fromStaff)
  const author = requester?.id ?? relationId(data.author)
  if (!fromStaff) {
    if (!author || author !== customer) throw notFound()
    if (request.status === 'closed')
      throw new ServiceError(409, 'request_closed', 'This request is closed. File a new one.')
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
  const request = await req.payload.findByID({
    collection: 'support_requests',
    id: requestId,
    depth: 0,
    req,
    overrideAccess: true,
  })
  const next = doc.fromStaff
    ? request.status === 'open'
      ? 'answered'
      : null
    : request.status === 'answered'
      ? 'open'
      : null
  if (next)
    await req.payload.update({
      collection: 'support_requests',
      id: requestId,
      data: { status: next },
      depth: 0,
      req,
      overrideAccess: true,
    })
  if (doc.fromStaff) await req.payload.jobs.queue({ task: SEND_SUPPORT_REPLY_TASK, input: { replyId: doc.id }, req })
  return doc
}
