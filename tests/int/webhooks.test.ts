import { smtp, standIn } from '../support/billing-env'
import { receiver, WEBHOOK_TIMEOUT_MS } from '../support/webhooks-env'

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import { getPayload, type Payload, type Where } from 'payload'
import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import config from '../../payload.config'
import { closePayload } from '../../src/db/bootstrap'
import { webhook_endpoints } from '../../src/db/schema.generated'
import { bare, executeOn, inTransaction, sql } from '../../src/db/transaction'
import { generateLicenseKey } from '../../src/licensing/keys'
import type { License, WebhookEndpoint } from '../../src/payload-types'
import { claimSeat } from '../../src/teams/seats'
import { emitWebhookEvent } from '../../src/webhooks/emit'
import { sealSecret, UNREADABLE_SECRET } from '../../src/webhooks/secrets'
import {
  MAX_ATTEMPTS,
  retryDelayMs,
  TEST_EVENT_TYPE,
  WEBHOOK_EVENT_TYPES,
  WEBHOOKS_QUEUE,
  type WebhookEventType,
} from '../../src/webhooks/events'
import { PRICES } from '../support/billing-env'
import { rows, seedStandInPlans } from '../support/billing'
import { waitUntil } from '../support/locks'
import { freePort } from '../support/net'
import { api, createUser, graphql, type TestUser, usePayload } from '../support/payload'
import type { Behaviour } from '../support/webhook-receiver'

/**
 * Outbound webhooks (docs/WEBHOOKS.md) on a real PostgreSQL, with the processor stand-in and a
 * receiver over real HTTP that verifies every delivery with the `standardwebhooks` library, as a
 * seller's would. The queue is worked explicitly (`jobs.run` on the webhooks queue).
 */
const payload = usePayload()
const root = path.resolve(import.meta.dirname, '../..')
let admin: TestUser
let support: TestUser
let customer: TestUser
let second: Payload

beforeAll(async () => {
  await seedStandInPlans(payload())
  admin = await createUser(payload(), 'admin')
  support = await createUser(payload(), 'support')
  customer = await createUser(payload(), 'customer')
  second = await getPayload({ config, key: 'webhooks-second-runner' })
  second.db.pool.on('error', () => undefined)
})

afterAll(async () => {
  if (second) await closePayload(second)
})

// Each test's endpoints are its own: later events must not wait on an earlier test's failing receiver.
afterEach(async () => {
  await payload().delete({ collection: 'webhook_endpoints', where: { id: { exists: true } }, overrideAccess: true })
})

let paths = 0
type Endpoint = { id: number; path: string; secret: string; doc: WebhookEndpoint }

