import path from 'node:path'

import type { Page } from '@playwright/test'

import { expect, payOnCheckout, signUp, test, signInToAdmin } from './helpers'
import { adminToken, api, base, runState, screenshotDir, STAFF } from './service'

// Sign-ups of their own address: the run's other scenarios share 127.0.0.1's hourly limit.
test.use({ extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.50' } })

const shoot = async (page: Page, name: string, selector?: string) => {
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    const file = path.join(screenshotDir, `${name}-${width}.png`)
    if (selector) await page.locator(selector).screenshot({ path: file })
    else await page.screenshot({ path: file, fullPage: true })
  }
}

test('a sale through an affiliate’s link becomes one commission that a refund undoes, and a payout', async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000)
  const jwt = await adminToken()
  const email = `e2e-affiliate-${Date.now()}@example.com`
  const code = `e2e-${Date.now().toString(36)}`
  await signUp(page, email)

  // The customer applies from the dashboard.
  await page.goto('/dashboard#affiliate')
  await page.fill('[data-testid="affiliate-apply"] input[name="code"]', code)
  await page.click('[data-testid="affiliate-apply"] button[type="submit"]')
  await expect(page.getByTestId('affiliate-status')).toContainText('waiting')
  const affiliates = await api<{ docs: { id: number }[] }>(`/api/affiliates?where[code][equals]=${code}&depth=0`, {
    jwt,
  })
  const affiliateId = affiliates.docs[0]!.id
  // An admin approves it.
  await api(`/api/affiliates/${affiliateId}`, { jwt, method: 'PATCH', json: { status: 'active' } })

  /** A visitor from another address follows the link, then buys Standard anonymously. */
  const referredSale = async (address: string) => {
    const visitor = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': address } })
    try {
      const buyer = await visitor.newPage()
      await buyer.goto(`/?via=${code}`)
      const cookie = (await visitor.cookies()).find((found) => found.name === 'kit_ref')
      expect(cookie, 'no referral cookie').toBeTruthy()
      expect(cookie!.httpOnly).toBe(true)
      expect(cookie!.sameSite).toBe('Lax')
      await buyer.goto('/pricing')
      await buyer.click('article[data-plan="standard"] button[type="submit"]')
      await payOnCheckout(buyer, `e2e-referred-${Date.now()}@example.com`)
      await buyer.locator('main', { hasText: 'Your license is on its way to' }).waitFor()
    } finally {
      await visitor.close()
    }
  }

  await referredSale('198.51.100.51')
  const commissions = () =>
    api<{ docs: { amount: number; status: string; payment: number }[] }>(
      `/api/affiliate_commissions?where[affiliate][equals]=${affiliateId}&depth=0&sort=id`,
      { jwt },
    )
  await expect.poll(async () => (await commissions()).docs.length, { timeout: 60_000, intervals: [500] }).toBe(1)
  expect((await commissions()).docs[0]).toMatchObject({ amount: 4470, status: 'pending' })
  await page.goto('/dashboard#affiliate')
  await expect(page.getByTestId('affiliate-commissions')).toContainText('$44.70')
  await shoot(page, 'dashboard-affiliate', '#affiliate')

  // The seller refunds that sale at the processor: the commission is voided.
  const { processor } = runState()
  const payment = await api<{ processorPaymentId: string }>(
    `/api/payment_history/${(await commissions()).docs[0]!.payment}?depth=0`,
    { jwt },
  )
  const refund = await fetch(`${processor.url}/v1/refunds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${processor.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ payment_intent: payment.processorPaymentId }),
  })
  expect(refund.status, await refund.clone().text()).toBe(200)
  await expect
    .poll(async () => (await commissions()).docs[0]!.status, { timeout: 60_000, intervals: [500] })
    .toBe('void')

  // A second sale, paid out by an admin from the affiliate's page.
  await referredSale('198.51.100.52')
  await expect.poll(async () => (await commissions()).docs.length, { timeout: 60_000, intervals: [500] }).toBe(2)
  const staff = await browser.newContext()
  try {
    const admin = await staff.newPage()
    await signInToAdmin(admin, STAFF.admin)
    await admin.goto(`/admin/collections/affiliates/${affiliateId}`)
    await admin.getByRole('button', { name: 'Record payout' }).first().click()
    await admin.fill('textarea', 'PayPal transfer, reference E2E-1')
    await shoot(admin, 'admin-affiliate-payout')
    await admin.locator('.staff-actions__buttons').getByRole('button', { name: 'Record payout' }).click()
    await expect(admin.locator('.webhook-result[role="status"]')).toContainText(
      'Recorded a payout of $44.70 (1 commission)',
    )
  } finally {
    await staff.close()
  }

  // The same address with only the hash would not load the page again.
  await page.goto('/dashboard?after=payout#affiliate')
  await expect(page.getByTestId('affiliate-commissions')).toContainText('$44.70')
  await expect(page.getByTestId('affiliate-stats')).toContainText('2 visits and 2 sales')
  await shoot(page, 'dashboard-affiliate-paid', '#affiliate')
  const csv = await fetch(`${base}/api/staff/affiliates/payouts.csv`, { headers: { authorization: `JWT ${jwt}` } })
  expect(csv.status).toBe(200)
  expect(await csv.text()).toMatch(new RegExp(`\\n\\d+,${code},${email.replace('.', '\\.')},usd,4470,1,`))
})
