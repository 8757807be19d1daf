import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { RATE_LIMITS } from '../../src/auth/rate-limit'
import type { SupportReply, SupportRequest } from '../../src/payload-types'
import { PRICES, smtp } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import {
  grantLicense,
  grantsPaidKey,
  LICENSE_STATES,
  type LicenseState,
  PLAN_SLUGS,
  type PlanSlug,
} from '../support/licenses'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'

const payload = usePayload()
let alice: TestUser
let bob: TestUser
let support: TestUser
let admin: TestUser

beforeAll(async () => {
  await seedStandInPlans(payload())
  alice = await createUser(payload(), 'customer', { name: 'Alice' })
  await grantLicense(payload(), alice, 'standard', 'active')
  bob = await createUser(payload(), 'customer')
  support = await createUser(payload(), 'support')
  admin = await createUser(payload(), 'admin')
})

const fileRequest = (
  who: TestUser | null,
  body: Record<string, unknown> = { subject: 'Build fails', message: 'npm run build fails on Node 20.' },
) => api<{ doc: SupportRequest; errors?: { code: string }[] }>('POST', '/support_requests', { as: who, body })
const reply = (who: TestUser, request: number, body: Record<string, unknown> = {}) =>
  api<{ doc: SupportReply; errors?: { code: string }[] }>('POST', '/support_replies', {
    as: who,
    body: { request, body: 'Thanks, looking into it.', ...body },
  })
const requestRow = (id: number) => payload().findByID({ collection: 'support_requests', id, depth: 0 })
const jobsFor = async (replyId: number) =>
  (
    await payload().find({
      collection: 'payload-jobs',
      where: { taskSlug: { equals: 'sendSupportReply' } },
      limit: 1000,
      depth: 0,
    })
  ).docs.filter((job) => (job.input as { replyId?: number }).replyId === replyId)

describe('filing a request: priority from the plan, never from the body', () => {
  const cases = PLAN_SLUGS.flatMap((plan) => LICENSE_STATES.map((state) => [plan, state] as [PlanSlug, LicenseState]))
  it.each(cases)('%s license, %s', async (plan, state) => {
    const customer = await createUser(payload(), 'customer')
    await grantLicense(payload(), customer, plan, state)
    const response = await fileRequest(customer)
    expect(response.status).toBe(201)
    expect(response.body.doc).toMatchObject({
      subject: 'Build fails',
      priority: grantsPaidKey(plan, state, 'support') ? 'high' : 'normal',
      status: 'open',
      user: expect.objectContaining({ id: customer.user.id }),
    })
  })

  it('no license: normal priority', async () => {
    const response = await fileRequest(bob)
    expect(response.status).toBe(201)
    expect(response.body.doc.priority).toBe('normal')
  })

  it('a standard buyer (through checkout) files a request that lands as high priority', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const response = await fileRequest(buyer)
    expect(response.status).toBe(201)
    expect(response.body.doc.priority).toBe('high')
  })

  it('the body cannot set priority, status, user or replies (REST and GraphQL)', async () => {
    const customer = await createUser(payload(), 'customer')
    const response = await fileRequest(customer, {
      subject: 'Hi',
      message: 'Help',
      priority: 'high',
      status: 'closed',
      user: alice.user.id,
      replies: [1],
    })
    expect(response.status).toBe(201)
    expect(response.body.doc).toMatchObject({
      priority: 'normal',
      status: 'open',
      user: expect.objectContaining({ id: customer.user.id }),
    })
    const viaGraphql = await graphql(
      `mutation { createSupportRequest(data: { subject: "Hi", message: "Help", priority: high, status: closed, user: ${alice.user.id} }) { priority status user { id } } }`,
      customer,
    )
    if (viaGraphql.data?.createSupportRequest) {
      expect(viaGraphql.data.createSupportRequest).toMatchObject({
        priority: 'normal',
        status: 'open',
        user: { id: customer.user.id },
      })
    } else {
      expect(viaGraphql.errors?.length).toBeGreaterThan(0)
    }
    expect(
      (await rows(payload(), 'support_requests', { user: { equals: alice.user.id } })).every(
        (row) => row.subject !== 'Hi',
      ),
    ).toBe(true)
  })

  it('anonymous callers are refused (403 forbidden, as every Payload collection answers them)', async () => {
    const response = await fileRequest(null)
    expect(response.status).toBe(403)
    expect(response.body.errors?.[0]?.code).toBe('forbidden')
  })

  it.each([
    ['an empty subject', { subject: '', message: 'x' }],
    ['a subject of spaces', { subject: '   ', message: 'x' }],
    ['a subject over 200 characters', { subject: 'x'.repeat(201), message: 'x' }],
    ['no message', { subject: 'x' }],
    ['a message over 5000 characters', { subject: 'x', message: 'x'.repeat(5001) }],
  ])('400 for %s', async (_case, body) => {
    const customer = await createUser(payload(), 'customer')
    const response = await fileRequest(customer, body)
    expect(response.status).toBe(400)
    expect(response.body.errors?.[0]?.code).toBe('validation_error')
  })

  it('subjects of 200 and messages of 5000 characters are fine, and stored trimmed', async () => {
    const customer = await createUser(payload(), 'customer')
    const response = await fileRequest(customer, { subject: ` ${'s'.repeat(200)} `, message: `${'m'.repeat(5000)}\n` })
    expect(response.status).toBe(201)
    expect(response.body.doc.subject).toBe('s'.repeat(200))
    expect(response.body.doc.message).toBe('m'.repeat(5000))
  })

  it(`is rate-limited: ${RATE_LIMITS['support_requests:user'].points} a day per customer, then 429 rate_limited`, async () => {
    const customer = await createUser(payload(), 'customer')
    for (let i = 0; i < RATE_LIMITS['support_requests:user'].points; i += 1)
      expect((await fileRequest(customer)).status).toBe(201)
    const refused = await fileRequest(customer)
    expect(refused.status).toBe(429)
    expect(refused.body.errors?.[0]?.code).toBe('rate_limited')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await rows(payload(), 'support_requests', { user: { equals: customer.user.id } })).toHaveLength(
      RATE_LIMITS['support_requests:user'].points,
    )
    // Another customer is not affected.
    expect((await fileRequest(await createUser(payload(), 'customer'))).status).toBe(201)
  })
})