/** An endpoint made by an admin through the REST API, its secret revealed, its receiver path set up. */
const endpointFor = async (
  events: readonly WebhookEventType[],
  behaviour: Behaviour = { kind: 'ok' },
): Promise<Endpoint> => {
  paths += 1
  const path = `/hooks/${paths}`
  const created = await api('POST', '/webhook_endpoints', {
    as: admin,
    body: { url: `${receiver.url}${path}`, events, description: `test ${paths}` },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const revealed = await api('POST', `/staff/webhook-endpoints/${created.body.doc.id}/reveal-secret`, { as: admin })
  expect(revealed.status).toBe(200)
  receiver.route(path, behaviour, [revealed.body.secret])
  return { id: created.body.doc.id, path, secret: revealed.body.secret, doc: created.body.doc }
}

/** Deliveries not done yet: neither completed nor failed for good. */
const PENDING: Where[] = [
  { taskSlug: { equals: 'deliverWebhook' } },
  { completedAt: { exists: false } },
  { hasError: { not_equals: true } },
]

const pendingDeliveries = async () =>
  (await payload().count({ collection: 'payload-jobs', where: { and: PENDING } })).totalDocs

/** Pending deliveries a runner can take now: not taken, their retry's backoff over. */
const dueDeliveries = async () =>
  (
    await payload().count({
      collection: 'payload-jobs',
      where: {
        and: [
          ...PENDING,
          { processing: { equals: false } },
          { or: [{ waitUntil: { exists: false } }, { waitUntil: { less_than: new Date().toISOString() } }] },
        ],
      },
    })
  ).totalDocs

/** Work the webhooks queue until no delivery is left, each next round once a retry is due. */
const drain = async (runners: Payload[] = [payload()], timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs
  while ((await pendingDeliveries()) > 0) {
    if (Date.now() > deadline) throw new Error('deliveries still pending')
    await Promise.all(runners.map((runner) => runner.jobs.run({ queue: WEBHOOKS_QUEUE, limit: 100 })))
    await waitUntil(async () => (await dueDeliveries()) > 0 || (await pendingDeliveries()) === 0, {
      timeoutMs: Math.max(0, deadline - Date.now()),
      message: 'deliveries still pending, none of them due',
    })
  }
}

const deliveriesOf = async (endpoint: Endpoint) =>
  (
    await payload().find({
      collection: 'webhook_deliveries',
      where: { endpoint: { equals: endpoint.id } },
      sort: 'createdAt',
      limit: 100,
      depth: 0,
    })
  ).docs

const planId = async (slug: string) =>
  (await payload().find({ collection: 'plans', where: { slug: { equals: slug } }, limit: 1, depth: 0 })).docs[0]!.id

/** A license made by staff by hand (a Payload create: license.created through the collection's hook). */
const manualLicense = async (owner?: TestUser): Promise<License> =>
  payload().create({
    collection: 'licenses',
    data: {
      key: generateLicenseKey(),
      plan: await planId('standard'),
      source: 'manual',
      status: 'active',
      user: owner?.user.id ?? null,
    } as never,
    overrideAccess: true,
  })

/** The verified events a path received, by type. */
const eventsAt = (endpoint: Endpoint) => receiver.at(endpoint.path).map((record) => record.verified)

describe('webhook endpoints: admins only, the secret shown once', () => {
  it('an admin creates one; the secret is never in the API; support, customers and visitors are refused', async () => {
    const url = `${receiver.url}/access`
    const created = await api('POST', '/webhook_endpoints', { as: admin, body: { url, events: ['order.paid'] } })
    expect(created.status).toBe(201)
    expect(created.body.doc).toMatchObject({ url, events: ['order.paid'], enabled: true, failedEventsInARow: 0 })
    const id = created.body.doc.id
    for (const response of [
      created,
      await api('GET', `/webhook_endpoints/${id}`, { as: admin }),
      await api('GET', '/webhook_endpoints', { as: admin }),
    ]) {
      expect(JSON.stringify(response.body)).not.toMatch(/secretSealed|previousSecretSealed|whsec_|"v1\./)
    }
    for (const as of [support, customer, null]) {
      expect(
        (await api('POST', '/webhook_endpoints', { as, body: { url, events: ['order.paid'] } })).status,
        String(as?.email),
      ).toBe(403)
      const read = await api('GET', `/webhook_endpoints/${id}`, { as })
      expect(read.status).toBeGreaterThanOrEqual(401)
      expect(
        (await api('PATCH', `/webhook_endpoints/${id}`, { as, body: { url: `${receiver.url}/stolen` } })).status,
      ).toBeGreaterThanOrEqual(401)
      expect((await api('POST', `/staff/webhook-endpoints/${id}/reveal-secret`, { as })).status).toBe(as ? 403 : 401)
      expect((await api('POST', `/staff/webhook-endpoints/${id}/rotate-secret`, { as })).status).toBe(as ? 403 : 401)
      expect((await api('POST', `/staff/webhook-endpoints/${id}/test`, { as })).status).toBe(as ? 403 : 401)
    }
    expect((await payload().findByID({ collection: 'webhook_endpoints', id, depth: 0 })).url).toBe(url)
    // GraphQL: nothing for support or customers; the sealed secret reads as null, even for admins.
    for (const as of [support, customer, null]) {
      const answer = await graphql(
        '{ Webhook_endpoints { docs { id url } } Webhook_deliveries { docs { id url } } }',
        as,
      )
      // Refused by access (not by a misspelt query): the error names the operation, and no data leaks.
      expect(answer.errors?.[0]?.message, JSON.stringify(answer)).not.toMatch(/Cannot query field/)
      expect(JSON.stringify(answer.data ?? {})).not.toContain(url)
      expect(answer.data?.Webhook_endpoints ?? null).toBeNull()
    }
    const adminRead = await graphql('{ Webhook_endpoints { docs { id url } } }', admin)
    expect(
      adminRead.data?.Webhook_endpoints?.docs.map((doc) => doc.url),
      JSON.stringify(adminRead),
    ).toContain(url)
    const sealedField = await graphql('{ Webhook_endpoints { docs { id secretSealed } } }', admin)
    expect(sealedField.errors ?? []).toEqual([])
    expect(sealedField.data?.Webhook_endpoints?.docs).toContainEqual({ id, secretSealed: null })
    const sealedWhere = await graphql(
      `
        {
          Webhook_endpoints(where: { secretSealed: { like: "v1" } }) {
            totalDocs
          }
        }
      `,
      admin,
    )
    expect(JSON.stringify(sealedWhere)).not.toMatch(/"totalDocs":[1-9]/)
    // A where on the sealed secret tells nothing: the right guess answers as a wrong one.
    const [stored] = await executeOn<{ secret_sealed: string }>(
      payload(),
      undefined,
      sql`SELECT secret_sealed FROM webhook_endpoints WHERE id = ${id}`,
    )
    const sealed = stored!.secret_sealed
    const guess = async (value: string) => {
      const response = await api('GET', `/webhook_endpoints?where[secretSealed][equals]=${encodeURIComponent(value)}`, {
        as: admin,
      })
      return [response.status, response.body?.totalDocs]
    }
    expect(await guess(sealed)).toEqual(await guess('v1.wrong'))
    // The bookkeeping is the service's: an admin's PATCH does not set it.
    await api('PATCH', `/webhook_endpoints/${id}`, {
      as: admin,
      body: { failedEventsInARow: 7, secretShownAt: new Date().toISOString(), secretSealed: 'v1.mine' },
    })
    const [after] = await executeOn<{ failed: string; shown: Date | null; sealed: string }>(
      payload(),
      undefined,
      sql`SELECT failed_events_in_a_row AS failed, secret_shown_at AS shown, secret_sealed AS sealed FROM webhook_endpoints WHERE id = ${id}`,
    )
    expect(after).toEqual({ failed: '0', shown: null, sealed })
  })

  it('refuses link-local, metadata and non-http addresses at save (400), even with WEBHOOK_ALLOW_PRIVATE', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/x',
      'ftp://127.0.0.1/x',
      'http://user:pw@127.0.0.1/x',
      'not a url',
    ]) {
      const response = await api('POST', '/webhook_endpoints', { as: admin, body: { url, events: ['order.paid'] } })
      expect(response.status, url).toBe(400)
      expect(response.body.errors[0].code, url).toBe('validation_error')
      expect(response.body.errors[0].message).toMatch(/^url: /)
    }
    const ok = await endpointFor(['order.paid'])
    const moved = await api('PATCH', `/webhook_endpoints/${ok.id}`, {
      as: admin,
      body: { url: 'http://169.254.169.254/' },
    })
    expect(moved.status).toBe(400)
    expect((await payload().findByID({ collection: 'webhook_endpoints', id: ok.id, depth: 0 })).url).toBe(
      `${receiver.url}${ok.path}`,
    )
    expect(await payload().count({ collection: 'webhook_endpoints' })).toEqual({ totalDocs: 1 })
  })

  it('shows the secret once (two at once: one gets it), sealed at rest, then 409; 404 for no endpoint', async () => {
    const created = await api('POST', '/webhook_endpoints', {
      as: admin,
      body: { url: `${receiver.url}/once`, events: ['order.paid'] },
    })
    const id = created.body.doc.id
    const both = await Promise.all(
      [1, 2].map(() => api('POST', `/staff/webhook-endpoints/${id}/reveal-secret`, { as: admin })),
    )
    expect(both.map((response) => response.status).sort()).toEqual([200, 409])
    const shown = both.find((response) => response.status === 200)!.body.secret as string
    expect(shown).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(both.find((response) => response.status === 409)!.body.errors[0].code).toBe('secret_already_shown')
    const [row] = await executeOn<Record<string, unknown>>(
      payload(),
      undefined,
      sql`SELECT * FROM webhook_endpoints WHERE id = ${id}`,
    )
    expect(JSON.stringify(row)).not.toContain(shown.slice(6))
    const audit = await rows(payload(), 'audit_log', { targetId: { equals: String(id) } })
    expect(audit.map((entry) => entry.action)).toEqual(['webhook_endpoint.reveal_secret'])
    expect(JSON.stringify(audit)).not.toContain(shown.slice(6))
    for (const path of ['reveal-secret', 'rotate-secret', 'test']) {
      const missing = await api('POST', `/staff/webhook-endpoints/999999/${path}`, { as: admin })
      expect(missing.status).toBe(404)
      expect(missing.body.errors[0].code).toBe('webhook_endpoint_not_found')
      expect((await api('POST', `/staff/webhook-endpoints/abc/${path}`, { as: admin })).status).toBe(404)
    }
  })
})

