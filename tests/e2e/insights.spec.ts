import path from 'node:path'

import { buySignedIn, expect, signUp, test, signInToAdmin } from './helpers'
import { screenshotDir, STAFF } from './service'

// An address of its own (the server trusts the local proxy): the run's sign-ups share no limit.
const OWN_ADDRESS = { 'x-forwarded-for': '198.51.100.27' }
test.use({ extraHTTPHeaders: OWN_ADDRESS })

test('a seller sees the launch in charts on the admin dashboard, switches the range and downloads a series as CSV; a customer gets 403', async ({
  page,
  browser,
}) => {
  // A sale on record: the storefront viewed (its beacon), a checkout started and paid.
  const buyerContext = await browser.newContext({ extraHTTPHeaders: OWN_ADDRESS })
  const buyer = await buyerContext.newPage()
  const email = `insights-${Date.now()}@example.com`
  await signUp(buyer, email)
  await buyer.goto('/pricing')
  await buyer.waitForLoadState('networkidle')
  await buySignedIn(buyer, email, 'standard')
  // Asked from the customer's own page, with their session cookie.
  const refused = await buyer.evaluate(
    async () => (await fetch('/api/staff/insights.csv?series=revenue&from=2026-11-01&to=2026-11-07')).status,
  )
  expect(refused).toBe(403)
  await buyerContext.close()

  await signInToAdmin(page, STAFF.admin)
  const panel = page.locator('.staff-insights')
  await panel.waitFor()
  for (const heading of ['Revenue', 'New licenses', 'Subscriptions', 'Refunds', 'Checkout funnel', 'Downloads']) {
    await expect(panel.getByRole('heading', { name: new RegExp(heading, 'i') }).first()).toBeVisible()
  }
  // The charts are drawn (recharts' SVG) and their numbers are in tables too.
  await expect.poll(() => panel.locator('svg.recharts-surface').count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(6)
  await expect(panel.getByText('Standard').first()).toBeAttached()
  // The pointer away from the charts: no tooltip left open in the pictures.
  await page.mouse.move(0, 0)
  for (const width of [1280, 1440]) {
    await page.setViewportSize({ width, height: 900 })
    await page.waitForTimeout(300)
    await page.screenshot({ path: path.join(screenshotDir, `admin-insights-${width}.png`), fullPage: true })
  }

  await page.getByRole('link', { name: /7 days/i }).click()
  await page.waitForURL(/insights=7/)
  await expect(page.getByRole('link', { name: /7 days/i })).toHaveAttribute('aria-current', 'page')

  const csvLink = panel.getByRole('link', { name: /CSV/i }).first()
  const href = await csvLink.getAttribute('href')
  expect(href).toMatch(/\/api\/staff\/insights\.csv\?series=revenue&from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}/)
  const csv = await page.evaluate(async (url) => {
    const response = await fetch(url)
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() }
  }, href!)
  expect(csv.status).toBe(200)
  expect(csv.type).toMatch(/text\/csv/)
  const lines = csv.text.trim().split(/\r?\n/)
  expect(lines[0]).toMatch(/^day,currency,/)
  // Today's row carries the Standard sale (14900 cents in the stand-in's catalogue, or whatever it charged).
  const today = new Date().toISOString().slice(0, 10)
  const todayRow = lines.find((line) => line.startsWith(`${today},usd,`))
  expect(todayRow, lines.join('\n')).toBeDefined()
  expect(Number(todayRow!.split(',')[2])).toBeGreaterThan(0)
})