describe('IDOR across two customers', () => {
  let aliceRequest: SupportRequest
  let aliceReply: SupportReply
  beforeAll(async () => {
    aliceRequest = (await fileRequest(alice, { subject: 'Alice private', message: 'My license key is ...' })).body.doc
    aliceReply = (await reply(alice, aliceRequest.id, { body: 'Alice follow-up' })).body.doc
    await fileRequest(bob, { subject: 'Bob question', message: 'Hello' })
  })

  it('support_requests over REST: read, update, delete', async () => {
    const list = await api('GET', '/support_requests?limit=100', { as: bob })
    expect(list.status).toBe(200)
    expect(list.body.docs.length).toBeGreaterThan(0)
    expect(list.body.docs.every((doc: { user: { id: number } }) => doc.user.id === bob.user.id)).toBe(true)
    expect((await api('GET', `/support_requests/${aliceRequest.id}`, { as: bob })).status).toBe(404)
    expect((await api('GET', `/support_requests?where[id][equals]=${aliceRequest.id}`, { as: bob })).body.docs).toEqual(
      [],
    )
    expect(
      (await api('PATCH', `/support_requests/${aliceRequest.id}`, { as: bob, body: { subject: 'x' } })).status,
    ).toBe(403)
    expect((await api('DELETE', `/support_requests/${aliceRequest.id}`, { as: bob })).status).toBe(403)
    // The owner cannot change or remove it either: status and priority are staff's.
    expect(
      (
        await api('PATCH', `/support_requests/${aliceRequest.id}`, {
          as: alice,
          body: { priority: 'high', status: 'closed' },
        })
      ).status,
    ).toBe(403)
    expect((await api('DELETE', `/support_requests/${aliceRequest.id}`, { as: alice })).status).toBe(403)
    expect(await requestRow(aliceRequest.id)).toMatchObject({
      subject: 'Alice private',
      status: 'open',
      priority: 'high',
    })
    expect((await api('GET', `/support_requests/${aliceRequest.id}`, { as: alice })).status).toBe(200)
  })

  it('support_requests over GraphQL: read, update, delete', async () => {
    const list = await graphql('{ SupportRequests(limit: 100) { docs { id subject user { id } } } }', bob)
    expect(list.errors).toBeUndefined()
    expect(list.data?.SupportRequests?.docs.every((doc) => (doc.user as { id: number }).id === bob.user.id)).toBe(true)
    const single = await graphql(`{ SupportRequest(id: ${aliceRequest.id}) { id subject } }`, bob)
    expect(single.data?.SupportRequest ?? null).toBeNull()
    const update = await graphql(
      `mutation { updateSupportRequest(id: ${aliceRequest.id}, data: { status: closed }) { id } }`,
      bob,
    )
    expect(update.errors?.length).toBeGreaterThan(0)
    const remove = await graphql(`mutation { deleteSupportRequest(id: ${aliceRequest.id}) { id } }`, bob)
    expect(remove.errors?.length).toBeGreaterThan(0)
    expect(await requestRow(aliceRequest.id)).toMatchObject({ status: 'open' })
  })

  it('support_replies over REST: read, reply to, update, delete', async () => {
    const list = await api('GET', '/support_replies?limit=100', { as: bob })
    expect(list.status).toBe(200)
    expect(list.body.docs.every((doc: { customer: { id: number } }) => doc.customer.id === bob.user.id)).toBe(true)
    expect((await api('GET', `/support_replies/${aliceReply.id}`, { as: bob })).status).toBe(404)
    const intrude = await reply(bob, aliceRequest.id, { body: 'Bob was here' })
    expect(intrude.status).toBe(404)
    expect(intrude.body.errors?.[0]?.code).toBe('support_request_not_found')
    expect((await api('PATCH', `/support_replies/${aliceReply.id}`, { as: bob, body: { body: 'x' } })).status).toBe(403)
    expect((await api('DELETE', `/support_replies/${aliceReply.id}`, { as: bob })).status).toBe(403)
    expect(
      (await api('PATCH', `/support_replies/${aliceReply.id}`, { as: alice, body: { body: 'rewritten' } })).status,
    ).toBe(403)
    // The thread on the request shows the owner her replies, and the other customer nothing.
    const thread = await api('GET', `/support_requests/${aliceRequest.id}`, { as: alice })
    expect(thread.body.replies.docs.map((doc: SupportReply) => doc.body)).toEqual(['Alice follow-up'])
    const bobs = await api('GET', '/support_requests?limit=100', { as: bob })
    for (const doc of bobs.body.docs)
      expect(doc.replies.docs.every((entry: SupportReply) => entry.body !== 'Alice follow-up')).toBe(true)
  })

  it('support_replies over GraphQL: read, create, update, delete', async () => {
    const list = await graphql('{ SupportReplies(limit: 100) { docs { id body } } }', bob)
    expect(list.errors).toBeUndefined()
    expect(list.data?.SupportReplies?.docs.every((doc) => doc.body !== 'Alice follow-up')).toBe(true)
    const single = await graphql(`{ SupportReply(id: ${aliceReply.id}) { id body } }`, bob)
    expect(single.data?.SupportReply ?? null).toBeNull()
    const create = await graphql(
      `mutation { createSupportReply(data: { request: ${aliceRequest.id}, body: "Bob was here" }) { id } }`,
      bob,
    )
    expect(create.errors?.length).toBeGreaterThan(0)
    const update = await graphql(
      `mutation { updateSupportReply(id: ${aliceReply.id}, data: { body: "x" }) { id } }`,
      bob,
    )
    expect(update.errors?.length).toBeGreaterThan(0)
    const remove = await graphql(`mutation { deleteSupportReply(id: ${aliceReply.id}) { id } }`, bob)
    expect(remove.errors?.length).toBeGreaterThan(0)
    expect(
      (await rows(payload(), 'support_replies', { request: { equals: aliceRequest.id } })).map((row) => row.body),
    ).toEqual(['Alice follow-up'])
  })
})

