/**
 * What the scenarios share: the `test` they use (it records a failure for the teardown), and the steps a
 * customer takes again and again (sign up, sign in, pay on the processor's page, find the license).
 */
import fs from 'node:fs'
import path from 'node:path'

import { expect, type Page, test as playwrightTest } from '@playwright/test'

import { base, failuresFile, PASSWORD, RELEASE_VERSION, runState } from './service'

export { expect }

export const test = playwrightTest.extend<{ recordFailure: void }>({
  recordFailure: [
    // Playwright reads which fixtures a fixture needs from this pattern, so it stays even when empty.
    // eslint-disable-next-line no-empty-pattern -- Playwright requires an object pattern as a fixture's first parameter; this fixture needs none
    async ({}, use, testInfo) => {
      await use()
      if (testInfo.status !== testInfo.expectedStatus)
        fs.appendFileSync(failuresFile(runState().dataDir), `${testInfo.title}: ${testInfo.status}\n`)
    },
    { auto: true },
  ],
})

export type Buyer = { email: string; key: string }

/** Where the page is, path and query, e.g. `/reset-password?step=new`. */
export const expectPath = (page: Page, expected: string) => {
  const actual = new URL(page.url())
  expect(`${actual.pathname}${actual.search}`, `at ${page.url()}`).toBe(expected)
}

/** The newest link matching `pattern` in an email to `email` (quoted-printable undone), waiting up to 30 s for the job to send it. */
export const linkInOutbox = async (email: string, pattern: RegExp, what: string, timeout = 30_000): Promise<string> => {
  const { outbox } = runState()
  const newest = () => {
    const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).sort().reverse() : []
    for (const file of files) {
      const raw = fs
        .readFileSync(path.join(outbox, file), 'utf8')
        .replace(/=\r?\n/g, '')
        .replace(/=3D/g, '=')
      if (!raw.includes(email)) continue
      const match = pattern.exec(raw)
      if (match) return match[0]
    }
    return null
  }
  let link: string | null = null
  await expect
    .poll(() => (link = newest()), { message: `no ${what} email for ${email}`, timeout, intervals: [500] })
    .not.toBeNull()
  return link!
}

/** The newest sign-in, confirmation or reset link of a type in the outbox for an address. */
export const linkFromOutbox = (email: string, type: string): Promise<string> =>
  linkInOutbox(email, new RegExp(`${base}/auth/callback\\?type=${type}&token=[A-Za-z0-9_%-]+`), type)

/** The license key the license email to `email` carries, once the job has sent it. */
export const keyFromOutbox = async (email: string): Promise<string> => {
  const { outbox } = runState()
  const find = () => {
    for (const file of fs.existsSync(outbox) ? fs.readdirSync(outbox) : []) {
      const raw = fs.readFileSync(path.join(outbox, file), 'utf8')
      const key = raw.includes(email) ? /KIT(?:-[0-9A-Z]{5}){4}/.exec(raw)?.[0] : undefined
      if (key) return key
    }
    return null
  }
  let key: string | null = null
  await expect
    .poll(() => (key = find()), { message: `no license email to ${email}`, timeout: 45_000, intervals: [500] })
    .not.toBeNull()
  return key!
}

/** The license email (sent by a job) in the SMTP server's outbox. */
export const expectLicenseEmail = async (email: string, key: string) => {
  const { outbox } = runState()
  const arrived = () =>
    (fs.existsSync(outbox) ? fs.readdirSync(outbox) : []).some((file) =>
      ((raw) => raw.includes(key) && raw.includes(email))(fs.readFileSync(path.join(outbox, file), 'utf8')),
    )
  await expect
    .poll(arrived, { message: `the license email to ${email} did not arrive`, timeout: 45_000, intervals: [500] })
    .toBe(true)
}

/** Sign in to the admin as a staff account (STAFF in ./service.ts), on its login page. */
export const signInToAdmin = async (page: Page, email: string) => {
  await page.goto('/admin/login')
  await page.fill('input[name="email"]', email)
  await page.fill('input[name="password"]', PASSWORD)
  await page.click('button[type="submit"]')
  await page.waitForURL(/\/admin(\/)?$/)
}

export const signOut = async (page: Page) => {
  await page.click('button:has-text("Sign out")')
  await page.waitForURL(`${base}/`)
}

export const signUp = async (page: Page, email: string) => {
  await page.goto('/sign-up')
  await page.fill('input[name="email"]', email)
  await page.fill('input[name="password"]', PASSWORD)
  await page.click('main button[type="submit"]')
  await page.waitForURL('**/sign-up?sent=1')
  await page.goto(await linkFromOutbox(email, 'verify'))
  expectPath(page, '/dashboard')
}

export const signInWithPassword = async (page: Page, email: string) => {
  await page.goto('/sign-in')
  const form = page.locator('form', { hasText: 'Password' })
  await form.locator('input[name="email"]').fill(email)
  await form.locator('input[name="password"]').fill(PASSWORD)
  await form.locator('button[type="submit"]').click()
  await page.waitForURL('**/dashboard')
}

