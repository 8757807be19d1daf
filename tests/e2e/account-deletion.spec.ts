import path from 'node:path'

import type { Page } from '@playwright/test'
import pg from 'pg'

import { expect, expectPath, linkInOutbox, signUp, test } from './helpers'
import { base, databaseUrl, PASSWORD, screenshotDir } from './service'

// Sign-ups of their own address: the run's other scenarios share 127.0.0.1's hourly limit.
test.use({ extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.28' } })

/** The newest "Keep my account" link emailed to `email`. */
const keepLinkFor = (email: string) =>
  linkInOutbox(email, new RegExp(`${base}/account/keep\\?token=[A-Za-z0-9_%-]+`), 'deletion')

const askForDeletion = async (page: Page, screenshots = false) => {
  await page.goto('/dashboard#delete-account')
  await page.locator('#delete-account summary').click()
  if (screenshots) {
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      await page
        .locator('#delete-account')
        .screenshot({ path: path.join(screenshotDir, `dashboard-deletion-form-${width}.png`) })
    }
  }
  await page.fill('#delete-account input[name="password"]', PASSWORD)
  await page.getByTestId('request-deletion').click()
  await page.waitForURL('**/dashboard?deletion=scheduled#delete-account')
  await expect(page.getByTestId('deletion-pending')).toBeVisible()
}

test('delete the account from the dashboard, keep it with the email link, then let it be erased', async ({ page }) => {
  test.setTimeout(240_000)
  const email = `e2e-delete-${Date.now()}@example.com`
  await signUp(page, email)

  await askForDeletion(page, true)
  for (const [name, width] of [
    ['dashboard-deletion-pending-360', 360],
    ['dashboard-deletion-pending-1280', 1280],
  ] as const) {
    await page.setViewportSize({ width, height: 900 })
    await page.locator('#delete-account').screenshot({ path: path.join(screenshotDir, `${name}.png`) })
  }

  // The email's link, opened without a session: the page's button keeps the account.
  const keep = await keepLinkFor(email)
  const guest = await page
    .context()
    .browser()!
    .newContext({ extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.28' } })
  const guestPage = await guest.newPage()
  await guestPage.goto(keep)
  for (const [name, width] of [
    ['account-keep-360', 360],
    ['account-keep-1280', 1280],
  ] as const) {
    await guestPage.setViewportSize({ width, height: 700 })
    await guestPage.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true })
  }
  await guestPage.getByTestId('keep-account').click()
  await expect(guestPage.getByTestId('account-kept')).toBeVisible()
  // Used once: the same link again says so.
  await guestPage.goto(keep)
  await guestPage.getByTestId('keep-account').click()
  await expect(guestPage.locator('main p.error')).toContainText('not valid any more')
  await guest.close()
  await page.goto('/dashboard#delete-account')
  await expect(page.getByTestId('deletion-pending')).toHaveCount(0)

  // Asked again; the grace period passes (moved in the database), and the jobs worker erases the account.
  await askForDeletion(page)
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  try {
    await db.query(`UPDATE users SET deletion_scheduled_for = now() WHERE email = $1`, [email])
  } finally {
    await db.end()
  }
  // The browser's session ends with the erasure: the dashboard then sends it to sign in.
  await expect
    .poll(
      async () => {
        await page.goto('/dashboard')
        return new URL(page.url()).pathname
      },
      { message: 'the account was never erased', timeout: 150_000, intervals: [3_000] },
    )
    .toBe('/sign-in')
  expectPath(page, '/sign-in?next=/dashboard')
  // The address and the password open nothing.
  expect((await page.request.post('/api/users/login', { data: { email, password: PASSWORD } })).status()).toBe(401)
})
