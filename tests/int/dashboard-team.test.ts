import './../support/billing-env'

import type { ReactNode } from 'react'
import { renderToReadableStream, renderToStaticMarkup } from 'react-dom/server'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { billingRuntimeOf } from '../../src/billing/runtime'
import { ERROR_SENTENCES, errorSentence } from '../../src/http/error-sentences'
import type { License } from '../../src/payload-types'
import { activate, DEACTIVATIONS_PER_DAY } from '../../src/teams/activations'
import { handleSeatClaim } from '../../src/teams/claim-link'
import { PRICES, smtp, standIn } from '../support/billing-env'
import { rows, seedStandInPlans } from '../support/billing'
import { grantLicense } from '../support/licenses'
import { createUser, type TestUser, usePayload } from '../support/payload'
import { redirectOf } from '../support/server-actions'
import { createRelease } from '../support/releases'

/**
 * The dashboard's Team, Installations and Team seats sections and the pricing table's seats, against
 * a real database: an owner buys seats through the Buy form, invites by email, the invitee claims the
 * emailed link and gets the downloads, the owner revokes; installations are deactivated within the
 * daily limit. Server actions and pages are called as Next would call them (tests/support/server-actions.ts).
 */
const hoisted = vi.hoisted((): { user: { current: unknown } } => ({ user: { current: null } }))

vi.mock('../../src/app/_lib/session', () =>
  import('../support/server-actions').then((m) => m.sessionModule(() => hoisted.user.current)),
)
vi.mock('next/navigation', () => import('../support/server-actions').then((m) => m.navigationModule))
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, unstable_cache: <T>(fn: T) => fn }))
vi.mock('next/headers', () => ({
  headers: () => Promise.resolve(new Headers({ 'user-agent': 'dashboard-team-test' })),
}))

const { assignSeatAction, deactivateInstallation, revokeSeatAction } =
  await import('../../src/app/(frontend)/dashboard/actions')
const { installationsOf, teamsOf } = await import('../../src/app/(frontend)/dashboard/data')
const { default: DashboardPage } = await import('../../src/app/(frontend)/dashboard/page')
const { startCheckout } = await import('../../src/app/(frontend)/_actions/checkout')
const { PricingTable } = await import('../../src/app/(frontend)/_components/PricingTable')
const { default: SignInPage } = await import('../../src/app/(frontend)/sign-in/page')

const payload = usePayload()

let owner: TestUser
let member: TestUser
let stranger: TestUser
let license: License

const as = (who: TestUser | null) => {
  hoisted.user.current = who ? { ...who.user, collection: 'users' } : null
}

const form = (fields: Record<string, string | number>) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.set(name, String(value))
  return data
}

const render = async (who: TestUser, searchParams: Record<string, string> = {}) => {
  as(who)
  return renderToStaticMarkup(await DashboardPage({ searchParams: Promise.resolve(searchParams) }))
}

/** A page whose parts are async server components (the sign-in page's OAuth buttons), rendered whole. */
const renderAsync = async (node: ReactNode) => {
  const stream = await renderToReadableStream(node)
  await stream.allReady
  return new Response(stream).text()
}

/** A sentence as React writes it into the page. */
const inHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/'/g, '&#x27;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')

/** The query of a redirect to the dashboard, and its anchor. */
const landing = (target: string) => {
  const url = new URL(target, 'http://localhost')
  return { path: url.pathname, query: Object.fromEntries(url.searchParams), hash: url.hash }
}

const seatsOf = (licenseId: number) => rows(payload(), 'license_seats', { license: { equals: licenseId } })

/** The claim link in the newest invitation to `email` (the seat's email is sent by a job). */
const claimLinkTo = async (email: string) => {
  await payload().jobs.run({ limit: 100 })
  const message = await smtp.waitFor(
    (candidate) => JSON.stringify(candidate.to).includes(email) && (candidate.subject ?? '').includes('seat'),
  )
  const link = /https?:\/\/\S+\/auth\/callback\?type=seat&token=[A-Za-z0-9_-]+/.exec(message.text ?? '')?.[0]
  expect(link, message.text).toBeDefined()
  return new URL(link!)
}