describe('the thread', () => {
  it('a customer follows up on her own open request; author, customer and fromStaff come from the server', async () => {
    const request = (await fileRequest(alice)).body.doc
    const response = await reply(alice, request.id, {
      body: '  More detail.  ',
      fromStaff: true,
      author: support.user.id,
      customer: bob.user.id,
      emailedAt: new Date().toISOString(),
    })
    expect(response.status).toBe(201)
    const [row] = await rows(payload(), 'support_replies', { request: { equals: request.id } })
    expect(row).toMatchObject({
      body: 'More detail.',
      fromStaff: false,
      author: alice.user.id,
      customer: alice.user.id,
      emailedAt: null,
    })
    expect(await jobsFor(row!.id)).toEqual([])
  })

  it('a closed request takes no follow-up (409 request_closed); staff may still write', async () => {
    const request = (await fileRequest(alice)).body.doc
    expect(
      (await api('PATCH', `/support_requests/${request.id}`, { as: support, body: { status: 'closed' } })).status,
    ).toBe(200)
    const refused = await reply(alice, request.id)
    expect(refused.status).toBe(409)
    expect(refused.body.errors?.[0]?.code).toBe('request_closed')
    expect((await reply(support, request.id, { body: 'Closing note.' })).status).toBe(201)
    expect((await requestRow(request.id)).status).toBe('closed')
  })

  it('a staff reply marks the request answered and is emailed to the customer through the jobs queue, once', async () => {
    const request = (await fileRequest(alice, { subject: 'Webhook 500', message: 'The webhook answers 500.' })).body.doc
    const response = await reply(support, request.id, { body: 'Fixed in 1.1.1.\nUpgrade & retry <soon>.' })
    expect(response.status).toBe(201)
    const answer = response.body.doc
    expect(answer).toMatchObject({
      fromStaff: true,
      author: expect.objectContaining({ id: support.user.id }),
      emailedAt: null,
    })
    expect((await requestRow(request.id)).status).toBe('answered')
    const [job] = await jobsFor(answer.id)
    expect(job).toBeTruthy()
    // Only the reply's id is queued: its text stays in support_replies.
    expect(job!.input).toEqual({ replyId: answer.id })

    await payload().jobs.runByID({ id: job!.id })
    const email = await smtp.waitFor((message) => message.subject === `Re: Webhook 500 [#${request.id}]`)
    expect((email.to as { text: string }).text).toBe(alice.email)
    expect(email.text).toContain('> Fixed in 1.1.1.')
    expect(email.text).toContain('> Upgrade & retry <soon>.')
    expect(email.html).toContain('Upgrade &amp; retry &lt;soon&gt;.')
    const sent = await payload().findByID({ collection: 'support_replies', id: answer.id, depth: 0 })
    expect(sent.emailedAt).toBeTruthy()

    // The queue may hand a job out twice: a second run sends nothing more.
    const count = smtp.messages.filter((message) => message.subject === email.subject).length
    const again = await payload().jobs.queue({ task: 'sendSupportReply', input: { replyId: answer.id } })
    await payload().jobs.runByID({ id: again.id })
    expect(smtp.messages.filter((message) => message.subject === email.subject).length).toBe(count)

    // The customer reads the answer, and her follow-up reopens the request.
    const thread = await api('GET', `/support_requests/${request.id}`, { as: alice })
    expect(thread.body.replies.docs.map((doc: SupportReply) => [doc.body, doc.fromStaff])).toEqual([
      ['Fixed in 1.1.1.\nUpgrade & retry <soon>.', true],
    ])
    expect((await reply(alice, request.id, { body: 'Still failing.' })).status).toBe(201)
    expect((await requestRow(request.id)).status).toBe('open')
  })

  it('an SMTP outage delays the email; the job retries and sends it', async () => {
    const request = (await fileRequest(alice, { subject: 'Outage case', message: 'x' })).body.doc
    const answer = (await reply(support, request.id, { body: 'Answer during an outage.' })).body.doc
    const [job] = await jobsFor(answer.id)
    smtp.setDown(true)
    try {
      await payload().jobs.runByID({ id: job!.id })
    } finally {
      smtp.setDown(false)
    }
    expect((await payload().findByID({ collection: 'support_replies', id: answer.id, depth: 0 })).emailedAt).toBeNull()
    expect((await payload().findByID({ collection: 'support_replies', id: answer.id, depth: 0 })).body).toBe(
      'Answer during an outage.',
    )
    await payload().jobs.runByID({ id: job!.id })
    await smtp.waitFor((message) => message.subject === `Re: Outage case [#${request.id}]`)
    expect(
      (await payload().findByID({ collection: 'support_replies', id: answer.id, depth: 0 })).emailedAt,
    ).toBeTruthy()
  })
})

