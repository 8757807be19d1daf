import './../support/oauth-env'
import './../support/billing-env'

import fs from 'node:fs'
import path from 'node:path'

import { beforeAll, describe, expect, it, vi } from 'vitest'

import { handleAuthCallback } from '../../src/auth/callback'
import { STATE_COOKIE } from '../../src/auth/oauth'
import { completePasswordReset } from '../../src/auth/recovery'
import type * as Customers from '../../src/billing/customers'
import { claimPurchases } from '../../src/billing/customers'
import { rememberCustomer, resolveBuyer } from '../../src/billing/store'
import { inTransaction } from '../../src/db/transaction'
import { PRICES, smtp } from '../support/billing-env'
import { buy, rows, seedStandInPlans } from '../support/billing'
import { backendPid, lockWaiters, waitForLockWaiters, waitUntil } from '../support/locks'
import { oauth } from '../support/oauth-env'
import { api, createUser, type TestUser, usePayload } from '../support/payload'

/**
 * Anonymous purchases are claimed in one place: the billing plugin's afterChange hook on users, when
 * an account gains a verified email (src/billing/claim.ts). Every way an address becomes verified
 * claims the purchase exactly once, in the transaction that verified it; an unverified account
 * claims nothing. claimPurchases is wrapped (not replaced) to count its calls.
 */
vi.mock('../../src/billing/customers', async (importOriginal) => {
  const original = await importOriginal<typeof Customers>()
  return { ...original, claimPurchases: vi.fn(original.claimPurchases) }
})

const payload = usePayload()

let admin: TestUser
beforeAll(async () => {
  await seedStandInPlans(payload())
  admin = await createUser(payload(), 'admin')
})

let addressCounter = 0
/** A client address of its own per call, so per-address limits never mix these tests up. */
const from = () => ({
  'x-kit-client-address': `198.51.${Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`,
})

let serial = 0
const freshEmail = (label: string) => `claim-${label}-${Date.now()}-${serial++}@example.test`

/** How many times a claim ran for this address. */
const claimsFor = (email: string) =>
  vi.mocked(claimPurchases).mock.calls.filter(([, user]) => user.email.toLowerCase() === email).length

/** The link of `type` in the next email to `email` with this subject, sent by `send`. */
const linkFrom = async (email: string, subject: string, type: string, send: () => Promise<unknown>) => {
  const since = smtp.messages.length
  await send()
  await payload().jobs.run({ limit: 100 })
  const matching = () =>
    smtp.messages
      .slice(since)
      .filter((m) => JSON.stringify(m.to).includes(email) && (m.subject ?? '').startsWith(subject))
  await smtp.waitFor(() => matching().length >= 1)
  return new URL(new RegExp(`https?://\\S+type=${type}&token=[A-Za-z0-9_-]+`).exec(matching().at(-1)!.text ?? '')![0])
}
const callback = (url: URL, cookies = new Map<string, string>()) =>
  handleAuthCallback(payload(), { params: url.searchParams, cookies })

const accountOf = async (email: string) => (await rows(payload(), 'users', { email: { equals: email } }))[0]

/** Someone signs up with the address and never confirms it: an unverified account. */
const unverifiedAccount = async (email: string) => {
  expect(
    (await api('POST', '/auth/sign-up', { body: { email, password: 'an-unconfirmed-password-1' }, headers: from() }))
      .status,
  ).toBe(200)
  const account = await accountOf(email)
  expect(account?.emailVerified).toBe(false)
  return account!
}

const magicLink = async (email: string) =>
  callback(
    await linkFrom(email, 'Your sign-in link', 'magiclink', () =>
      api('POST', '/auth/magic-link', { body: { email }, headers: from() }),
    ),
  )

const signInWith = async (provider: 'github' | 'google', email: string) => {
  oauth.setAccount(provider, { id: `${provider}-${email}`, email, emailVerified: true, login: 'buyer' })
  const start = await api('GET', `/auth/oauth/${provider}`)
  const state = /kit-oauth=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')![1]!
  const back = new URL(await oauth.approve(start.headers.get('location')!))
  const result = await callback(back, new Map([[STATE_COOKIE, state]]))
  expect(result.cookie).toBeTruthy()
}

