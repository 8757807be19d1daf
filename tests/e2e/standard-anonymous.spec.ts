import {
  downloadFromDashboard,
  expect,
  expectLicenseEmail,
  licenseOnDashboard,
  payOnCheckout,
  signUp,
  test,
} from './helpers'
import { RELEASE_VERSION } from './service'

test('a visitor buys Standard anonymously, pays, signs up with the checkout email, confirms, sees the license and downloads', async ({
  page,
}) => {
  const email = `standard-${Date.now()}@example.com`
  await page.goto('/pricing')
  await page.locator('[data-testid="account-nav"]', { hasText: 'Sign in' }).waitFor()
  await page.click('article[data-plan="standard"] button[type="submit"]')
  await payOnCheckout(page, email)
  // The success page confirms the checkout with the processor; an anonymous visitor sees only the masked address.
  await page.locator('main', { hasText: 'Your license is on its way to' }).waitFor()
  const shown = (await page.locator('main').textContent()) ?? ''
  expect(shown, 'the success page shows the full address').not.toContain(email)
  expect(shown, 'the success page shows no masked address').toContain('@example.com')
  await signUp(page, email)
  const key = await licenseOnDashboard(page)
  await expectLicenseEmail(email, key)
  await page.locator('[data-testid="versions"]', { hasText: RELEASE_VERSION }).waitFor()
  const file = await downloadFromDashboard(page)
  expect(file.name).toBe(`starter-kit-${RELEASE_VERSION}.tar.gz`)
  expect(file.size, 'the downloaded file is empty').toBeGreaterThan(0)
  await page.goto('/dashboard')
  await page.locator('[data-testid="download-history"]', { hasText: `Version ${RELEASE_VERSION}` }).waitFor()
  // A plan the customer owns says so instead of selling itself again.
  await page.goto('/pricing')
  await page.locator('article[data-plan="standard"] .owned-badge', { hasText: 'Your plan' }).waitFor()
  expect(
    await page.locator('article[data-plan="standard"] button[type="submit"]:visible').count(),
    'an owned plan still has a Buy button',
  ).toBe(0)
})