describe('the staff queue', () => {
  it('is ordered by priority, then the oldest first, with the columns staff need', async () => {
    const config = payload().collections.support_requests.config
    expect(config.defaultSort).toEqual(['priority', 'createdAt'])
    expect(config.admin.defaultColumns).toEqual(['subject', 'priority', 'status', 'user', 'createdAt'])
    const response = await api('GET', '/support_requests?limit=1000&depth=0', { as: support })
    expect(response.status).toBe(200)
    const docs = response.body.docs as SupportRequest[]
    expect(docs.length).toBeGreaterThan(10)
    const firstNormal = docs.findIndex((doc) => doc.priority === 'normal')
    expect(docs.slice(firstNormal).every((doc) => doc.priority === 'normal')).toBe(true)
    for (const group of [docs.slice(0, firstNormal), docs.slice(firstNormal)]) {
      const times = group.map((doc) => new Date(doc.createdAt).getTime())
      expect(times).toEqual([...times].sort((a, b) => a - b))
    }
  })

  it('support staff set status and priority; only admins delete', async () => {
    const request = (await fileRequest(bob)).body.doc
    const patched = await api('PATCH', `/support_requests/${request.id}`, {
      as: support,
      body: { priority: 'high', status: 'answered', user: alice.user.id },
    })
    expect(patched.status).toBe(200)
    expect(await requestRow(request.id)).toMatchObject({ priority: 'high', status: 'answered', user: bob.user.id })
    expect((await api('DELETE', `/support_requests/${request.id}`, { as: support })).status).toBe(403)
    expect((await api('DELETE', `/support_requests/${request.id}`, { as: admin })).status).toBe(200)
  })
})