/** Each way an address becomes verified; each returns the account's id. */
const PATHS: [string, (email: string) => Promise<number>][] = [
  [
    "confirming one's sign-up",
    async (email) => {
      const account = await unverifiedAccount(email)
      expect(claimsFor(email)).toBe(0)
      // Opened away from the sign-up's browser: verified (and claimed) at once; the owner chooses a password next.
      expect(
        (
          await callback(
            await linkFrom(email, 'Confirm your email address', 'verify', () => Promise.resolve(undefined)),
          )
        ).location,
      ).toMatch(/\/reset-password\?step=new&confirmed=1$/)
      return account.id
    },
  ],
  [
    'a magic link that creates the account',
    async (email) => {
      expect((await magicLink(email)).cookie).toBeTruthy()
      return (await accountOf(email))!.id
    },
  ],
  [
    'a magic link into an unverified account',
    async (email) => {
      const account = await unverifiedAccount(email)
      expect((await magicLink(email)).cookie).toBeTruthy()
      return account.id
    },
  ],
  [
    'a password reset of an unverified account',
    async (email) => {
      const account = await unverifiedAccount(email)
      const link = await linkFrom(email, 'Reset your password', 'recovery', () =>
        api('POST', '/auth/forgot-password', { body: { email }, headers: from() }),
      )
      await completePasswordReset(payload(), link.searchParams.get('token')!, 'the-owners-password-1')
      return account.id
    },
  ],
  [
    'GitHub sign-in that creates the account',
    async (email) => {
      await signInWith('github', email)
      return (await accountOf(email))!.id
    },
  ],
  [
    'Google sign-in into an unverified account',
    async (email) => {
      const account = await unverifiedAccount(email)
      await signInWith('google', email)
      return account.id
    },
  ],
  [
    'a confirmed email change',
    async (email) => {
      const customer = await createUser(payload(), 'customer')
      const link = await linkFrom(email, 'Confirm your new email address', 'email_change', () =>
        api('POST', '/account/email', {
          as: customer,
          body: { email, currentPassword: customer.password },
          headers: from(),
        }),
      )
      expect(claimsFor(email)).toBe(0)
      expect((await callback(link)).cookie).toBeTruthy()
      return customer.user.id
    },
  ],
  [
    'an admin creating a verified user',
    async (email) => {
      const created = await api('POST', '/users', {
        as: admin,
        body: { email, password: 'set-by-an-admin-1', roles: ['customer'], emailVerified: true },
      })
      expect(created.status).toBe(201)
      return created.body.doc.id
    },
  ],
  [
    'an admin verifying an existing account',
    async (email) => {
      const account = await unverifiedAccount(email)
      expect((await api('PATCH', `/users/${account.id}`, { as: admin, body: { emailVerified: true } })).status).toBe(
        200,
      )
      return account.id
    },
  ],
  [
    'an admin moving a verified account to the address',
    async (email) => {
      const customer = await createUser(payload(), 'customer')
      expect((await api('PATCH', `/users/${customer.user.id}`, { as: admin, body: { email } })).status).toBe(200)
      return customer.user.id
    },
  ],
  [
    'the Local API setting the flag (scripts, tests)',
    async (email) => {
      const account = await unverifiedAccount(email)
      await payload().update({ collection: 'users', id: account.id, data: { emailVerified: true } })
      return account.id
    },
  ],
]

describe('an anonymous purchase is claimed once, when its address becomes verified', () => {
  it.each(PATHS)('by %s', async (_name, verify) => {
    const email = freshEmail('path')
    await buy(PRICES.standard, { email })
    const [license] = await rows(payload(), 'licenses', { email: { equals: email } })
    const [purchase] = await rows(payload(), 'one_time_purchases', { email: { equals: email } })
    expect([license?.user ?? null, purchase?.user ?? null]).toEqual([null, null])

    const userId = await verify(email)
    expect(await accountOf(email)).toMatchObject({ id: userId, emailVerified: true })
    expect((await rows(payload(), 'licenses', { user: { equals: userId } })).map((row) => row.id)).toEqual([
      license!.id,
    ])
    expect((await rows(payload(), 'one_time_purchases', { user: { equals: userId } })).map((row) => row.id)).toEqual([
      purchase!.id,
    ])
    expect(claimsFor(email)).toBe(1)

    // Signing in again, or saving the verified account, claims nothing more.
    expect((await magicLink(email)).cookie).toBeTruthy()
    await payload().update({ collection: 'users', id: userId, data: { name: 'Saved again' } })
    expect(claimsFor(email)).toBe(1)
    expect((await rows(payload(), 'licenses', { user: { equals: userId } })).map((row) => row.id)).toEqual([
      license!.id,
    ])
  })
})

