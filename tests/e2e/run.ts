/**
 * `npm run test:e2e`: the service as a person uses it, in headless Chromium against `npm run dev`
 * (stand-ins for the processor, the code host and the OAuth providers; emails in the outbox).
 * Needs Debian's chromium (CHROMIUM_PATH, default /usr/bin/chromium) and a PostgreSQL server:
 * E2E_DATABASE_URL names a scratch database, dropped and recreated.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'
import { chromium, type Page } from 'playwright-core'

const root = path.resolve(import.meta.dirname, '../..')
const port = Number(process.env.E2E_PORT ?? 3100)
const base = `http://localhost:${port}`
const databaseUrl = process.env.E2E_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/kit_e2e'
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-e2e-'))
/** Phone and desktop screenshots of every public page, kept after the run (E2E_SCREENSHOTS moves them). */
const screenshotDir = path.resolve(process.env.E2E_SCREENSHOTS ?? path.join(root, '.data/e2e-screenshots'))
const AXE_SOURCE = path.join(root, 'node_modules/axe-core/axe.min.js')

/** The public pages checked with axe-core and photographed; `{post}` is the first blog post. */
const PUBLIC_PAGES = ['/', '/pricing', '/sign-in', '/sign-up', '/reset-password', '/blog', '{post}', '/changelog', '/success?session_id=cs_test_unknown', '/no/such/page']
const outbox = path.join(dataDir, 'outbox')

const recreateDatabase = async () => {
  const admin = new URL(databaseUrl)
  const name = admin.pathname.slice(1)
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await client.query(`CREATE DATABASE "${name}"`)
  await client.end()
}