const plansBySlug = async () => {
  const { docs } = await payload().find({
    collection: 'plans',
    where: { active: { equals: true } },
    sort: 'order',
    depth: 0,
    pagination: false,
  })
  return docs
}

beforeAll(async () => {
  await seedStandInPlans(payload())
  await createRelease(payload(), '1.0.0')
  owner = await createUser(payload(), 'customer')
  member = await createUser(payload(), 'customer')
  stranger = await createUser(payload(), 'customer')
  await grantLicense(payload(), stranger, 'standard', 'active')
})

describe('pricing: seats in the Buy form', () => {
  it('a plan for several people has a labelled Seats field of 1 to its most, and says its price per seat; a plan for one has none', async () => {
    const html = renderToStaticMarkup(PricingTable({ plans: await plansBySlug(), from: '/pricing', headingLevel: 2 }))
    const ultimate = html.slice(html.indexOf('data-plan="ultimate"'), html.indexOf('data-plan="pro"'))
    const field = /<label for="([^"]+)">Seats<\/label><input id="([^"]+)"[^>]*>/.exec(ultimate)
    expect(field?.[1]).toBe('/pricing-seats-ultimate-once')
    expect(field?.[2]).toBe(field?.[1])
    for (const attribute of ['type="number"', 'name="quantity"', 'min="1"', 'max="10"', 'value="1"', 'required=""'])
      expect(field?.[0]).toContain(attribute)
    expect(ultimate).toContain('per seat, one-time')
    expect(ultimate).toContain('One per person, up to 10.')
    const pro = html.slice(html.indexOf('data-plan="pro"'))
    expect(pro).not.toContain('name="quantity"')
    expect(pro).not.toContain('per seat')
  })

  it('the Buy form’s seats reach the processor’s checkout; a number outside the plan’s range, or not a number, is refused in words', async () => {
    as(owner)
    const target = await redirectOf(() =>
      startCheckout(form({ priceId: PRICES.ultimate, from: '/pricing', quantity: '3' })),
    )
    const sessionId = /\/checkout\/(cs_[A-Za-z0-9_]+)/.exec(target)?.[1]
    expect(sessionId, target).toBeDefined()
    const { processor } = billingRuntimeOf(payload()).require()
    const lines = await processor.checkout.sessions.listLineItems(sessionId!)
    expect(lines.data.map((line) => [line.price?.id, line.quantity])).toEqual([[PRICES.ultimate, 3]])
    for (const quantity of ['11', '0', 'three', '2.5']) {
      expect(
        await redirectOf(() => startCheckout(form({ priceId: PRICES.ultimate, from: '/pricing', quantity }))),
      ).toBe('/pricing?checkout_error=invalid_quantity')
    }
    expect(await redirectOf(() => startCheckout(form({ priceId: PRICES.proMonthly, from: '/', quantity: '2' })))).toBe(
      '/?checkout_error=invalid_quantity#pricing',
    )

    // Paid on the processor's page, the license covers the three people.
    await standIn.pay(sessionId!, { email: owner.email })
    await standIn.settled()
    const [bought] = await rows(payload(), 'licenses', { user: { equals: owner.user.id } })
    expect(bought).toMatchObject({ seats: 3, status: 'active' })
    license = bought!
  })
})

