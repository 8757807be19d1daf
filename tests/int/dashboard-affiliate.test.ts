import './../support/billing-env'

import crypto from 'node:crypto'

import { createElement, type ReactNode } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { affiliateLink } from '../../src/affiliates/apply'
import { runtimeOf } from '../../src/config/runtime'
import {
  affiliate_clicks,
  affiliate_commissions,
  affiliate_referrals,
  payment_history,
} from '../../src/db/schema.generated'
import { bare, executeOn, sql } from '../../src/db/transaction'
import { errorSentence } from '../../src/http/error-sentences'
import type { Affiliate } from '../../src/payload-types'
import { rows, seedStandInPlans } from '../support/billing'
import { api, createUser, type TestUser, usePayload } from '../support/payload'
import { redirectOf } from '../support/server-actions'

/**
 * The dashboard's Affiliate program section against a real database: the form for a customer who
 * never applied, applying through its server action (called as Next would call it), a refused code in
 * words, and an active affiliate's link, visits, sales and commissions per currency. Then the admin's
 * Record payout on the affiliate's page: its drawer (Payload's admin UI stood in for), the endpoint it
 * posts to, and the payout's words.
 */
const hoisted = vi.hoisted((): { user: { current: unknown } } => ({ user: { current: null } }))

vi.mock('../../src/app/_lib/session', () =>
  import('../support/server-actions').then((m) => m.sessionModule(() => hoisted.user.current)),
)
vi.mock('next/navigation', () => import('../support/server-actions').then((m) => m.navigationModule))
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, unstable_cache: <T>(fn: T) => fn }))
vi.mock('next/headers', () => ({
  headers: () => Promise.resolve(new Headers({ 'user-agent': 'dashboard-affiliate-test' })),
}))

/** The admin's UI kit, as far as RecordPayout uses it: the drawer is always open, so the server render shows it. */
const adminUi = vi.hoisted(
  (): { user: { roles: string[] } | null; id: number | undefined; data: Record<string, unknown> } => ({
    user: null,
    id: undefined,
    data: {},
  }),
)
vi.mock('@payloadcms/ui', () => ({
  Button: ({ children, disabled, tooltip }: { children: ReactNode; disabled?: boolean; tooltip?: string }) =>
    createElement('button', { type: 'button', disabled, title: tooltip }, children),
  Drawer: ({ children, title }: { children: ReactNode; title: string }) =>
    createElement('div', { 'data-drawer': title }, children),
  toast: { success: () => undefined },
  useAuth: () => ({ user: adminUi.user }),
  useDocumentInfo: () => ({ id: adminUi.id, data: adminUi.data }),
  useDrawerSlug: (slug: string) => slug,
  useModal: () => ({ openModal: () => undefined, closeModal: () => undefined }),
}))

const { applyAffiliate } = await import('../../src/app/(frontend)/dashboard/affiliate-actions')
const { default: DashboardPage } = await import('../../src/app/(frontend)/dashboard/page')
const { payoutSentence, RecordPayout } = await import('../../src/app/(payload)/_components/RecordPayout')

const payload = usePayload()

let applicant: TestUser
let other: TestUser

const as = (who: TestUser | null) => {
  hoisted.user.current = who ? { ...who.user, collection: 'users' } : null
}

const form = (fields: Record<string, string>) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.set(name, value)
  return data
}

/** The dashboard as `who` sees it, and its Affiliate program section alone. */
const render = async (who: TestUser, searchParams: Record<string, string> = {}) => {
  as(who)
  const html = renderToStaticMarkup(await DashboardPage({ searchParams: Promise.resolve(searchParams) }))
  const start = html.indexOf('<section class="card" id="affiliate"')
  expect(start, 'the dashboard has an Affiliate program section').toBeGreaterThan(-1)
  return { html, section: html.slice(start, html.indexOf('</section>', start) + '</section>'.length) }
}

/** A sentence as React writes it into the page. */
const inHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/'/g, '&#x27;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')

const affiliateOf = async (who: TestUser): Promise<Affiliate | undefined> =>
  (await rows(payload(), 'affiliates', { user: { equals: who.user.id } }))[0]

const DAY_MS = 86_400_000

