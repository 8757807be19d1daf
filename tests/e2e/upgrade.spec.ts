import path from 'node:path'

import { buySignedIn, expect, licenseOnDashboard, signUp, test } from './helpers'
import { screenshotDir } from './service'

test('a Standard buyer upgrades to Ultimate from the pricing page, paying the difference, and keeps the same key', async ({
  page,
}) => {
  const email = `upgrade-${Date.now()}@example.com`
  await signUp(page, email)
  await buySignedIn(page, email, 'standard')
  const key = await licenseOnDashboard(page)
  // The dashboard says what the license's updates cover and offers the upgrade at the difference.
  await page.locator('[data-testid="licenses"]', { hasText: 'Releases up to' }).waitFor()
  await page.locator('[data-testid="licenses"] button', { hasText: 'Upgrade to Ultimate for $150' }).waitFor()
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await page.screenshot({ path: path.join(screenshotDir, `upgrade-dashboard-standard-${width}.png`), fullPage: true })
  }

  await page.goto('/pricing')
  const ultimate = page.locator('article[data-plan="ultimate"]')
  await ultimate.locator('button[type="submit"]', { hasText: 'Upgrade to Ultimate for $150' }).waitFor()
  expect(
    await ultimate.locator('button[type="submit"]:visible', { hasText: 'Buy Ultimate' }).count(),
    'the pricing page still sells Ultimate in full',
  ).toBe(0)
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await page.screenshot({ path: path.join(screenshotDir, `upgrade-pricing-${width}.png`), fullPage: true })
  }

  await ultimate.locator('button[type="submit"]:visible').click()
  await page.waitForURL((url) => url.pathname.startsWith('/checkout/'))
  // The stand-in's hosted page: Ultimate's own price, the credit off it, the difference to pay.
  await page.locator('.discount', { hasText: '-$149.00' }).waitFor()
  await page.locator('.total', { hasText: '$150.00' }).waitFor()
  await page.click('button:has-text("Pay")')
  await page.waitForURL('**/dashboard?paid=upgrade**')
  // The webhook moves the same license (same key) to Ultimate.
  await expect(async () => {
    await page.goto('/dashboard')
    const row = page.locator('[data-testid="licenses"] tbody tr').first()
    expect(await row.textContent()).toContain('Ultimate')
  }).toPass({ intervals: [500], timeout: 60_000 })
  expect(await page.locator('[data-testid="licenses"] tbody tr').count(), 'the upgrade made a second license').toBe(1)
  expect((await page.locator('[data-testid="licenses"] code').first().textContent())?.trim()).toBe(key)
  await page.locator('[data-testid="licenses"]', { hasText: 'Every release' }).waitFor()
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await page.screenshot({ path: path.join(screenshotDir, `upgrade-dashboard-ultimate-${width}.png`), fullPage: true })
  }
})
