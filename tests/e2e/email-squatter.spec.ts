import path from 'node:path'

import { expect, expectPath, linkFromOutbox, test } from './helpers'
import { screenshotDir } from './service'

test("someone signs up with another person's email: the owner's confirmation asks for a new password, and the squatter's stops working", async ({
  page,
  browser,
}) => {
  const email = `e2e-owner-${Date.now()}@example.com`
  // The squatter signs up in this browser with a password of their own.
  await page.goto('/sign-up')
  await page.fill('input[name="email"]', email)
  await page.fill('input[name="password"]', 'squatters-password-1')
  await page.click('main button[type="submit"]')
  await page.waitForURL('**/sign-up?sent=1')
  // The owner opens the confirmation email in their own browser.
  const owner = await browser.newContext()
  try {
    const ownerPage = await owner.newPage()
    await ownerPage.goto(await linkFromOutbox(email, 'verify'))
    expectPath(ownerPage, '/reset-password?step=new&confirmed=1')
    await ownerPage.locator('[role="status"]', { hasText: 'Your email address is confirmed' }).waitFor()
    for (const width of [360, 1280]) {
      await ownerPage.setViewportSize({ width, height: 800 })
      await ownerPage.screenshot({ path: path.join(screenshotDir, `confirmed-elsewhere-${width}.png`), fullPage: true })
    }
    await ownerPage.fill('input[name="password"]', 'owners-password-123')
    await ownerPage.click('button:has-text("Save and sign in")')
    await ownerPage.waitForURL('**/dashboard')
  } finally {
    await owner.close()
  }
  // The squatter's password no longer signs in.
  await page.goto('/sign-in')
  const form = page.locator('form', { hasText: 'Password' })
  await form.locator('input[name="email"]').fill(email)
  await form.locator('input[name="password"]').fill('squatters-password-1')
  await form.locator('button[type="submit"]').click()
  await page.locator('[role="alert"]').waitFor()
  expect(new URL(page.url()).pathname, "the squatter's password signed in").toBe('/sign-in')
})