/** A payment the affiliate's link brought, and commissions on it as the service would have stored them. */
const commissions = async (
  affiliateId: number,
  entries: { amount: number; currency: string; status: string; availableAt: Date }[],
) => {
  const p = payment_history
  const [payment] = await executeOn<{ id: number }>(
    payload(),
    undefined,
    sql`INSERT INTO ${p} (${bare(p.processorPaymentId, p.amount, p.currency, p.paymentType, p.status)})
        VALUES (${`pi_${crypto.randomBytes(6).toString('hex')}`}, 14900, 'usd', 'one_time', 'succeeded')
        RETURNING ${p.id}`,
  )
  const c = affiliate_commissions
  for (const [index, entry] of entries.entries()) {
    await executeOn(
      payload(),
      undefined,
      sql`INSERT INTO ${c} (${bare(c.affiliate, c.sourceKey, c.payment, c.kind, c.amount, c.currency, c.status, c.availableAt)})
          VALUES (${affiliateId}, ${`payment:${payment!.id}:${index}`}, ${payment!.id}, 'commission', ${entry.amount},
            ${entry.currency}, ${entry.status}, ${entry.availableAt.toISOString()})`,
    )
  }
}

beforeAll(async () => {
  await seedStandInPlans(payload())
  applicant = await createUser(payload(), 'customer')
  other = await createUser(payload(), 'customer')
})

