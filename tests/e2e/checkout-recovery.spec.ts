import path from 'node:path'

import type { Page } from '@playwright/test'

import { expect, linkInOutbox, payOnCheckout, test, signInToAdmin } from './helpers'
import { base, runState, screenshotDir, STAFF } from './service'

const shoot = async (page: Page, name: string) => {
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await page.screenshot({ path: path.join(screenshotDir, `${name}-${width}.png`), fullPage: true })
  }
}

/** The seller's processor expires a checkout now (as its `expires_at` passing would). */
const expireCheckout = async (sessionId: string) => {
  const { processor } = runState()
  const response = await fetch(`${processor.url}/v1/checkout/sessions/${sessionId}/expire`, {
    method: 'POST',
    headers: { authorization: `Bearer ${processor.secretKey}` },
  })
  expect(response.status, await response.text()).toBe(200)
}

/** A visitor opens Standard's checkout, types their address, agrees to promotional email and leaves. */
const abandonStandard = async (page: Page, email: string): Promise<string> => {
  await page.goto('/pricing')
  await page.click('article[data-plan="standard"] button[type="submit"]')
  await page.waitForURL((url) => url.pathname.startsWith('/checkout/'))
  const sessionId = new URL(page.url()).pathname.split('/').pop()!
  await page.fill('input[name="email"]', email)
  await page.check('input[name="promotions"]')
  await page.click('button:has-text("Save my details")')
  await page.locator('main, body', { hasText: 'Your details were saved' }).first().waitFor()
  return sessionId
}

test('an abandoned checkout becomes one email whose link brings the buyer back to a license', async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000)
  const email = `e2e-recovery-${Date.now()}@example.com`
  const sessionId = await abandonStandard(page, email)
  // Another visitor, from another address, leaves their own checkout.
  const other = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.41' } })
  const otherSession = await abandonStandard(await other.newPage(), `e2e-recovery-other-${Date.now()}@example.com`)
  await other.close()
  expect(otherSession).not.toBe(sessionId)
  await expireCheckout(sessionId)
  await expireCheckout(otherSession)

  // RECOVERY_EMAIL_DELAY_MINUTES is 1 for the run: the email comes a minute or two later.
  const recoverLink = await linkInOutbox(email, new RegExp(`${base}/checkout/recover/[^\\s"<]+`), 'recovery', 150_000)
  expect(recoverLink).toContain(sessionId)

  // Another buyer's checkout under this signature opens nothing.
  const swapped = recoverLink.replace(sessionId, otherSession)
  await page.goto(swapped)
  await expect(page.getByTestId('checkout-recovery')).toContainText('This link does not open a checkout')
  await shoot(page, 'checkout-recovery-invalid')

  // The email's link reopens the checkout with the address typed before; paying gives the license.
  await page.goto(recoverLink)
  await page.waitForURL((url) => url.pathname.startsWith('/checkout/') && !url.pathname.includes(sessionId))
  await payOnCheckout(page, email)
  await page.locator('main', { hasText: 'Your license is on its way to' }).waitFor()

  // The link then says the checkout is paid.
  await page.goto(recoverLink)
  await expect(page.getByTestId('checkout-recovery')).toContainText('This checkout is already paid')
  await shoot(page, 'checkout-recovery-complete')

  // The unsubscribe page: opening it changes nothing, its button does.
  const unsubscribePage = await linkInOutbox(email, new RegExp(`${base}/unsubscribe/v1\\.[\\w-]+`), 'unsubscribe')
  await page.goto(unsubscribePage)
  await expect(page.getByTestId('unsubscribe-button')).toBeVisible()
  await shoot(page, 'unsubscribe')
  await page.getByTestId('unsubscribe-button').click()
  await expect(page.getByTestId('unsubscribed')).toContainText('gets no more reminders')
  await shoot(page, 'unsubscribe-done')

  // A mail client's one-click unsubscribe (RFC 8058), and a forged token.
  const token = unsubscribePage.split('/').pop()!
  const oneClick = await fetch(`${base}/api/email/unsubscribe/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  })
  expect(oneClick.status).toBe(200)
  const forged = await fetch(`${base}/api/email/unsubscribe/${token.slice(0, -4)}AAAA`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  })
  expect(forged.status).toBe(400)
  expect(((await forged.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('invalid_token')

  // Support sees the abandoned checkout, recovered, in the admin.
  const staff = await browser.newContext()
  try {
    const admin = await staff.newPage()
    await signInToAdmin(admin, STAFF.support)
    await admin.goto('/admin/collections/checkout_recoveries')
    const row = admin.locator('tr', { hasText: email })
    await expect(row).toContainText('Recovered: paid')
    await shoot(admin, 'admin-abandoned-checkouts')
  } finally {
    await staff.close()
  }
})