describe('the owner’s Team section', () => {
  it('lists the owner’s seat, says how many are used, and invites by email: a pending seat, its link emailed, the address named on the page', async () => {
    as(owner)
    let html = await render(owner)
    expect(html).toContain(`id="team-${license.id}"`)
    expect(html).toContain('1 of 3 seats used.')
    expect(html).toContain(owner.email)

    const target = await redirectOf(() =>
      assignSeatAction(form({ license: license.id, email: `  ${member.email.toUpperCase()} ` })),
    )
    const { query, hash } = landing(target)
    expect(hash).toBe(`#team-${license.id}`)
    const [seat] = await seatsOf(license.id)
    expect(seat).toMatchObject({ email: member.email, status: 'pending' })
    expect(query).toEqual({ invited: String(seat!.id), license: String(license.id) })

    html = await render(owner, query)
    expect(html).toContain(
      `We emailed a link to ${member.email}. It works for 7 days, only for an account with that address.`,
    )
    expect(html).toContain('2 of 3 seats used.')
    expect(html).toContain('Invited')
    expect(html).toContain('The link works until')
    expect(html).toContain(`aria-label="Cancel invitation of ${member.email}"`)
  })

  it('refusals come back to the license’s section in words: an address twice, a bad address, every seat taken', async () => {
    as(owner)
    const again = landing(await redirectOf(() => assignSeatAction(form({ license: license.id, email: member.email }))))
    expect(again.query).toEqual({ team_error: 'seat_already_assigned', license: String(license.id) })
    expect(await render(owner, again.query)).toContain(inHtml(errorSentence('seat_already_assigned')))

    const bad = landing(
      await redirectOf(() => assignSeatAction(form({ license: license.id, email: 'not an address' }))),
    )
    expect(bad.query).toEqual({ team_error: 'invalid_email', license: String(license.id) })
    expect(await render(owner, bad.query)).toContain('Enter the email address of the person you want to add.')

    expect(
      landing(await redirectOf(() => assignSeatAction(form({ license: license.id, email: 'third@example.test' }))))
        .query,
    ).toHaveProperty('invited')
    const full = landing(
      await redirectOf(() => assignSeatAction(form({ license: license.id, email: 'fourth@example.test' }))),
    )
    expect(full.query).toEqual({ team_error: 'seats_exhausted', license: String(license.id) })
    const html = await render(owner, full.query)
    expect(html).toContain(inHtml(errorSentence('seats_exhausted')))
    expect(html).toContain('3 of 3 seats used.')
    expect(html).toContain('Every seat is taken. Revoke a seat, or cancel an invitation, to invite someone else.')
    expect(html).not.toContain('name="email"')
    // The error shows on this license's section only, never on another's.
    expect(await render(owner, { ...full.query, license: String(license.id + 1000) })).not.toContain('role="alert"')
    expect((await seatsOf(license.id)).map((seat) => seat.email)).toEqual([member.email, 'third@example.test'])
  })

  it('someone else’s license: "not found", and nothing is assigned or revoked', async () => {
    as(stranger)
    expect(
      landing(await redirectOf(() => assignSeatAction(form({ license: license.id, email: 'x@example.test' })))).query
        .team_error,
    ).toBe('license_not_found')
    const [seat] = await seatsOf(license.id)
    expect(
      landing(await redirectOf(() => revokeSeatAction(form({ license: license.id, seat: seat!.id })))).query.team_error,
    ).toBe('license_not_found')
    const malformed = landing(
      await redirectOf(() => revokeSeatAction(form({ license: `${license.id} OR 1=1`, seat: seat!.id }))),
    )
    expect(malformed).toEqual({
      path: '/dashboard',
      query: { team_error: 'license_not_found' },
      hash: '#licenses-heading',
    })
    expect(await render(stranger, malformed.query)).toContain(inHtml(errorSentence('license_not_found')))
    expect((await seatsOf(license.id)).map((row) => row.status)).toEqual(['pending', 'pending'])
    expect(await render(stranger)).not.toContain('data-testid="team"')
  })

  it('a license for one person has no Team section', async () => {
    expect(await render(stranger)).not.toContain('seats used')
  })
})