describe('the claim is part of the change that verifies', () => {
  it('runs in its transaction: when the change rolls back, so does the claim', async () => {
    const email = freshEmail('rollback')
    await buy(PRICES.standard, { email })
    const account = await unverifiedAccount(email)
    await expect(
      inTransaction(payload(), async (req) => {
        await payload().update({
          collection: 'users',
          id: account.id,
          data: { emailVerified: true },
          req,
          overrideAccess: true,
        })
        const [claimed] = (
          await payload().find({ collection: 'licenses', where: { email: { equals: email } }, depth: 0, req })
        ).docs
        expect(claimed?.user).toBe(account.id)
        throw new Error('the verifying change failed')
      }),
    ).rejects.toThrow('the verifying change failed')
    expect((await accountOf(email))?.emailVerified).toBe(false)
    expect((await rows(payload(), 'licenses', { email: { equals: email } })).map((row) => row.user ?? null)).toEqual([
      null,
    ])
  })
})

describe('a purchase whose webhook arrives while its address is being verified', () => {
  it("waits for the verification to commit and is the account's, not left anonymous", async () => {
    const email = freshEmail('race')
    const account = await unverifiedAccount(email)
    let commit = () => {}
    const held = new Promise<void>((resolve) => (commit = resolve))
    let claimed = (_pid: number) => {}
    const verified = new Promise<number>((resolve) => (claimed = resolve))
    // The verification's transaction runs the claim (and takes the per-email lock), then stays open.
    const verifying = inTransaction(payload(), async (req) => {
      await payload().update({
        collection: 'users',
        id: account.id,
        data: { emailVerified: true },
        req,
        overrideAccess: true,
      })
      claimed(await backendPid(req))
      await held
    })
    let paying: Promise<unknown> | undefined
    try {
      // The update returned: its afterChange hook has claimed, holding the email's lock until the commit.
      const verifier = await verified
      expect(claimsFor(email)).toBe(1)
      paying = buy(PRICES.standard, { email })
      // The webhook is waiting on the lock: its backend is blocked behind the verification's, on the email's lock.
      await waitForLockWaiters({
        blockedBy: verifier,
        advisoryKey: `buyer-email:${email}`,
        timeoutMs: 15_000,
        message: "the webhook never waited on the verification's email lock: the interleaving was not proven",
      })
      // No purchase for the address yet, anonymous or not.
      expect(await rows(payload(), 'one_time_purchases', { email: { equals: email } })).toEqual([])
    } finally {
      commit()
      await Promise.allSettled([verifying, paying])
    }
    await verifying
    await paying
    const [purchase] = await rows(payload(), 'one_time_purchases', { email: { equals: email } })
    expect(purchase?.user).toBe(account.id)
    const [license] = await rows(payload(), 'licenses', { email: { equals: email } })
    expect(license?.user).toBe(account.id)
  })
})

describe('a signed-in buyer whose address changes while their purchase is applied', () => {
  it('the webhook takes no email lock for a named account, so the two cannot deadlock', async () => {
    const buyer = await createUser(payload(), 'customer')
    const changed = freshEmail('renamed')
    let resolved = () => {}
    const buyerResolved = new Promise<void>((resolve) => (resolved = resolve))
    let proceed = () => {}
    const mayProceed = new Promise<void>((resolve) => (proceed = resolve))
    // The webhook's steps, as store.ts runs them: the buyer (named by the session, with the new address
    // as the checkout's email), then remembering its processor customer on the account's row.
    const webhook = inTransaction(payload(), async (req) => {
      const found = await resolveBuyer(req, String(buyer.user.id), changed)
      resolved()
      await mayProceed
      await rememberCustomer(req, found, 'cus_deadlock_test')
      return found
    })
    await buyerResolved
    // Meanwhile the address change commits its claim: it holds the account's row and takes the email's lock,
    // and stays open until the webhook is waiting for that row.
    let changer = 0
    let updated = false
    let commitChange = () => {}
    const mayCommit = new Promise<void>((resolve) => (commitChange = resolve))
    const changing = inTransaction(payload(), async (req) => {
      changer = await backendPid(req)
      const doc = await payload().update({
        collection: 'users',
        id: buyer.user.id,
        data: { email: changed },
        req,
        overrideAccess: true,
      })
      updated = true
      await mayCommit
      return doc
    })
    try {
      // The change has written the row and claimed (the email's lock is its own), or it is stuck on a lock the
      // webhook holds: then letting the webhook write the row is the deadlock this test is about.
      await waitUntil(async () => updated || (changer !== 0 && (await lockWaiters({ pid: changer })).length > 0), {
        message: 'the address change neither claimed nor waited on a lock: the interleaving was not proven',
      })
      proceed()
      // The webhook's write of the account's row waits behind the change, which holds the row.
      await waitForLockWaiters({
        blockedBy: changer,
        query: /processor_customer_id/i,
        message:
          "the webhook never waited on the account's row held by the address change: the interleaving was not proven",
      })
    } finally {
      proceed()
      commitChange()
      await Promise.allSettled([webhook, changing])
    }
    await expect(changing).resolves.toMatchObject({ email: changed })
    await expect(webhook).resolves.toMatchObject({ id: buyer.user.id })
    expect((await accountOf(changed))?.processorCustomerId).toBe('cus_deadlock_test')
  })
})

