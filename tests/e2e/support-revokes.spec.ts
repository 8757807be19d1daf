import { type Browser } from '@playwright/test'

import {
  type Buyer,
  buySignedIn,
  expect,
  licenseOnDashboard,
  signInWithPassword,
  signUp,
  test,
  signInToAdmin,
} from './helpers'
import { adminToken, api, base, RELEASE_VERSION, STAFF } from './service'

/** A customer of this scenario's own, who bought Standard while signed in, in a browser of their own. */
const standardBuyer = async (browser: Browser): Promise<Buyer> => {
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    const email = `revoked-${Date.now()}@example.com`
    await signUp(page, email)
    await buySignedIn(page, email, 'standard')
    return { email, key: await licenseOnDashboard(page) }
  } finally {
    await context.close()
  }
}

test('support revokes a license in the admin; the customer sees it revoked and the next download is refused', async ({
  page,
  browser,
}) => {
  const buyer = await standardBuyer(browser)
  const { docs } = await api<{ docs: { id: number }[] }>(`/api/licenses?where[key][equals]=${buyer.key}&depth=0`, {
    jwt: await adminToken(),
  })
  const licenseId = docs[0]?.id
  expect(licenseId, `no license ${buyer.key}`).toBeDefined()
  await signInToAdmin(page, STAFF.support)
  await page.goto(`/admin/collections/licenses/${licenseId}`)
  await page.locator('button', { hasText: 'Revoke license' }).waitFor()
  // On a phone the license's page does not scroll sideways, its long key in the breadcrumb included.
  await page.setViewportSize({ width: 360, height: 800 })
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), { timeout: 5_000 })
    .toBe(0)
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.click('button:has-text("Revoke license")')
  await page.fill('.staff-actions__reason', 'Chargeback: the payment was disputed (e2e).')
  await page.locator('.staff-actions__confirm button', { hasText: 'Revoke license' }).click()
  await page.locator('text=License revoked.').waitFor()

  const customer = await browser.newContext()
  try {
    const customerPage = await customer.newPage()
    await signInWithPassword(customerPage, buyer.email)
    await customerPage.locator('[data-testid="licenses"] tr[data-status="revoked"]').waitFor()
    // The download API from the customer's browser, with the session cookie.
    const refused = await customerPage.evaluate(async (url) => {
      const response = await fetch(url, { redirect: 'manual' })
      return { status: response.status, body: (await response.json()) as { errors?: { code: string }[] } }
    }, `${base}/api/download?version=${RELEASE_VERSION}`)
    const { body } = refused
    expect(refused.status, `a download with a revoked license answered ${JSON.stringify(body)}`).toBe(403)
    expect(body.errors?.[0]?.code, `the refusal has no error code: ${JSON.stringify(body)}`).toBeTruthy()
    // The dashboard no longer offers the download and says why the license stopped.
    expect(
      await customerPage.locator('form button', { hasText: /^Download/ }).count(),
      'a revoked license still offers downloads',
    ).toBe(0)
    await customerPage.locator('#download', { hasText: 'Downloads come with' }).waitFor()
  } finally {
    await customer.close()
  }
})