describe('the Affiliate program section', () => {
  it('a customer who never applied sees what the program is and the form, the payout email prefilled, before the deletion section', async () => {
    const { html, section } = await render(applicant)
    expect(section).toContain('<h2 id="affiliate-heading">Affiliate program</h2>')
    expect(section).toContain('commission of the sale net of tax')
    expect(section).toContain('30 days (the refund period)')
    expect(section).toContain('Your code (optional)')
    expect(section).toContain('3 to 32 letters, digits or hyphens; we make one up if you leave it empty')
    expect(section).toMatch(/<input[^>]*name="code"[^>]*>/)
    const email = /<input[^>]*name="payoutEmail"[^>]*>/.exec(section)?.[0]
    expect(email).toContain(`value="${applicant.email}"`)
    expect(email).toContain('required=""')
    expect(section).toContain('>Apply</button>')
    expect(section).not.toContain('data-testid="affiliate-link"')
    expect(html.indexOf('id="your-data"')).toBeLessThan(html.indexOf('id="affiliate"'))
    expect(html.indexOf('id="affiliate"')).toBeLessThan(html.indexOf('id="delete-account"'))
  })

  it('a code that breaks the rule is refused in words, and nothing is stored; a bad payout email too; signed out, the form leads to sign-in', async () => {
    as(applicant)
    expect(await redirectOf(() => applyAffiliate(form({ code: 'no spaces!', payoutEmail: applicant.email })))).toBe(
      '/dashboard?affiliate_error=invalid_request#affiliate',
    )
    expect(await redirectOf(() => applyAffiliate(form({ code: 'ab', payoutEmail: applicant.email })))).toBe(
      '/dashboard?affiliate_error=invalid_request#affiliate',
    )
    expect(await redirectOf(() => applyAffiliate(form({ code: '', payoutEmail: 'not-an-email' })))).toBe(
      '/dashboard?affiliate_error=invalid_email#affiliate',
    )
    expect(await affiliateOf(applicant)).toBeUndefined()
    const { section } = await render(applicant, { affiliate_error: 'invalid_request' })
    expect(section).toContain(
      `<p role="alert" class="error-box">${inHtml('That code cannot be used: choose 3 to 32 letters, digits or hyphens, or leave it empty.')}</p>`,
    )
    // The form is still there, to try again.
    expect(section).toContain('>Apply</button>')
    const badEmail = await render(applicant, { affiliate_error: 'invalid_email' })
    expect(badEmail.section).toContain(
      `<p role="alert" class="error-box">${inHtml('Enter the email address your commissions are paid to.')}</p>`,
    )
    as(null)
    expect(await redirectOf(() => applyAffiliate(form({ payoutEmail: applicant.email })))).toBe(
      '/sign-in?next=/dashboard',
    )
  })

  it('applying stores a pending application with the code lowercased; the section says it waits for approval; a second application and a taken code are refused in words', async () => {
    as(applicant)
    const payoutEmail = `payouts-${crypto.randomBytes(3).toString('hex')}@example.test`
    expect(await redirectOf(() => applyAffiliate(form({ code: ' Ann-Shares ', payoutEmail })))).toBe(
      '/dashboard?affiliate=applied#affiliate',
    )
    expect(await affiliateOf(applicant)).toMatchObject({
      code: 'ann-shares',
      status: 'pending',
      rateBps: 3000,
      payoutEmail,
    })
    const { section } = await render(applicant, { affiliate: 'applied' })
    expect(section).toContain('<p role="status" class="notice" data-testid="affiliate-notice">')
    expect(section).toContain('waiting for approval')
    expect(section).toContain('<code>ann-shares</code>')
    expect(section).toContain(payoutEmail)
    expect(section).not.toContain('>Apply</button>')
    expect(section).not.toContain('data-testid="affiliate-link"')

    expect(await redirectOf(() => applyAffiliate(form({ code: 'another', payoutEmail })))).toBe(
      '/dashboard?affiliate_error=already_applied#affiliate',
    )
    const again = await render(applicant, { affiliate_error: 'already_applied' })
    expect(again.section).toContain(`<p role="alert" class="error-box">${inHtml(errorSentence('already_applied'))}</p>`)

    as(other)
    expect(await redirectOf(() => applyAffiliate(form({ code: 'ANN-shares', payoutEmail: other.email })))).toBe(
      '/dashboard?affiliate_error=code_taken#affiliate',
    )
    expect(await affiliateOf(other)).toBeUndefined()
    const taken = await render(other, { affiliate_error: 'code_taken' })
    expect(taken.section).toContain(`<p role="alert" class="error-box">${inHtml(errorSentence('code_taken'))}</p>`)
    expect(taken.section).toContain('>Apply</button>')
  })

  it('once approved: the link to copy, the rate, visits and sales, and the commissions per currency as pending, available and paid', async () => {
    const row = (await affiliateOf(applicant))!
    await payload().update({
      collection: 'affiliates',
      id: row.id,
      data: { status: 'active', rateBps: 2500 },
      overrideAccess: true,
    })
    const link = affiliateLink(runtimeOf(payload(), 'affiliates').serverUrl, 'ann-shares')

    const before = await render(applicant)
    const input = /<input[^>]*data-testid="affiliate-link"[^>]*>/.exec(before.section)?.[0]
    expect(input).toContain(`value="${link}"`)
    expect(input).toMatch(/ readonly=""/i)
    expect(before.section).toContain('Copy link')
    expect(before.section).toContain('<strong>25%</strong> of each sale net of tax')
    expect(before.section).toContain('<strong>0 visits</strong> and <strong>0 sales</strong>')
    expect(before.section).toContain('No commissions yet.')
    expect(before.section).not.toContain('data-testid="affiliate-commissions"')

    for (const day of ['2026-01-01', '2026-01-02', '2026-01-03']) {
      await executeOn(
        payload(),
        undefined,
        sql`INSERT INTO ${affiliate_clicks} (${bare(affiliate_clicks.affiliate, affiliate_clicks.visitorKey, affiliate_clicks.day)})
            VALUES (${row.id}, ${crypto.randomBytes(8).toString('hex')}, ${day})`,
      )
    }
    await executeOn(
      payload(),
      undefined,
      sql`INSERT INTO ${affiliate_referrals} (${bare(affiliate_referrals.affiliate, affiliate_referrals.processorRef, affiliate_referrals.kind)})
          VALUES (${row.id}, ${`pi_${crypto.randomBytes(6).toString('hex')}`}, 'purchase')`,
    )
    const now = Date.now()
    await commissions(row.id, [
      // Past its hold: available.
      { amount: 4470, currency: 'usd', status: 'pending', availableAt: new Date(now - DAY_MS) },
      { amount: 1000, currency: 'usd', status: 'pending', availableAt: new Date(now - 2 * DAY_MS) },
      // In its hold: pending.
      { amount: 1490, currency: 'usd', status: 'pending', availableAt: new Date(now + 20 * DAY_MS) },
      { amount: 2500, currency: 'usd', status: 'paid', availableAt: new Date(now - 40 * DAY_MS) },
      // A chargeback open: pending too. A void one counts nowhere.
      { amount: 500, currency: 'eur', status: 'held', availableAt: new Date(now - DAY_MS) },
      { amount: 900, currency: 'eur', status: 'void', availableAt: new Date(now - DAY_MS) },
    ])

    const { section } = await render(applicant)
    expect(section).toContain('<strong>3 visits</strong> and <strong>1 sale</strong>')
    expect(section).not.toContain('No commissions yet.')
    const table = section.slice(section.indexOf('data-testid="affiliate-commissions"'), section.indexOf('</table>'))
    const cells = (currency: string) => {
      const tr = new RegExp(`<tr data-currency="${currency}">(.*?)</tr>`).exec(table)?.[1] ?? ''
      return [...tr.matchAll(/<td data-label="([^"]+)">([^<]*)<\/td>/g)].map(([, label, value]) => [label, value])
    }
    expect(cells('eur')).toEqual([
      ['Currency', 'EUR'],
      ['Pending', '€5.00'],
      ['Available', '€0.00'],
      ['Paid', '€0.00'],
    ])
    expect(cells('usd')).toEqual([
      ['Currency', 'USD'],
      ['Pending', '$14.90'],
      ['Available', '$54.70'],
      ['Paid', '$25.00'],
    ])
    // One row per currency, in the currency's order.
    expect(table.indexOf('data-currency="eur"')).toBeLessThan(table.indexOf('data-currency="usd"'))

    // Disabled: the figures stay, and the section says the link earns nothing new.
    await payload().update({ collection: 'affiliates', id: row.id, data: { status: 'disabled' }, overrideAccess: true })
    const disabled = await render(applicant)
    expect(disabled.section).toContain('no longer earns new commissions')
    expect(disabled.section).toContain('data-testid="affiliate-link"')
    expect(disabled.section).toContain('data-testid="affiliate-commissions"')
  })

  it('each customer sees only their own figures', async () => {
    const { section } = await render(other)
    expect(section).not.toContain('ann-shares')
    expect(section).toContain('>Apply</button>')
  })
})

