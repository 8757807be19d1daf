import { expect, licenseOnDashboard, payOnCheckout, signUp, test } from './helpers'
import { base } from './service'

test('a Pro subscriber opens the billing portal, cancels, and the dashboard says when the plan ends', async ({
  page,
}) => {
  const email = `pro-${Date.now()}@example.com`
  await signUp(page, email)
  await page.goto('/pricing')
  await page.locator('[data-testid="account-nav"]', { hasText: email }).waitFor()
  expect(await page.locator('.price.cycle-yearly:visible').count(), 'the yearly price shows before the toggle').toBe(0)
  await page.click('label:has-text("Yearly")')
  await page.locator('article[data-plan="pro"] button:visible', { hasText: 'yearly' }).click()
  await payOnCheckout(page)
  await licenseOnDashboard(page)
  await page.locator('.card', { hasText: 'Renews on' }).waitFor()
  await page.click('button:has-text("Manage billing")')
  await page.waitForURL((url) => url.origin !== base)
  await page.click('button:has-text("Cancel subscription")')
  await page.locator('td', { hasText: /^ends / }).waitFor()
  await page.click('a:has-text("Return")')
  await page.waitForURL(`${base}/dashboard`)
  // The cancellation reaches the service as a webhook; the plan keeps working to the end of the paid period.
  const endsOn = page.locator('.card', { hasText: 'Ends on' })
  await expect(async () => {
    if (!(await endsOn.count())) await page.reload()
    expect(await endsOn.count(), 'the dashboard does not say when the cancelled subscription ends').toBeGreaterThan(0)
  }).toPass({ intervals: [500], timeout: 30_000 })
  await page.locator('[data-testid="licenses"] tr[data-status="active"]').waitFor()
})
