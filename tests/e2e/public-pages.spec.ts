import { expect, linkFromOutbox, test } from './helpers'
import { PASSWORD } from './service'

/**
 * The public pages go without Next's runtime (docs/PUBLIC_PAGES.md): the islands script is their only
 * script, and everything on them works without JavaScript as the anonymous visitor's page.
 */
const PUBLIC = ['/', '/pricing', '/blog', '/changelog', '/sign-in', '/sign-up', '/reset-password']

test('the public pages load one script, the islands, and it fills in the visitor', async ({ page }) => {
  const scripts: string[] = []
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname)
  })
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  for (const pagePath of PUBLIC) {
    scripts.length = 0
    await page.goto(pagePath, { waitUntil: 'networkidle' })
    expect(scripts, pagePath).toEqual(['/_kit/islands.js'])
    expect(await page.locator('script:not([type="application/ld+json"])').count(), pagePath).toBe(1)
    // The header's island replaced "Your account" with what a signed-out visitor can do.
    await expect(page.getByTestId('account-nav'), pagePath).toHaveText(/^Sign inSign up$/)
  }
  // A blog post too (the first one listed).
  await page.goto('/blog')
  const post = await page.locator('article[data-slug] a').first().getAttribute('href')
  scripts.length = 0
  await page.goto(post!, { waitUntil: 'networkidle' })
  expect(scripts, post!).toEqual(['/_kit/islands.js'])

  // A failed checkout's notice is read from the query by the island: a known code in words, anything else
  // the general sentence, never the code itself.
  await page.goto('/pricing?checkout_error=rate_limited')
  await expect(page.getByRole('alert')).toHaveText(/Too many checkout attempts/)
  await page.goto(`/pricing?checkout_error=${encodeURIComponent('<b>made-up</b>')}`)
  await expect(page.getByRole('alert')).toBeVisible()
  await expect(page.getByRole('alert')).not.toContainText('made-up')
  await page.goto('/pricing')
  await expect(page.getByRole('alert')).toBeHidden()
  expect(errors).toEqual([])
})

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false, extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.61' } })

  test('a visitor signs up, signs in, is refused a wrong password and reaches the checkout', async ({ page }) => {
    await page.goto('/pricing')
    // No script ran: the header keeps its neutral link, the owner's buttons stay hidden.
    await expect(page.getByTestId('account-nav')).toHaveText('Your account')
    await expect(page.locator('article[data-plan="standard"] .owned-badge')).toBeHidden()

    // Sign up: the form posts as a plain form (the server action's no-JavaScript path).
    const email = `no-js-${Date.now()}@example.test`
    await page.goto('/sign-up')
    await page.fill('input[name="email"]', email)
    await page.fill('input[name="password"]', PASSWORD)
    await page.click('main button[type="submit"]')
    await page.waitForURL('**/sign-up?sent=1')
    await page.goto(await linkFromOutbox(email, 'verify'))
    await page.waitForURL('**/dashboard')
    await page.context().clearCookies()

    // A wrong password: the page says so.
    await page.goto('/sign-in')
    const form = page.locator('form', { hasText: 'Password' })
    await form.locator('input[name="email"]').fill(email)
    await form.locator('input[name="password"]').fill('not-the-password-0')
    await form.locator('button[type="submit"]').click()
    await expect(page.getByRole('alert')).toContainText(/password/i)
    // The right one: signed in, on the dashboard.
    await form.locator('input[name="email"]').fill(email)
    await form.locator('input[name="password"]').fill(PASSWORD)
    await form.locator('button[type="submit"]').click()
    await page.waitForURL('**/dashboard')

    // Buy Standard on the pricing page: the processor's hosted checkout opens.
    await page.goto('/pricing')
    await page.click('article[data-plan="standard"] button[type="submit"]:visible')
    await page.waitForURL((url) => url.pathname.startsWith('/checkout/'))
  })
})