describe('the member', () => {
  it('signed out, the link asks to sign in with the invited address; the sign-in page says so and keeps `next` for sign-up', async () => {
    const link = await claimLinkTo(member.email)
    const signedOut = await handleSeatClaim(payload(), { params: link.searchParams, cookies: new Map(), user: null })
    const to = new URL(signedOut.location)
    expect(`${to.pathname}${to.search}`).toBe('/sign-in?next=%2Fauth%2Fcallback%3Ftype%3Dseat&notice=seat')
    const html = await renderAsync(
      await SignInPage({ searchParams: Promise.resolve(Object.fromEntries(to.searchParams)) }),
    )
    expect(html.replace(/<[^>]+>/g, '')).toContain(
      'Sign in, or create an account, with the email address the invitation was sent to. Your seat is claimed as soon as you do.',
    )
    // Both ways to sign up keep the way back to the claim: the notice's link and the page's own.
    expect(html.match(/href="\/sign-up\?next=%2Fauth%2Fcallback%3Ftype%3Dseat"/g)).toHaveLength(2)
    expect(await renderAsync(await SignInPage({ searchParams: Promise.resolve({}) }))).not.toContain('invitation')
  })

  it('claims the seat: the dashboard says so, lists the team seat, and offers the downloads, never the key, a renewal or the team', async () => {
    const link = await claimLinkTo(member.email)
    const claimed = await handleSeatClaim(payload(), {
      params: link.searchParams,
      cookies: new Map(),
      user: member.user,
    })
    const to = new URL(claimed.location)
    expect(`${to.pathname}${to.search}`).toBe('/dashboard?seat=claimed')
    const html = await render(member, { seat: 'claimed' })
    expect(html).toContain('You joined the team: the license’s downloads and features are yours now.')
    expect(html).toContain('data-testid="team-seats"')
    expect(html).toContain(
      `<strong>Ultimate license</strong>, shared with you by ${owner.email}, joined ${new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }).format(new Date())}.`,
    )
    expect(html).toContain('You have no license of your own')
    expect(html).toContain('value="1.0.0"')
    expect(html).toContain('id="repository"')
    expect(html).toContain('id="templates"')
    expect(html).not.toContain(license.key)
    expect(html).not.toContain('data-testid="team"')
    expect(html).not.toContain('Renew updates')
    expect(html).not.toContain('Downloads come with')
  })

  it('each outcome of the link in one sentence; an unknown one says nothing', async () => {
    expect(await render(member, { seat: 'wrong_account' })).toContain(
      'This invitation was sent to another email address.',
    )
    expect(await render(member, { seat: 'invalid_link' })).toContain(
      'This invitation link was used, revoked or has expired. Ask the license owner for a new one.',
    )
    expect(await render(member, { seat: 'unverified' })).toContain('Confirm your email address first')
    const unknown = await render(member, { seat: '<b>constructor</b>' })
    expect(unknown).not.toContain('data-testid="seat-notice"')
    expect(await render(member, { seat: 'constructor' })).not.toContain('data-testid="seat-notice"')
  })

  it('the owner sees them joined, revokes after the confirmation step, and the member’s downloads are gone', async () => {
    let html = await render(owner)
    expect(html).toContain('Joined')
    expect(html).toContain(`aria-label="Revoke the seat of ${member.email}"`)
    expect(html).toContain('Yes, revoke the seat')
    const [seat] = await seatsOf(license.id)
    as(member)
    // The member holds the seat but cannot end it (nor anyone else's): only the owner manages the team.
    expect(
      landing(await redirectOf(() => revokeSeatAction(form({ license: license.id, seat: seat!.id })))).query.team_error,
    ).toBe('not_license_owner')
    as(owner)
    const done = landing(await redirectOf(() => revokeSeatAction(form({ license: license.id, seat: seat!.id }))))
    expect(done.query).toEqual({ revoked: '1', license: String(license.id) })
    expect((await seatsOf(license.id))[0]).toMatchObject({ status: 'revoked' })
    html = await render(owner, done.query)
    expect(html).toContain('Done: the seat is free again')
    expect(html).toContain('2 of 3 seats used.')

    html = await render(member)
    expect(html).not.toContain('data-testid="team-seats"')
    expect(html).toContain('Downloads come with a Standard, Ultimate or Pro license.')
    expect(html).not.toContain('value="1.0.0"')
  })
})

