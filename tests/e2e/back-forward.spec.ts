import { type Page } from '@playwright/test'

import { expect, signUp, test } from './helpers'

// Playwright turns Chromium's back-forward cache off by default; browsers have it on.
test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    ignoreDefaultArgs: ['--disable-back-forward-cache'],
  },
  // An address of its own (the server trusts the local proxy): the run's sign-ups share no limit.
  extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.26' },
})

/** Whether the page now showing came back from the back-forward cache (set by the pageshow listener below). */
const restored = (page: Page) =>
  page.evaluate(() => (window as unknown as { restoredFromCache?: boolean }).restoredFromCache ?? null)
const listenForRestores = (page: Page) =>
  page.evaluate(() => {
    window.addEventListener('pageshow', (event) => {
      ;(window as unknown as { restoredFromCache?: boolean }).restoredFromCache = event.persisted
    })
  })

test('Back restores /sign-in and the storefront from the back-forward cache; a restored page asks who is signed in again', async ({
  page,
  context,
}) => {
  // /sign-in (rendered per request, without no-store) comes back as it was left.
  await page.goto('/sign-in')
  await listenForRestores(page)
  await page.locator('input[name="email"]').first().fill('typed-before-leaving@example.test')
  await page.goto('/blog')
  // A page shown from the cache fires no load event: wait for the navigation only.
  await page.goBack({ waitUntil: 'commit' })
  await expect.poll(() => restored(page)).toBe(true)
  await expect(page.locator('input[name="email"]').first()).toHaveValue('typed-before-leaving@example.test')

  // Signed in, the storefront's header names the account.
  const email = `back-forward-${Date.now()}@example.test`
  await signUp(page, email)
  await page.goto('/pricing')
  await expect(page.getByTestId('account-nav')).toContainText(email)
  await listenForRestores(page)

  // Signed out elsewhere (the session cookie gone) while another page was open, then Back: the restored
  // page must not keep saying who was signed in.
  await page.goto('/changelog')
  await context.clearCookies()
  // A page shown from the cache fires no load event: wait for the navigation only.
  await page.goBack({ waitUntil: 'commit' })
  await expect.poll(() => restored(page)).toBe(true)
  await expect(page.getByTestId('account-nav')).toContainText('Sign in')
  await expect(page.getByTestId('account-nav')).not.toContainText(email)
})