/** The processor stand-in's hosted checkout: the email (prefilled for a signed-in buyer), Pay, back to /success. */
export const payOnCheckout = async (page: Page, email?: string) => {
  await page.waitForURL((url) => url.pathname.startsWith('/checkout/'))
  if (email) await page.fill('input[name="email"]', email)
  await page.click('button:has-text("Pay")')
  await page.waitForURL('**/success?**')
}

/** A signed-in customer buys a lifetime plan from the pricing page and pays. */
export const buySignedIn = async (page: Page, email: string, plan: 'standard' | 'ultimate') => {
  await page.goto('/pricing')
  await page.locator('[data-testid="account-nav"]', { hasText: email }).waitFor()
  await page.click(`article[data-plan="${plan}"] button[type="submit"]`)
  await payOnCheckout(page)
}

/** The dashboard's first license key, once the webhook has granted it. */
export const licenseOnDashboard = async (page: Page): Promise<string> => {
  await expect(async () => {
    await page.goto('/dashboard')
    expect(
      await page.locator('[data-testid="licenses"] tbody tr').count(),
      'license rows on the dashboard',
    ).toBeGreaterThan(0)
  }).toPass({ intervals: [500], timeout: 60_000 })
  const key = (await page.locator('[data-testid="licenses"] code').first().textContent())?.trim() ?? ''
  expect(key, 'no license on the dashboard').toMatch(/^KIT(-[0-9A-Z]{5}){4}$/)
  return key
}

/** The dashboard's newest-release button: a signed link, followed by the browser to the file. */
export const downloadFromDashboard = async (page: Page): Promise<{ name: string; size: number }> => {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page
      .locator('form button', { hasText: /^Download/ })
      .first()
      .click(),
  ])
  return { name: download.suggestedFilename(), size: fs.statSync(await download.path()).size }
}

/**
 * An Ultimate buyer's journey: pays, asks for repository access, accepts the invitation on the code host,
 * makes an API key and asks support. Its own scenario, and the customer whose full dashboard the page
 * checks look at.
 */
export const ultimateJourney = async (page: Page): Promise<Buyer> => {
  const email = `ultimate-${Date.now()}@example.com`
  const username = `e2e-ultimate-${Date.now().toString(36)}`
  await signUp(page, email)
  await buySignedIn(page, email, 'ultimate')
  const shown = (
    (await page.locator('[data-testid="success-license"] code').textContent({ timeout: 60_000 })) ?? ''
  ).trim()
  expect(await licenseOnDashboard(page), 'the success page and the dashboard show different licenses').toBe(shown)
  // BREACH: the dashboard holds the key beside whatever the query says; asked for with the key's first
  // characters, it leaves uncompressed (its length tells nothing), while a public page is still compressed.
  const probe = await page.request.get(`/dashboard?q=${shown.slice(0, 8)}`, {
    headers: { 'accept-encoding': 'br, gzip' },
  })
  expect(probe.headers()['content-encoding'], 'the dashboard with a guess in its query was compressed').toBeUndefined()
  expect(await probe.text()).toContain(shown)
  const home = await page.request.get('/', { headers: { 'accept-encoding': 'br, gzip' } })
  expect(home.headers()['content-encoding'], 'the home page is no longer compressed').toBe('br')
  await page.fill('#repository input[name="username"]', username)
  await page.click('#repository button[type="submit"]')
  await page.locator('[data-testid="repo-status"]', { hasText: `An invitation went to ${username}` }).waitFor()
  // The invitation is accepted on the code host, as the customer would on GitHub.
  await page.goto(runState().codeHostUrl)
  await page.click(`button:has-text("Accept as ${username}")`)
  // The dashboard asks the code host again at most every 10 s per customer.
  await expect(async () => {
    await page.goto('/dashboard')
    const status = page.locator('[data-testid="repo-status"]')
    expect(
      await status.filter({ hasText: `${username} is a collaborator` }).count(),
      `the dashboard still says: ${(await status.allTextContents()).join(' ')}`,
    ).toBeGreaterThan(0)
  }).toPass({ intervals: [1_000], timeout: 60_000 })
  // Ultimate includes API keys: a new key is shown once, works on the download API, and is gone on reload.
  await page.fill('input[name="name"]', 'CI server')
  await page.click('button:has-text("Create a key")')
  const apiKey = ((await page.locator('[data-testid="new-api-key"] code').textContent()) ?? '').trim()
  const viaKey = await fetch(`${base}/api/download?version=${RELEASE_VERSION}`, {
    headers: { authorization: `Bearer ${apiKey}` },
    redirect: 'manual',
  })
  expect(
    viaKey.status,
    `the new API key's download answered: ${viaKey.status === 200 ? '' : await viaKey.text()}`,
  ).toBe(200)
  await page.goto('/dashboard')
  expect((await page.content()).includes(apiKey), 'the API key is shown again after a reload').toBe(false)
  // And priority support: a request opened from the dashboard is listed there.
  await page.fill('input[name="subject"]', 'How do I rename the app?')
  await page.fill('textarea[name="message"]', 'I want to change the product name everywhere. Where is it set?')
  await page.click('button:has-text("Send to support")')
  await page.locator('[data-testid="support-requests"]', { hasText: 'How do I rename the app?' }).waitFor()
  return { email, key: shown }
}