describe('installations', () => {
  const fingerprint = (index: number) => `fp-${index}-${'a'.repeat(40)}`

  it('a plan without a limit and no activation: no section; with activations: listed, fingerprint shortened, the whole one in its title', async () => {
    expect(await render(owner)).not.toContain('data-testid="installations"')
    await activate(payload(), { key: license.key, fingerprint: fingerprint(1), label: 'Build server' })
    const html = await render(owner)
    expect(html).toContain(`id="installations-${license.id}"`)
    expect(html).toContain('1 in use; this plan allows any number.')
    expect(html).toContain('Build server')
    expect(html).toContain(`title="${fingerprint(1)}"`)
    expect(html).toContain(`${fingerprint(1).slice(0, 12)}…`)
    expect(html).toContain(`A license can be deactivated ${DEACTIVATIONS_PER_DAY} times a day`)
  })

  it('a plan with a limit: "N of LIMIT in use"; deactivations within the daily limit, then refused with when to try again', async () => {
    await payload().update({
      collection: 'plans',
      where: { slug: { equals: 'ultimate' } },
      data: { maxActivations: 5 },
      overrideAccess: true,
    })
    for (const index of [2, 3, 4])
      await activate(payload(), { key: license.key, fingerprint: fingerprint(index), label: null })
    as(owner)
    const req = await import('payload').then(({ createLocalReq }) =>
      createLocalReq({ user: { ...owner.user, collection: 'users' } }, payload()),
    )
    const [listed] = await installationsOf(req, [{ license, plan: { name: 'Ultimate' } }])
    expect(listed).toMatchObject({ limit: 5 })
    expect(listed!.activations).toHaveLength(4)
    expect(await render(owner)).toContain('4 of 5 in use.')
    expect(await render(owner)).toContain('Unnamed installation')

    as(stranger)
    expect(
      landing(
        await redirectOf(() =>
          deactivateInstallation(form({ license: license.id, activation: listed!.activations[0]!.id })),
        ),
      ).query.installations_error,
    ).toBe('license_not_found')
    as(owner)
    for (const activation of listed!.activations.slice(0, DEACTIVATIONS_PER_DAY)) {
      const done = landing(
        await redirectOf(() => deactivateInstallation(form({ license: license.id, activation: activation.id }))),
      )
      expect(done).toMatchObject({
        query: { deactivated: '1', license: String(license.id) },
        hash: `#installations-${license.id}`,
      })
    }
    expect(await render(owner, { deactivated: '1', license: String(license.id) })).toContain(
      'Deactivated: its place is free for another installation.',
    )
    const refused = landing(
      await redirectOf(() =>
        deactivateInstallation(form({ license: license.id, activation: listed!.activations[3]!.id })),
      ),
    )
    expect(refused.query).toMatchObject({ installations_error: 'deactivation_limit', license: String(license.id) })
    expect(Number(refused.query.retry)).toBeGreaterThan(23 * 3600)
    const html = await render(owner, refused.query)
    expect(html).toContain(
      `This license has been deactivated ${DEACTIVATIONS_PER_DAY} times in the last day, the most there can be. Try again in about 24 hours, or contact support.`,
    )
    expect(html).toContain('1 of 5 in use.')
    expect(
      landing(await redirectOf(() => deactivateInstallation(form({ license: license.id, activation: 'x' })))).query
        .installations_error,
    ).toBe('activation_not_found')
  })

  it('teamsOf and installationsOf cover only what they are given: a member’s dashboard asks nothing of the owner’s license', async () => {
    const req = await import('payload').then(({ createLocalReq }) =>
      createLocalReq({ user: { ...member.user, collection: 'users' } }, payload()),
    )
    expect(await teamsOf(req, member.user, [])).toEqual([])
    expect(await installationsOf(req, [])).toEqual([])
    expect(await render(member)).not.toContain('data-testid="installations"')
  })
})

describe('every customer-facing string is a sentence', () => {
  it('the refusals the sections can show have the service’s words; each outcome of a claim link has a sentence', async () => {
    for (const code of [
      'seats_exhausted',
      'seat_already_assigned',
      'license_inactive',
      'not_license_owner',
      'seat_not_found',
      'activation_not_found',
      'license_not_found',
      'rate_limited',
      'deactivation_limit',
    ]) {
      expect(code in ERROR_SENTENCES, code).toBe(true)
    }
    const { SEAT_CLAIM_WORDS } = await import('../../src/app/(frontend)/dashboard/words')
    for (const outcome of [
      'claimed',
      'invalid_link',
      'wrong_account',
      'unverified',
      'own_license',
      'already_member',
      'license_inactive',
    ]) {
      expect(SEAT_CLAIM_WORDS[outcome]?.sentence, outcome).toMatch(/\.$/)
    }
  })
})