describe('an unverified account claims nothing', () => {
  it("signed up, created by an admin without the flag, saved, or with the purchase's address pending", async () => {
    const signedUp = freshEmail('unconfirmed')
    const byAdmin = freshEmail('admin-unverified')
    const pending = freshEmail('pending')
    for (const email of [signedUp, byAdmin, pending]) await buy(PRICES.standard, { email })

    const account = await unverifiedAccount(signedUp)
    await payload().update({ collection: 'users', id: account.id, data: { name: 'Still unconfirmed' } })
    const created = await api('POST', '/users', {
      as: admin,
      body: { email: byAdmin, password: 'set-by-an-admin-1', roles: ['customer'] },
    })
    expect(created.status).toBe(201)
    expect(created.body.doc.emailVerified).toBe(false)
    const customer = await createUser(payload(), 'customer')
    await linkFrom(pending, 'Confirm your new email address', 'email_change', () =>
      api('POST', '/account/email', {
        as: customer,
        body: { email: pending, currentPassword: customer.password },
        headers: from(),
      }),
    )

    for (const email of [signedUp, byAdmin, pending]) {
      expect(claimsFor(email)).toBe(0)
      expect((await rows(payload(), 'licenses', { email: { equals: email } })).map((row) => row.user ?? null)).toEqual([
        null,
      ])
    }
    expect(
      await rows(payload(), 'licenses', { user: { in: [account.id, created.body.doc.id, customer.user.id] } }),
    ).toHaveLength(0)
  })

  it("a purchase made after the address was verified is the account's from the start: no claim needed", async () => {
    const customer = await createUser(payload(), 'customer')
    // created verified: the one claim ran then, and found nothing
    expect(claimsFor(customer.email)).toBe(1)
    await buy(PRICES.standard, { email: customer.email })
    expect((await rows(payload(), 'licenses', { email: { equals: customer.email } })).map((row) => row.user)).toEqual([
      customer.user.id,
    ])
    expect(claimsFor(customer.email)).toBe(1)
  })
})

describe("no write verifies an address behind the hook's back", () => {
  /** The service's own code: a raw SQL or database-adapter write of the flag would skip Payload's hooks, and so the claim. */
  const FOLDERS = ['src', 'collections', 'plugins', 'endpoints', 'scripts']
  const files = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((entry) =>
        entry.isDirectory()
          ? files(path.join(dir, entry.name))
          : /\.tsx?$/.test(entry.name)
            ? [path.join(dir, entry.name)]
            : [],
      )
  const BYPASSES = [
    /UPDATE\s+(?:"?users"?|\$\{users\})\s+SET[^;`]*(?:email_verified|users\.emailVerified)/i,
    /INSERT\s+INTO\s+(?:"?users"?|\$\{users\})/i,
    /\.db\.(?:create|updateOne|updateMany|upsert)\(\s*\{[^}]*collection:\s*'users'[^)]*emailVerified/s,
  ]

  it('nothing under src, collections, plugins, endpoints or scripts sets email_verified except through the Local or REST API', () => {
    const offenders = FOLDERS.flatMap((folder) => files(path.join(process.cwd(), folder)))
      .filter((file) => BYPASSES.some((pattern) => pattern.test(fs.readFileSync(file, 'utf8'))))
      .map((file) => path.relative(process.cwd(), file))
    expect(offenders).toEqual([])
    // the patterns do match such writes
    expect(BYPASSES[0]!.test('sql`UPDATE users SET email_verified = true WHERE id = ${id}`')).toBe(true)
    expect(
      BYPASSES[0]!.test('sql`UPDATE ${users} SET ${bare(users.emailVerified)} = true WHERE ${users.id} = ${id}`'),
    ).toBe(true)
    expect(
      BYPASSES[1]!.test(
        'sql`INSERT INTO ${users} (${bare(users.email, users.emailVerified)}) VALUES (${email}, true)`',
      ),
    ).toBe(true)
    expect(
      BYPASSES[2]!.test("req.payload.db.updateOne({ collection: 'users', where: {}, data: { emailVerified: true } })"),
    ).toBe(true)
  })
})