describe('events: each once, in the transaction of its change', () => {
  it('a purchase sends order.paid and license.created, verified, without the key; redelivered processor events send nothing more', async () => {
    const endpoint = await endpointFor(['order.paid', 'license.created', 'license.updated'])
    const buyer = await createUser(payload(), 'customer')
    const checkout = await api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.standard } })
    await standIn.pay(checkout.body.id, { email: buyer.email })
    await standIn.settled()
    await drain()
    const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    const received = eventsAt(endpoint)
    expect(received.every(Boolean)).toBe(true)
    expect(received.map((event) => event!.type).sort()).toEqual(['license.created', 'order.paid'])
    const paid = received.find((event) => event!.type === 'order.paid')!
    expect(paid.data).toMatchObject({
      type: 'one_time',
      status: 'succeeded',
      currency: 'usd',
      plan: { slug: 'standard' },
      customer: { id: buyer.user.id, email: buyer.email },
    })
    expect(paid.data.amount).toBeGreaterThan(0)
    const created = received.find((event) => event!.type === 'license.created')!
    expect(created.data).toMatchObject({
      id: license!.id,
      status: 'active',
      plan: { slug: 'standard' },
      keyLast4: license!.key.slice(-4),
      customer: { id: buyer.user.id },
    })
    for (const record of receiver.at(endpoint.path)) {
      expect(record.body).not.toContain(license!.key)
      expect(record.body).not.toMatch(/password|token|secret/i)
      expect(Math.abs(Number(record.timestamp) - Date.now() / 1000)).toBeLessThan(60)
    }
    // Every processor event again: the facts are the same, so no event is sent twice.
    for (const record of standIn.events()) await standIn.redeliver(record.event.id)
    await standIn.settled()
    await drain()
    expect(receiver.at(endpoint.path)).toHaveLength(2)
  })

  it('a full refund sends order.refunded and license.revoked; staff restoring sends license.updated with what changed', async () => {
    const endpoint = await endpointFor(['order.refunded', 'license.revoked', 'license.updated'])
    const buyer = await createUser(payload(), 'customer')
    const checkout = await api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.standard } })
    const events = await standIn.pay(checkout.body.id, { email: buyer.email })
    await standIn.settled()
    const intent = events.find((event) => event.type === 'payment_intent.succeeded')!.data.object as {
      latest_charge: string
    }
    await standIn.refund(intent.latest_charge)
    await standIn.settled()
    await drain()
    const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    expect(license!.status).toBe('revoked')
    const refunded = eventsAt(endpoint).find((event) => event!.type === 'order.refunded')!
    expect(refunded.data).toMatchObject({ customer: { id: buyer.user.id } })
    expect(refunded.data.refundedAmount).toBe(refunded.data.amount)
    expect(refunded.data.refundedNow).toBe(refunded.data.amount)
    const revoked = eventsAt(endpoint).find((event) => event!.type === 'license.revoked')!
    expect(revoked.data).toMatchObject({
      id: license!.id,
      status: 'revoked',
      revokedReason: 'refunded',
      previous: { status: 'active' },
    })
    const restore = await api('POST', `/staff/licenses/${license!.id}/restore`, {
      as: support,
      body: { reason: 'goodwill' },
    })
    expect(restore.status).toBe(200)
    await drain()
    const updated = eventsAt(endpoint).filter((event) => event!.type === 'license.updated')
    expect(updated).toHaveLength(1)
    expect(updated[0]!.data).toMatchObject({ id: license!.id, status: 'active', previous: { status: 'revoked' } })
    expect(
      eventsAt(endpoint)
        .map((event) => event!.type)
        .sort(),
    ).toEqual(['license.revoked', 'license.updated', 'order.refunded'])
  })

  it('a subscription sends subscription.created, then .updated and .canceled', async () => {
    const endpoint = await endpointFor([
      'subscription.created',
      'subscription.updated',
      'subscription.canceled',
      'order.paid',
    ])
    const buyer = await createUser(payload(), 'customer')
    const checkout = await api('POST', '/checkout_sessions', { as: buyer, body: { priceId: PRICES.proMonthly } })
    await standIn.pay(checkout.body.id, { email: buyer.email })
    await standIn.settled()
    const [subscription] = await rows(payload(), 'user_subscriptions', { user: { equals: buyer.user.id } })
    await standIn.updateSubscription(subscription!.processorSubscriptionId, { cancelAtPeriodEnd: true })
    await standIn.settled()
    await standIn.cancelSubscription(subscription!.processorSubscriptionId)
    await standIn.settled()
    await drain()
    const types = eventsAt(endpoint).map((event) => event!.type)
    expect(types.filter((type) => type === 'subscription.created')).toHaveLength(1)
    expect(types.filter((type) => type === 'subscription.canceled')).toHaveLength(1)
    expect(types).toContain('subscription.updated')
    expect(types).toContain('order.paid')
    const created = eventsAt(endpoint).find((event) => event!.type === 'subscription.created')!
    expect(created.data).toMatchObject({
      processorSubscriptionId: subscription!.processorSubscriptionId,
      plan: { slug: 'pro' },
      billingCycle: 'monthly',
      customer: { id: buyer.user.id },
    })
    const canceled = eventsAt(endpoint).find((event) => event!.type === 'subscription.canceled')!
    expect(canceled.data).toMatchObject({ status: 'canceled' })
  })

  it('activations and seats send activation.created|deleted and seat.claimed|revoked', async () => {
    const endpoint = await endpointFor(['activation.created', 'activation.deleted', 'seat.claimed', 'seat.revoked'])
    const owner = await createUser(payload(), 'customer')
    const checkout = await api('POST', '/checkout_sessions', {
      as: owner,
      body: { priceId: PRICES.ultimate, quantity: 2 },
    })
    await standIn.pay(checkout.body.id, { email: owner.email })
    await standIn.settled()
    const [license] = await rows(payload(), 'licenses', { user: { equals: owner.user.id } })
    const activated = await api('POST', '/licenses/activate', {
      body: { key: license!.key, fingerprint: 'build-box', label: 'CI' },
    })
    expect(activated.status).toBe(201)
    expect(
      (await api('POST', '/licenses/deactivate', { body: { key: license!.key, activationId: activated.body.id } }))
        .status,
    ).toBe(204)
    const memberEmail = `member-${Date.now()}@example.test`
    const assigned = await api('POST', `/licenses/${license!.id}/seats`, { as: owner, body: { email: memberEmail } })
    expect(assigned.status).toBe(201)
    await payload().jobs.run({ limit: 1000 })
    const invitation = await smtp.waitFor((message) => JSON.stringify(message.to ?? '').includes(memberEmail))
    const token = /type=seat&token=([A-Za-z0-9_-]+)/.exec(invitation.text ?? '')![1]!
    const member = await createUser(payload(), 'customer', { email: memberEmail })
    expect((await claimSeat(payload(), token, member.user)).result).toBe('claimed')
    expect((await api('DELETE', `/licenses/${license!.id}/seats/${assigned.body.id}`, { as: owner })).status).toBe(204)
    await drain()
    const byType = Object.fromEntries(eventsAt(endpoint).map((event) => [event!.type, event!.data]))
    expect(Object.keys(byType).sort()).toEqual([
      'activation.created',
      'activation.deleted',
      'seat.claimed',
      'seat.revoked',
    ])
    expect(byType['activation.created']).toMatchObject({
      id: activated.body.id,
      licenseId: license!.id,
      fingerprint: 'build-box',
      label: 'CI',
      deactivatedAt: null,
    })
    expect(byType['activation.deleted']).toMatchObject({ id: activated.body.id, deactivatedBy: 'key' })
    expect(byType['activation.deleted']!.deactivatedAt).toBeTruthy()
    expect(byType['seat.claimed']).toMatchObject({
      id: assigned.body.id,
      licenseId: license!.id,
      email: memberEmail,
      status: 'claimed',
      memberId: member.user.id,
    })
    expect(byType['seat.revoked']).toMatchObject({ id: assigned.body.id, status: 'revoked', revokedBy: 'owner' })
    expect(
      receiver
        .at(endpoint.path)
        .map((record) => record.body)
        .join(''),
    ).not.toContain(token)
  })

  it('a license or subscription first seen already ended (its events came in reverse) still sends its ending, once', async () => {
    const endpoint = await endpointFor([
      'license.created',
      'license.revoked',
      'subscription.created',
      'subscription.canceled',
    ])
    const license: License = await payload().create({
      collection: 'licenses',
      data: { key: generateLicenseKey(), plan: await planId('standard'), source: 'manual', status: 'revoked' } as never,
      overrideAccess: true,
    })
    const subscriptionId = `sub_reversed_${Date.now()}`
    const subscription = await payload().create({
      collection: 'user_subscriptions',
      data: {
        processorSubscriptionId: subscriptionId,
        status: 'canceled',
        plan: await planId('pro'),
        email: 'reversed@example.test',
      },
      overrideAccess: true,
    })
    // Applied again (a redelivery), nothing changes and nothing more is sent.
    await payload().update({
      collection: 'user_subscriptions',
      id: subscription.id,
      data: { status: 'canceled' },
      overrideAccess: true,
    })
    await drain()
    const received = eventsAt(endpoint).map((event) => `${event!.type}:${event!.data.id}`)
    expect(received.sort()).toEqual(
      [
        `license.created:${license.id}`,
        `license.revoked:${license.id}`,
        `subscription.created:${subscription.id}`,
        `subscription.canceled:${subscription.id}`,
      ].sort(),
    )
  })

  it('a change rolled back sends nothing; an event no endpoint wants is not stored; a disabled endpoint gets nothing', async () => {
    const endpoint = await endpointFor(['license.created'])
    const before = await payload().count({ collection: 'webhook_events' })
    const pendingBefore = await pendingDeliveries()
    await expect(
      inTransaction(payload(), async (req) => {
        await payload().create({
          collection: 'licenses',
          data: {
            key: generateLicenseKey(),
            plan: await planId('standard'),
            source: 'manual',
            status: 'active',
          } as never,
          overrideAccess: true,
          req,
        })
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    expect(await payload().count({ collection: 'webhook_events' })).toEqual(before)
    expect(await pendingDeliveries()).toBe(pendingBefore)
    const unwanted = await inTransaction(payload(), (req) =>
      emitWebhookEvent(req, {
        type: 'seat.revoked',
        sourceKey: 'unwanted:1',
        data: () => Promise.reject(new Error('not built')),
      }),
    )
    expect(unwanted).toBeNull()
    expect(await payload().count({ collection: 'webhook_events' })).toEqual(before)
    await api('PATCH', `/webhook_endpoints/${endpoint.id}`, { as: admin, body: { enabled: false } })
    await manualLicense()
    await drain()
    expect(receiver.at(endpoint.path)).toHaveLength(0)
    await api('PATCH', `/webhook_endpoints/${endpoint.id}`, { as: admin, body: { enabled: true } })
    const license = await manualLicense()
    await drain()
    expect(eventsAt(endpoint).map((event) => event!.data.id)).toEqual([license.id])
  })
})

describe('delivery', () => {
  it('a receiver that fails, then recovers: retried with growing waits, the same webhook-id each time', async () => {
    const endpoint = await endpointFor(['license.created'], { kind: 'fail', times: 2 })
    await manualLicense()
    await drain()
    const attempts = receiver.at(endpoint.path)
    expect(attempts.map((record) => record.status)).toEqual([500, 500, 200])
    expect(new Set(attempts.map((record) => record.id)).size).toBe(1)
    expect(attempts.every((record) => record.verified?.type === 'license.created')).toBe(true)
    const deliveries = await deliveriesOf(endpoint)
    expect(
      deliveries.map((delivery) => [delivery.attempt, delivery.outcome, delivery.responseStatus, delivery.trigger]),
    ).toEqual([
      [1, 'failed', 500, 'automatic'],
      [2, 'failed', 500, 'automatic'],
      [3, 'succeeded', 200, 'automatic'],
    ])
    expect(deliveries[0]!.responseExcerpt).toBe('receiver down (1)')
    expect(deliveries[0]!.nextAttemptAt).toBeTruthy()
    expect(deliveries[2]!.nextAttemptAt).toBeNull()
    expect((await payload().findByID({ collection: 'webhook_endpoints', id: endpoint.id })).failedEventsInARow).toBe(0)
  })

  it('waits 10 s before the second attempt, then doubles, at most an hour', () => {
    expect(Array.from({ length: MAX_ATTEMPTS - 1 }, (_, index) => retryDelayMs(index + 1, 10_000) / 1000)).toEqual([
      10, 20, 40, 80, 160, 320, 640, 1280, 2560,
    ])
    expect(retryDelayMs(10, 10_000)).toBe(3_600_000)
    expect(retryDelayMs(30, 10_000)).toBe(3_600_000)
  })

  it('a receiver that hangs fails at the timeout; a 3xx is a failure and is not followed', async () => {
    const hang = await endpointFor(['license.created'], { kind: 'hang' })
    const redirect = await endpointFor(['license.created'], { kind: 'redirect', to: '/moved-here' })
    receiver.route('/moved-here', { kind: 'ok' })
    await manualLicense()
    await payload().jobs.run({ queue: WEBHOOKS_QUEUE, limit: 100 })
    const [hung] = await deliveriesOf(hang)
    expect(hung).toMatchObject({ outcome: 'failed', responseStatus: null, attempt: 1 })
    expect(hung!.error).toBe(`The receiver did not answer within ${WEBHOOK_TIMEOUT_MS} ms.`)
    expect(hung!.durationMs).toBeGreaterThanOrEqual(WEBHOOK_TIMEOUT_MS - 50)
    // Cut at the timeout (the bound leaves room for a loaded CI machine, not for a second timeout).
    expect(hung!.durationMs).toBeLessThan(2 * WEBHOOK_TIMEOUT_MS)
    const [moved] = await deliveriesOf(redirect)
    expect(moved).toMatchObject({ outcome: 'failed', responseStatus: 302, attempt: 1 })
    expect(moved!.error).toMatch(/redirect/i)
    expect(receiver.at('/moved-here')).toHaveLength(0)
  })

  it('10 attempts in all; 10 events failed in a row turn the endpoint off and email the admins; turning it on starts again', async () => {
    const endpoint = await endpointFor(['license.created'], { kind: 'fail', times: 1_000 })
    await manualLicense()
    await drain()
    const deliveries = await deliveriesOf(endpoint)
    expect(deliveries.map((delivery) => delivery.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(deliveries.at(-1)!.nextAttemptAt).toBeNull()
    expect(deliveries.slice(0, -1).every((delivery) => delivery.nextAttemptAt)).toBe(true)
    expect((await payload().findByID({ collection: 'webhook_endpoints', id: endpoint.id })).failedEventsInARow).toBe(1)
    // Nine more events that fail every attempt, from their last attempt on.
    for (let index = 0; index < 9; index += 1) {
      const eventId = await inTransaction(payload(), (req) =>
        emitWebhookEvent(req, {
          type: 'license.created',
          sourceKey: `failing:${endpoint.id}:${index}`,
          data: () => ({ index }),
        }),
      )
      expect(eventId).toMatch(/^msg_/)
    }
    await executeOn(
      payload(),
      undefined,
      sql`UPDATE payload_jobs SET input = jsonb_set(input, '{attempt}', '10') WHERE task_slug = 'deliverWebhook' AND completed_at IS NULL`,
    )
    await drain()
    const after = await payload().findByID({ collection: 'webhook_endpoints', id: endpoint.id })
    expect(after).toMatchObject({ enabled: false, failedEventsInARow: 10 })
    expect(after.disabledAt).toBeTruthy()
    await payload().jobs.run({ limit: 100 })
    const email = await smtp.waitFor(
      (message) =>
        /webhook endpoint turned off/.test(message.subject ?? '') && JSON.stringify(message.to).includes(admin.email),
    )
    expect(email.text).toContain(`${receiver.url}${endpoint.path}`)
    await manualLicense()
    await drain()
    expect(receiver.at(endpoint.path)).toHaveLength(19)
    expect(
      (await api('PATCH', `/webhook_endpoints/${endpoint.id}`, { as: admin, body: { enabled: true } })).status,
    ).toBe(200)
    expect(await payload().findByID({ collection: 'webhook_endpoints', id: endpoint.id })).toMatchObject({
      enabled: true,
      failedEventsInARow: 0,
      disabledAt: null,
    })
  })

  it('a rotated secret: both sign for 24 h, then only the new one', async () => {
    const endpoint = await endpointFor(['license.created'])
    const rotated = await api('POST', `/staff/webhook-endpoints/${endpoint.id}/rotate-secret`, { as: admin })
    expect(rotated.status).toBe(200)
    const fresh = rotated.body.secret as string
    expect(fresh).not.toBe(endpoint.secret)
    const expires = new Date(rotated.body.previousSecretExpiresAt).getTime()
    expect(Math.abs(expires - Date.now() - 24 * 3600 * 1000)).toBeLessThan(60_000)
    receiver.route(endpoint.path, { kind: 'ok' }, [endpoint.secret, fresh])
    await manualLicense()
    await drain()
    const [both] = receiver.at(endpoint.path)
    expect(both!.signature.split(' ')).toHaveLength(2)
    expect(both!.verifiedWith.sort()).toEqual([endpoint.secret, fresh].sort())
    await executeOn(
      payload(),
      undefined,
      sql`UPDATE ${webhook_endpoints} SET ${bare(webhook_endpoints.previousSecretExpiresAt)} = now() - interval '1 second' WHERE id = ${endpoint.id}`,
    )
    await manualLicense()
    await drain()
    const last = receiver.at(endpoint.path).at(-1)!
    expect(last.signature.split(' ')).toHaveLength(1)
    expect(last.verifiedWith).toEqual([fresh])
    const audit = await rows(payload(), 'audit_log', { targetId: { equals: String(endpoint.id) } })
    expect(audit.map((entry) => entry.action).sort()).toEqual([
      'webhook_endpoint.reveal_secret',
      'webhook_endpoint.rotate_secret',
    ])
    expect(JSON.stringify(audit)).not.toContain(fresh.slice(6))
  })

  it('a secret sealed under an earlier PAYLOAD_SECRET fails clearly, and rotating the secret mends it', async () => {
    const endpoint = await endpointFor(['license.created'])
    await executeOn(
      payload(),
      undefined,
      sql`UPDATE ${webhook_endpoints} SET ${bare(webhook_endpoints.secretSealed)} = ${sealSecret('an-earlier-payload-secret-of-32-chars', endpoint.secret)} WHERE id = ${endpoint.id}`,
    )
    await manualLicense()
    await payload().jobs.run({ queue: WEBHOOKS_QUEUE, limit: 100 })
    const [failed] = await deliveriesOf(endpoint)
    expect(failed).toMatchObject({ outcome: 'failed', error: UNREADABLE_SECRET, attempt: 1 })
    expect(receiver.at(endpoint.path)).toHaveLength(0)
    const rotated = await api('POST', `/staff/webhook-endpoints/${endpoint.id}/rotate-secret`, { as: admin })
    expect(rotated.status).toBe(200)
    receiver.route(endpoint.path, { kind: 'ok' }, [rotated.body.secret])
    await drain()
    const [received] = receiver.at(endpoint.path)
    expect(received!.signature.split(' ')).toHaveLength(1)
    expect(received!.verifiedWith).toEqual([rotated.body.secret])
  })

  it('"Send again" for a deleted endpoint is 409, and sends nothing', async () => {
    const endpoint = await endpointFor(['license.created'])
    await manualLicense()
    await drain()
    const [delivery] = await deliveriesOf(endpoint)
    await payload().delete({ collection: 'webhook_endpoints', id: endpoint.id, overrideAccess: true })
    const again = await api('POST', `/staff/webhook-deliveries/${delivery!.id}/send-again`, { as: admin })
    expect(again.status).toBe(409)
    expect(again.body.errors[0].code).toBe('webhook_endpoint_deleted')
    expect(receiver.at(endpoint.path)).toHaveLength(1)
  })

  it('an address that turned link-local is refused at delivery, and nothing is sent', async () => {
    const endpoint = await endpointFor(['license.created'])
    // As if its DNS changed after it was saved: the row is written past the save-time check.
    await executeOn(
      payload(),
      undefined,
      sql`UPDATE ${webhook_endpoints} SET ${bare(webhook_endpoints.url)} = 'http://169.254.169.254/latest' WHERE id = ${endpoint.id}`,
    )
    await manualLicense()
    await payload().jobs.run({ queue: WEBHOOKS_QUEUE, limit: 100 })
    const [refused] = await deliveriesOf(endpoint)
    expect(refused).toMatchObject({ outcome: 'failed', responseStatus: null })
    expect(refused!.error).toMatch(/link-local|metadata/i)
    expect(refused!.durationMs).toBeLessThan(WEBHOOK_TIMEOUT_MS)
  })

  it('two instances working the queue deliver each event once', async () => {
    const endpoint = await endpointFor(['license.created'])
    const licenses = await Promise.all(Array.from({ length: 20 }, () => manualLicense()))
    await drain([payload(), second])
    const received = receiver.at(endpoint.path)
    expect(received).toHaveLength(20)
    expect(new Set(received.map((record) => record.id)).size).toBe(20)
    expect(received.map((record) => record.verified!.data.id).sort()).toEqual(
      licenses.map((license) => license.id).sort(),
    )
    expect(await deliveriesOf(endpoint)).toHaveLength(20)
  })

  it('"Send test event" and "Send again" deliver now, admins only; "Send again" keeps the event id', async () => {
    const endpoint = await endpointFor(['license.created'])
    const tested = await api('POST', `/staff/webhook-endpoints/${endpoint.id}/test`, { as: admin })
    expect(tested.status).toBe(200)
    expect(tested.body.delivery).toMatchObject({ outcome: 'succeeded', responseStatus: 200 })
    const [test] = receiver.at(endpoint.path)
    expect(test!.verified).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint.id } })
    expect(test!.id).toBe(tested.body.eventId)
    await manualLicense()
    await drain()
    const original = receiver.at(endpoint.path)[1]!
    const delivery = (await deliveriesOf(endpoint)).find((row) => row.trigger === 'automatic')!
    expect((await api('POST', `/staff/webhook-deliveries/${delivery.id}/send-again`, { as: support })).status).toBe(403)
    expect((await api('POST', `/staff/webhook-deliveries/${delivery.id}/send-again`, { as: customer })).status).toBe(
      403,
    )
    const again = await api('POST', `/staff/webhook-deliveries/${delivery.id}/send-again`, { as: admin })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ eventId: original.id, delivery: { outcome: 'succeeded', responseStatus: 200 } })
    const resent = receiver.at(endpoint.path).at(-1)!
    expect(resent.id).toBe(original.id)
    expect(resent.body).toBe(original.body)
    const rowsNow = await deliveriesOf(endpoint)
    expect(rowsNow.map((row) => [row.trigger, row.attempt])).toEqual([
      ['test', 1],
      ['automatic', 1],
      ['manual', 2],
    ])
    // Deliveries are the admins' (their URLs may be credentials): not support's, not customers'.
    expect((await api('GET', `/webhook_deliveries/${delivery.id}`, { as: admin })).status).toBe(200)
    expect((await api('GET', `/webhook_deliveries/${delivery.id}`, { as: support })).status).toBe(403)
    expect((await api('GET', '/webhook_deliveries', { as: support })).status).toBe(403)
    expect((await api('GET', `/webhook_deliveries/${delivery.id}`, { as: customer })).status).toBe(403)
    expect((await api('GET', '/webhook_deliveries', { as: customer })).status).toBe(403)
    expect((await api('GET', '/webhook_events', { as: support })).status).toBe(403)
    expect((await api('POST', '/staff/webhook-deliveries/999999/send-again', { as: admin })).body.errors[0].code).toBe(
      'webhook_delivery_not_found',
    )
  })
})