const startServer = async (): Promise<ChildProcess> => {
  const server = spawn(process.execPath, ['--conditions=development', '--import', 'tsx', 'server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      SERVER_URL: base,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      MEDIA_DIR: path.join(dataDir, 'media'),
      PROCESSOR_STANDIN_PORT: String(port + 11),
      CODE_HOST_STANDIN_PORT: String(port + 12),
      OAUTH_STANDIN_PORT: String(port + 13),
      JOBS_RETRY_DELAY_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const log = fs.createWriteStream(path.join(dataDir, 'server.log'))
  server.stdout!.pipe(log)
  server.stderr!.pipe(log)
  for (let attempt = 0; attempt < 300; attempt += 1) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return server
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}); see ${dataDir}/server.log`)
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  server.kill('SIGKILL')
  throw new Error(`the server did not become ready in 5 minutes; see ${dataDir}/server.log`)
}

/** The newest link of a type in the outbox for an address (quoted-printable undone). */
const linkFromOutbox = async (email: string, type: string): Promise<string> => {
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).sort().reverse() : []
    for (const file of files) {
      const raw = fs.readFileSync(path.join(outbox, file), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=')
      if (!raw.includes(email)) continue
      const match = new RegExp(`${base}/auth/callback\\?type=${type}&token=[A-Za-z0-9_%-]+`).exec(raw)
      if (match) return match[0]
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`no ${type} email for ${email}`)
}

const expectPath = (page: Page, expected: string) => {
  const actual = new URL(page.url())
  if (`${actual.pathname}${actual.search}` !== expected) throw new Error(`expected ${expected}, at ${page.url()}`)
}

const signOut = async (page: Page) => {
  await page.click('button:has-text("Sign out")')
  await page.waitForURL(`${base}/`)
}

const scenarios: [string, (page: Page) => Promise<void>][] = [
  [
    'sign up, confirm the email, sign out, sign in with a magic link, reset the password: the dashboard each time',
    async (page) => {
      const email = `e2e-${Date.now()}@example.com`
      await page.goto(`${base}/sign-up`)
      await page.fill('input[name="email"]', email)
      await page.fill('input[name="password"]', 'first-password-123')
      await page.click('main button[type="submit"]')
      await page.waitForURL('**/sign-up?sent=1')
      await page.goto(await linkFromOutbox(email, 'verify'))
      expectPath(page, '/dashboard')
      await signOut(page)
      await page.goto(`${base}/sign-in`)
      await page.locator('form', { hasText: 'Email me a link' }).locator('input[name="email"]').fill(email)
      await page.click('button:has-text("Email me a link")')
      await page.waitForURL('**/sign-in?sent=1')
      await page.goto(await linkFromOutbox(email, 'magiclink'))
      expectPath(page, '/dashboard')
      await signOut(page)
      await page.goto(`${base}/reset-password`)
      await page.fill('input[name="email"]', email)
      await page.click('main button[type="submit"]')
      await page.waitForURL('**/reset-password?sent=1')
      await page.goto(await linkFromOutbox(email, 'recovery'))
      expectPath(page, '/reset-password?step=new')
      await page.fill('input[name="password"]', 'second-password-456')
      await page.click('button:has-text("Save and sign in")')
      await page.waitForURL('**/dashboard')
      await signOut(page)
      await page.goto(`${base}/sign-in`)
      await page.locator('form', { hasText: 'Password' }).locator('input[name="email"]').fill(email)
      await page.fill('input[name="password"]', 'second-password-456')
      await page.locator('form', { hasText: 'Password' }).locator('button[type="submit"]').click()
      await page.waitForURL('**/dashboard')
    },
  ],
  [
    'sign in with GitHub on the provider stand-in',
    async (page) => {
      await page.goto(`${base}/sign-in`)
      await page.click('a:has-text("GitHub")')
      await page.click('button:has-text("Approve")')
      await page.waitForURL('**/dashboard')
      await signOut(page)
    },
  ],
  [
    'buy Standard on the processor stand-in: the license is on the dashboard and in an email',
    async (page) => {
      const email = `buyer-${Date.now()}@example.com`
      await page.goto(`${base}/sign-up`)
      await page.fill('input[name="email"]', email)
      await page.fill('input[name="password"]', 'buyer-password-123')
      await page.click('main button[type="submit"]')
      await page.waitForURL('**/sign-up?sent=1')
      await page.goto(await linkFromOutbox(email, 'verify'))
      await page.goto(`${base}/pricing`)
      // The header knows the account (asked from the browser), and the subscription's yearly price shows on the toggle.
      await page.locator('[data-testid="account-nav"]', { hasText: email }).waitFor()
      if (await page.locator('.price.cycle-yearly:visible').count()) throw new Error('the yearly price shows before the toggle')
      await page.click('label:has-text("Yearly")')
      await page.locator('article[data-plan="pro"] button:visible', { hasText: 'yearly' }).waitFor()
      await page.click('article[data-plan="standard"] button[type="submit"]')
      await page.click('button:has-text("Pay")')
      await page.waitForURL('**/success**')
      // The success page confirms the checkout with the processor and shows its buyer the license once the webhook granted it.
      const shown = ((await page.locator('[data-testid="success-license"] code').textContent({ timeout: 60_000 })) ?? '').trim()
      for (let attempt = 0; attempt < 20; attempt += 1) {
        await page.goto(`${base}/dashboard`)
        if ((await page.locator('[data-testid="licenses"] tbody tr').count()) > 0) break
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      const key = (await page.locator('[data-testid="licenses"] code').first().textContent())?.trim() ?? ''
      if (!/^KIT(-[0-9A-Z]{5}){4}$/.test(key)) throw new Error(`no license on the dashboard (${key})`)
      if (shown !== key) throw new Error(`the success page showed ${shown}, the dashboard ${key}`)
      // A plan the customer owns says so instead of selling itself again.
      await page.goto(`${base}/pricing`)
      await page.locator('article[data-plan="standard"]', { hasText: 'Your plan' }).waitFor()
      if (await page.locator('article[data-plan="standard"] button[type="submit"]').count()) throw new Error('an owned plan still has a Buy button')
      // An unknown path: the site's 404 inside its layout.
      const missing = await page.goto(`${base}/no/such/page`)
      if (missing?.status() !== 404 || !(await page.locator('h1', { hasText: 'This page does not exist' }).count())) throw new Error('no site 404 page')
      for (let attempt = 0; attempt < 60; attempt += 1) {
        const files = fs.existsSync(outbox) ? fs.readdirSync(outbox) : []
        if (files.some((file) => fs.readFileSync(path.join(outbox, file), 'utf8').includes(key))) return
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      throw new Error('the license email did not arrive')
    },
  ],
  [
    'read the blog: a post carries BlogPosting JSON-LD and a 1200x630 PNG social image, and is in the feed and the sitemap',
    async (page) => {
      await page.goto(`${base}/blog`)
      const firstPost = page.locator('.post-card-title a').first()
      const title = (await firstPost.textContent())?.trim() ?? ''
      await firstPost.click()
      await page.waitForURL(/\/blog\/[a-z0-9-]+$/)
      const url = page.url()
      if ((await page.locator('h1').textContent())?.trim() !== title) throw new Error(`the post page's h1 is not "${title}"`)

      const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}') as Record<string, unknown>
      if (jsonLd['@type'] !== 'BlogPosting' || jsonLd.headline !== title || jsonLd.url !== url) {
        throw new Error(`unexpected JSON-LD: ${JSON.stringify(jsonLd).slice(0, 300)}`)
      }
      const ogImage = (await page.locator('meta[property="og:image"]').getAttribute('content')) ?? ''
      const twitterImage = await page.locator('meta[name="twitter:image"]').getAttribute('content')
      if (!ogImage || twitterImage !== ogImage) throw new Error(`og:image "${ogImage}" and twitter:image "${twitterImage}" differ`)
      if (new URL(ogImage).pathname !== new URL(String(jsonLd.image)).pathname) throw new Error(`JSON-LD image ${String(jsonLd.image)} is not og:image ${ogImage}`)

      const image = await page.request.get(ogImage)
      const png = await image.body()
      const signature = png.subarray(0, 8).toString('hex')
      // A PNG starts with its 8-byte signature, then the IHDR chunk: width and height at bytes 16 and 20.
      if (image.status() !== 200 || !image.headers()['content-type']?.startsWith('image/png') || signature !== '89504e470d0a1a0a') {
        throw new Error(`og:image answered ${image.status()} ${image.headers()['content-type']}`)
      }
      const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)]
      if (width !== 1200 || height !== 630) throw new Error(`og:image is ${width}x${height}, expected 1200x630`)

      const feed = await page.request.get(`${base}/blog/rss.xml`)
      if (!(await feed.text()).includes(`<link>${url}</link>`)) throw new Error('the post is not in /blog/rss.xml')
      const sitemap = await page.request.get(`${base}/sitemap.xml`)
      if (!(await sitemap.text()).includes(`<loc>${url}</loc>`)) throw new Error('the post is not in /sitemap.xml')
    },
  ],
  [
    'every public page at 360 and 1280 px, light and dark: no serious or critical axe-core violation, no horizontal scroll, a screenshot',
    async (page) => {
      await page.goto(`${base}/blog`)
      const post = (await page.locator('.post-card-title a').first().getAttribute('href')) ?? '/blog'
      fs.mkdirSync(screenshotDir, { recursive: true })
      const problems: string[] = []
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme })
        for (const width of [360, 1280]) {
          await page.setViewportSize({ width, height: 900 })
          for (const pagePath of PUBLIC_PAGES.map((candidate) => (candidate === '{post}' ? post : candidate))) {
            await page.goto(`${base}${pagePath}`, { waitUntil: 'networkidle' })
            await page.addScriptTag({ path: AXE_SOURCE })
            const violations = (await page.evaluate(async () => {
              const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe
              return (await axe.run(document, { resultTypes: ['violations'] })).violations
            })) as { id: string; impact: string; nodes: { target: string[] }[] }[]
            for (const violation of violations.filter((candidate) => candidate.impact === 'serious' || candidate.impact === 'critical')) {
              problems.push(`${pagePath} ${width}px ${scheme}: ${violation.impact} ${violation.id} at ${violation.nodes.map((node) => node.target.join(' ')).slice(0, 3).join(', ')}`)
            }
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
            if (overflow > 0) problems.push(`${pagePath} ${width}px: scrolls sideways by ${overflow} px`)
            const name = `${pagePath.replace(/\?.*$/, '').replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home'}-${width}-${scheme}.png`
            await page.screenshot({ path: path.join(screenshotDir, name), fullPage: true })
          }
        }
      }
      if (problems.length > 0) throw new Error(`accessibility or layout problems:\n  ${problems.join('\n  ')}`)
    },
  ],
]

await recreateDatabase()
const server = await startServer()
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
let passed = 0
let failed = 0
try {
  for (const [name, scenario] of scenarios) {
    const context = await browser.newContext()
    const page = await context.newPage()
    page.setDefaultTimeout(90_000)
    try {
      await scenario(page)
      passed += 1
      console.info(`✓ ${name}`)
    } catch (error) {
      failed += 1
      console.error(`✗ ${name}\n  ${(error as Error).message}`)
      await page.screenshot({ path: path.join(dataDir, `failure-${passed + failed}.png`) }).catch(() => undefined)
    }
    await context.close()
  }
} finally {
  await browser.close()
  server.kill('SIGTERM')
  await new Promise((resolve) => server.once('exit', resolve))
}
console.info(`${passed} passed, ${failed} failed; screenshots in ${screenshotDir}`)
if (failed > 0) console.error(`server log and screenshots: ${dataDir}`)
process.exit(failed > 0 ? 1 : 0)
