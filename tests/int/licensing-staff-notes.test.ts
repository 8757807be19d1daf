import './../support/billing-env'

import { beforeAll, describe, expect, it } from 'vitest'

import { PRICES } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { api, createUser, usePayload } from '../support/payload'

const payload = usePayload()

beforeAll(async () => {
  await seedStandInPlans(payload())
})

const STAFF_NOTES = ['overrideReason', 'revokedReason', 'revokedBy'] as const
const NOTE = 'customer threatened a chargeback, see ticket 4411'

describe('staff notes on licenses', () => {
  it('customers read their license without the staff notes; support reads them', async () => {
    const buyer = await createUser(payload(), 'customer')
    await buy(PRICES.standard, { as: buyer })
    const [license] = await rows(payload(), 'licenses', { user: { equals: buyer.user.id } })
    const support = await createUser(payload(), 'support')
    expect(
      (
        await api('PATCH', `/licenses/${license!.id}`, {
          as: support,
          body: { override: 'revoked', overrideReason: NOTE },
        })
      ).status,
    ).toBe(200)

    const own = await api('GET', `/licenses/${license!.id}`, { as: buyer })
    expect(own.status).toBe(200)
    expect(own.body).toMatchObject({ id: license!.id, status: 'revoked', key: license!.key })
    for (const field of STAFF_NOTES) expect(own.body).not.toHaveProperty(field)
    const listed = await api('GET', '/licenses?depth=1', { as: buyer })
    for (const field of STAFF_NOTES) expect(listed.body.docs[0]).not.toHaveProperty(field)
    expect(JSON.stringify(listed.body)).not.toContain(NOTE)

    const graphql = await api('POST', '/graphql', {
      as: buyer,
      body: { query: `{ Licenses { docs { id status overrideReason revokedReason } } }` },
    })
    expect(JSON.stringify(graphql.body)).not.toContain(NOTE)

    // Nor through the analytics events about them, which customers also read.
    const analytics = await api('GET', '/analytics_events?limit=100', { as: buyer })
    expect(analytics.status).toBe(200)
    expect(analytics.body.docs.map((event: { name: string }) => event.name)).toContain('license_revoked')
    expect(JSON.stringify(analytics.body)).not.toContain(NOTE)

    const staffView = await api('GET', `/licenses/${license!.id}`, { as: support })
    expect(staffView.body).toMatchObject({ overrideReason: NOTE, revokedReason: NOTE })
    expect(staffView.body.revokedBy).toBeTruthy()
  })

  it("the schedules' bookkeeping is admins-only", async () => {
    const customer = await createUser(payload(), 'customer')
    const support = await createUser(payload(), 'support')
    const admin = await createUser(payload(), 'admin')
    for (const user of [customer, support]) {
      expect((await api('GET', '/globals/payload-jobs-stats', { as: user })).status).toBe(403)
      expect(
        (await api('POST', '/globals/payload-jobs-stats', { as: user, body: { stats: { scheduledRuns: {} } } })).status,
      ).toBe(403)
    }
    expect((await api('GET', '/globals/payload-jobs-stats', { as: admin })).status).toBe(200)
  })
})

describe('staff notes on repository access', () => {
  it("customers read their repository access without the code host's last error; support reads it", async () => {
    const customer = await createUser(payload(), 'customer')
    const support = await createUser(payload(), 'support')
    const error = 'code host answered 502 for kit-org/starter-kit at https://internal.example/api'
    const row = await payload().create({
      collection: 'repo_access',
      data: { user: customer.user.id, username: `octo-${customer.user.id}`, status: 'failed', lastError: error },
      overrideAccess: true,
    })
    const own = await api('GET', `/repo_access/${row.id}`, { as: customer })
    expect(own.status).toBe(200)
    expect(own.body).toMatchObject({ status: 'failed' })
    expect(own.body).not.toHaveProperty('lastError')
    const graphql = await api('POST', '/graphql', {
      as: customer,
      body: { query: '{ RepoAccesses { docs { id status lastError } } }' },
    })
    expect(JSON.stringify(graphql.body)).not.toContain('internal.example')
    expect((await api('GET', `/repo_access/${row.id}`, { as: support })).body.lastError).toBe(error)
  })
})