describe('Record payout on an affiliate’s page', () => {
  const renderButton = (user: { roles: string[] } | null, id: number | undefined) => {
    adminUi.user = user
    adminUi.id = id
    return renderToStaticMarkup(createElement(RecordPayout))
  }

  it('an admin gets the button and its drawer (what was sent, an optional currency); support a disabled button; a new document nothing', async () => {
    const row = (await affiliateOf(applicant))!
    adminUi.data = { payoutEmail: row.payoutEmail }
    const asAdmin = renderButton({ roles: ['admin'] }, row.id)
    expect(asAdmin).toContain('<div data-drawer="Record payout">')
    expect(asAdmin).toContain(`(to ${row.payoutEmail})`)
    expect(asAdmin).toContain('What you sent, and how <span>(required, kept in the audit log)</span>')
    expect(asAdmin).toContain('Only this currency <span>(optional)</span>')
    expect(asAdmin).toMatch(/<textarea[^>]*maxLength="500"/)
    // Nothing to send until the reason is written.
    expect(asAdmin).toContain('<button type="button" disabled="">Record payout</button>')

    const asSupport = renderButton({ roles: ['support'] }, row.id)
    expect(asSupport).toBe(
      '<button type="button" disabled="" title="Only an admin can record a payout.">Record payout (admins only)</button>',
    )
    expect(renderButton({ roles: ['admin'] }, undefined)).toBe('')
  })

  it('what the button posts records the available commissions, said per currency; again, nothing is available; support is refused; the dashboard shows them paid', async () => {
    const row = (await affiliateOf(applicant))!
    const staff = await createUser(payload(), 'admin')
    const support = await createUser(payload(), 'support')
    const path = `/staff/affiliates/${row.id}/payouts`

    const refused = await api<{ errors: { message: string }[] }>('POST', path, {
      as: support,
      body: { reason: 'PayPal, March' },
    })
    expect(refused.status).toBe(403)
    expect(refused.body.errors[0]!.message).toBe('Only admins record payouts.')
    // Only euros: none is available (one held by a chargeback, one void).
    const euros = await api<{ errors: { code: string }[] }>('POST', path, {
      as: staff,
      body: { reason: 'PayPal, March', currency: 'EUR' },
    })
    expect(euros.status).toBe(409)
    expect(euros.body.errors[0]!.code).toBe('nothing_available')

    const recorded = await api<{ payouts: { amount: number; currency: string; commissions: number }[] }>('POST', path, {
      as: staff,
      body: { reason: 'PayPal, March' },
    })
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(201)
    expect(recorded.body.payouts.map(payoutSentence)).toEqual(['Recorded a payout of $54.70 (2 commissions)'])
    expect(payoutSentence({ amount: 4470, currency: 'usd', commissions: 1 })).toBe(
      'Recorded a payout of $44.70 (1 commission)',
    )

    const again = await api<{ errors: { code: string; message: string }[] }>('POST', path, {
      as: staff,
      body: { reason: 'PayPal, March' },
    })
    expect(again.status).toBe(409)
    expect(again.body.errors[0]).toMatchObject({
      code: 'nothing_available',
      message: 'This affiliate has no available commission to pay out.',
    })

    const { section } = await render(applicant)
    const usd = /<tr data-currency="usd">(.*?)<\/tr>/.exec(section)?.[1]
    expect(usd).toContain('<td data-label="Available">$0.00</td>')
    expect(usd).toContain('<td data-label="Paid">$79.70</td>')
  })
})