describe('the documented receiver (docs/WEBHOOKS.md)', () => {
  it("verifies the service's deliveries, refuses a forged one and prints each event once", async () => {
    const doc = fs.readFileSync(path.join(root, 'docs/WEBHOOKS.md'), 'utf8')
    const code = /```js receiver\n([\s\S]*?)```/.exec(doc)![1]!
    expect(code.trim().split('\n')).toHaveLength(10)
    // Inside the project, so `standardwebhooks` resolves from its node_modules as it would in the seller's.
    const file = path.join(root, '.data', `receiver-${process.pid}.mjs`)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, code)
    paths += 1
    const created = await api('POST', '/webhook_endpoints', {
      as: admin,
      body: { url: 'http://127.0.0.1:1/', events: ['license.created'] },
    })
    const secret = (await api('POST', `/staff/webhook-endpoints/${created.body.doc.id}/reveal-secret`, { as: admin }))
      .body.secret as string
    const port = await freePort()
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    // Closed: the process has exited and all it wrote is in `output`.
    let closed = false
    child.once('close', () => (closed = true))
    try {
      const url = `http://127.0.0.1:${port}/`
      // Listening: it answers an unsigned delivery with 400.
      await waitUntil(
        async () =>
          (await fetch(url, { method: 'POST', body: '{}' }).then(
            (response) => response.status,
            () => null,
          )) === 400,
        {
          message: 'the receiver did not start',
          detail: () => output,
        },
      )
      expect(
        (await api('PATCH', `/webhook_endpoints/${created.body.doc.id}`, { as: admin, body: { url } })).status,
      ).toBe(200)
      const license = await manualLicense()
      await drain()
      const [delivery] = (
        await payload().find({
          collection: 'webhook_deliveries',
          where: { endpoint: { equals: created.body.doc.id } },
          depth: 0,
        })
      ).docs
      expect(delivery).toMatchObject({ outcome: 'succeeded', responseStatus: 204 })
      expect(
        (await api('POST', `/staff/webhook-deliveries/${delivery!.id}/send-again`, { as: admin })).body.delivery
          .responseStatus,
      ).toBe(204)
      // A forged delivery: the right headers' shape, a signature made with another secret.
      const forged = JSON.stringify({
        type: 'license.revoked',
        timestamp: new Date().toISOString(),
        data: { id: license.id },
      })
      const other = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`)
      const now = new Date()
      const refused = await fetch(url, {
        method: 'POST',
        body: forged,
        headers: {
          'webhook-id': 'msg_forged',
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': other.sign('msg_forged', now, forged),
        },
      })
      expect(refused.status).toBe(400)
      // Stopped, and its output read to the end: everything it printed for these deliveries is there.
      child.kill()
      await waitUntil(() => closed, { message: 'the receiver did not stop and close its output' })
      const lines = output.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^license\.created \{/)
      expect(JSON.parse(lines[0]!.slice('license.created '.length))).toMatchObject({ id: license.id, status: 'active' })
    } finally {
      child.kill()
      fs.rmSync(file, { force: true })
    }
  })
})

describe('the event catalogue (docs/WEBHOOKS.md)', () => {
  it('lists every event the service sends, each with an example payload', () => {
    const doc = fs.readFileSync(path.join(root, 'docs/WEBHOOKS.md'), 'utf8')
    const listed = [...doc.matchAll(/^\| `([a-z]+\.[a-z]+)` \|/gm)].map((match) => match[1])
    expect(listed.sort()).toEqual([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE].sort())
    const examples = [...doc.matchAll(/"type": "([a-z]+\.[a-z]+)"/g)].map((match) => match[1]!)
    const headings = [...doc.matchAll(/^### (.+)$/gm)].flatMap((match) =>
      [...match[1]!.matchAll(/`([a-z]+\.[a-z]+)`/g)].map((name) => name[1]!),
    )
    for (const type of [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]) expect(headings, type).toContain(type)
    // Each example section shows one of its events in full.
    expect(examples.length).toBeGreaterThanOrEqual(6)
    for (const example of examples) expect([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]).toContain(example)
  })
})
