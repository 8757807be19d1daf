import { signOut, test } from './helpers'

test('sign in with GitHub on the provider stand-in', async ({ page }) => {
  await page.goto('/sign-in')
  await page.click('a:has-text("GitHub")')
  await page.click('button:has-text("Approve")')
  await page.waitForURL('**/dashboard')
  await signOut(page)
})
