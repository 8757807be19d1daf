import fs from 'node:fs'
import path from 'node:path'

import { type Page } from '@playwright/test'

import { expect, signInWithPassword, test, ultimateJourney } from './helpers'
import { base, root, screenshotDir } from './service'

const AXE_SOURCE = path.join(root, 'node_modules/axe-core/axe.min.js')
/** The public pages checked with axe-core and photographed; `{post}` is the first blog post. */
const PUBLIC_PAGES = [
  '/',
  '/pricing',
  '/sign-in',
  '/sign-up',
  '/reset-password',
  '/blog',
  '{post}',
  '/changelog',
  '/success?session_id=cs_test_unknown',
  '/no/such/page',
]

type Violation = { id: string; impact: string; nodes: { target: string[] }[] }

/**
 * Each page in both colour schemes at phone and desktop width: axe-core, sideways scroll, a full-page
 * screenshot. Adds every same-origin link on them to `linked`.
 */
const checkPages = async (page: Page, pagePaths: string[], who: string, linked: Set<string>): Promise<string[]> => {
  const problems: string[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      for (const pagePath of pagePaths) {
        await page.goto(pagePath, { waitUntil: 'networkidle' })
        await page.addScriptTag({ path: AXE_SOURCE })
        const violations = (await page.evaluate(async () => {
          const axe = (
            window as unknown as {
              axe: { run: (context: Document, options: object) => Promise<{ violations: unknown[] }> }
            }
          ).axe
          return (await axe.run(document, { resultTypes: ['violations'] })).violations
        })) as Violation[]
        for (const violation of violations.filter(
          (candidate) => candidate.impact === 'serious' || candidate.impact === 'critical',
        )) {
          problems.push(
            `${pagePath} (${who}) ${width}px ${scheme}: ${violation.impact} ${violation.id} at ${violation.nodes
              .map((node) => node.target.join(' '))
              .slice(0, 3)
              .join(', ')}`,
          )
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        if (overflow > 0) problems.push(`${pagePath} (${who}) ${width}px: scrolls sideways by ${overflow} px`)
        // Links to a place on the same page (the skip link) are not links to check.
        const hrefs = await page
          .locator('a[href]:not([href^="#"])')
          .evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).href))
        for (const href of hrefs) {
          const url = new URL(href)
          if (url.origin === base) linked.add(`${url.pathname}${url.search}`)
        }
        const slug =
          pagePath
            .replace(/\?.*$/, '')
            .replace(/[^a-z0-9]+/gi, '-')
            .replace(/^-|-$/g, '') || 'home'
        await page.screenshot({
          path: path.join(screenshotDir, `${who}-${slug}-${width}-${scheme}.png`),
          fullPage: true,
        })
      }
    }
  }
  return problems
}

/** Every link seen on the checked pages, each asked once, anonymously. */
const brokenLinks = async (page: Page, linked: Set<string>): Promise<string[]> => {
  const broken: string[] = []
  for (const href of linked) {
    // Playwright's requests send no Secure cookie over http: the data export, the one signed-in link, is
    // saved from the dashboard by a click instead (below).
    if (href === '/api/account/export') continue
    const response = await page.request.get(`${base}${href}`)
    if (response.status() >= 400) broken.push(`${href} answered ${response.status()}`)
  }
  return broken
}

test('every page at 360 and 1280 px, light and dark, public and signed in: no serious or critical axe-core violation, no horizontal scroll, a screenshot; every link on them answers', async ({
  page,
  browser,
}) => {
  // 56 page loads, each with axe-core and a full-page screenshot, after a whole Ultimate journey.
  test.setTimeout(10 * 60_000)
  // The signed-in pages are those of a customer with everything on the dashboard: the Ultimate journey's.
  const journey = await browser.newContext()
  const customer = await ultimateJourney(await journey.newPage()).finally(() => journey.close())
  const linked = new Set<string>()
  await page.goto('/blog')
  const post = (await page.locator('.post-card-title a').first().getAttribute('href')) ?? '/blog'
  const problems = await checkPages(
    page,
    PUBLIC_PAGES.map((candidate) => (candidate === '{post}' ? post : candidate)),
    'public',
    linked,
  )
  await signInWithPassword(page, customer.email)
  problems.push(...(await checkPages(page, ['/dashboard', '/pricing'], 'customer', linked)))
  // Your data: the dashboard's link saves the account's export as a JSON file.
  await page.goto('/dashboard')
  const [saved] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-data').click()])
  expect(saved.suggestedFilename()).toMatch(/^account-\d+-\d{4}-\d{2}-\d{2}\.json$/)
  const exported = JSON.parse(fs.readFileSync(await saved.path(), 'utf8')) as {
    profile: { email: string }
    licenses: unknown[]
  }
  expect(exported.profile.email).toBe(customer.email)
  expect(exported.licenses.length).toBeGreaterThan(0)
  problems.push(...(await brokenLinks(page, linked)))
  if (linked.size < 10) problems.push(`only ${linked.size} links were found on the pages`)
  expect(problems, 'accessibility or layout problems').toEqual([])
})
