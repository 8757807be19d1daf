/**
 * `npm run test:e2e`: the service as people use it, in headless Chromium against the production build
 * (`npm run build`, made here when .next or dist/server is missing; E2E_BUILD=1 rebuilds), run as
 * `npm start` runs it. The stand-ins for the processor, the code host, the OAuth providers and an SMTP
 * server run as a process of their own (tests/e2e/standins.ts) that the server reaches through
 * PAYMENT_API_URL, REPO_API_URL, the OAUTH_* URLs and SMTP_URL, as it would reach the real services.
 * Needs Debian's chromium (CHROMIUM_PATH, default /usr/bin/chromium) and a PostgreSQL server:
 * E2E_DATABASE_URL names a scratch database, dropped and recreated. Phone and desktop screenshots of
 * every page are kept in E2E_SCREENSHOTS (default .data/e2e-screenshots); the logs of a failed run too.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import zlib from 'node:zlib'

import pg from 'pg'
import { type Browser, chromium, type Page } from 'playwright-core'

import { BUILT_SERVER, startEnv, startNodeArgs } from '../../src/process/start-command'

const root = path.resolve(import.meta.dirname, '../..')
const port = Number(process.env.E2E_PORT ?? 3100)
const base = `http://localhost:${port}`
const databaseUrl = process.env.E2E_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/kit_e2e'
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-e2e-'))
/** Phone and desktop screenshots of every page, kept after the run (E2E_SCREENSHOTS moves them). */
const screenshotDir = path.resolve(process.env.E2E_SCREENSHOTS ?? path.join(root, '.data/e2e-screenshots'))
const AXE_SOURCE = path.join(root, 'node_modules/axe-core/axe.min.js')
const PASSWORD = 'e2e-password-0123'
const RELEASE_VERSION = '1.0.0'

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

const ensureBuild = () => {
  const built = fs.existsSync(path.join(root, '.next/BUILD_ID')) && fs.existsSync(path.join(root, BUILT_SERVER))
  if (built && process.env.E2E_BUILD !== '1') return
  console.info('npm run build (no production build in .next and dist/server, or E2E_BUILD=1)')
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status})`)
}

const children: ChildProcess[] = []

/** A child whose output goes to `<dataDir>/<name>.log`, stopped (its whole group) when the run ends. */
const startChild = (name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess => {
  const log = fs.openSync(path.join(dataDir, `${name}.log`), 'a')
  const child = spawn(process.execPath, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', log] })
  fs.closeSync(log)
  children.push(child)
  return child
}

const stopChildren = async () => {
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    const exited = new Promise((resolve) => child.once('exit', resolve))
    process.kill(-child.pid!, 'SIGTERM')
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000)
    await exited
    clearTimeout(timer)
  }
}

type StandIns = { serverEnv: Record<string, string>; codeHostUrl: string }

/** The stand-ins' process; settles with the settings it printed on its `ready` line. */
const startStandIns = async (): Promise<StandIns> => {
  const child = startChild('standins', ['--conditions=production', '--import', 'tsx', 'tests/e2e/standins.ts'], {
    ...process.env,
    E2E_SERVER_URL: base,
    E2E_OUTBOX: outbox,
    E2E_STANDIN_PORTS: [port + 11, port + 12, port + 13, port + 14].join(','),
  })
  const lines = readline.createInterface({ input: child.stdout! })
  const ready = new Promise<StandIns>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.startsWith('ready ')) resolve(JSON.parse(line.slice('ready '.length)) as StandIns)
    })
    child.once('exit', (code) => reject(new Error(`the stand-ins exited (${code}); see ${dataDir}/standins.log`)))
  })
  return ready
}

/** `npm start`: the built server in production mode, with every setting explicit. */
const startServer = async (standIns: StandIns): Promise<void> => {
  const keep = ['PATH', 'HOME', 'LANG', 'TMPDIR', 'TERM'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : []))
  const server = startChild('server', [...startNodeArgs(root), BUILT_SERVER], startEnv(root, {
    ...Object.fromEntries(keep),
    ...standIns.serverEnv,
    NODE_ENV: 'production',
    PORT: String(port),
    SERVER_URL: base,
    DATABASE_URL: databaseUrl,
    PAYLOAD_SECRET: crypto.randomBytes(32).toString('hex'),
    LICENSE_SIGNING_KEY: crypto.generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    DATA_DIR: dataDir,
    MEDIA_DIR: path.join(dataDir, 'media'),
    RELEASES_DIR: path.join(dataDir, 'releases'),
    TEMPLATES_DIR: path.join(dataDir, 'templates'),
    JOBS_RETRY_DELAY_MS: '1000',
  }))
  server.stdout!.pipe(fs.createWriteStream(path.join(dataDir, 'server.out.log')))
  for (let attempt = 0; attempt < 240; attempt += 1) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}); see ${dataDir}/server.out.log`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`the server did not become ready in 2 minutes; see ${dataDir}/server.out.log`)
}

/** A JSON or multipart request to the server's REST API, as staff would make in the admin. */
const api = async <T>(pathname: string, init: { jwt?: string; json?: unknown; form?: FormData; method?: string } = {}): Promise<T> => {
  const headers: Record<string, string> = { origin: base }
  if (init.jwt) headers.authorization = `JWT ${init.jwt}`
  if (init.json !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${base}${pathname}`, {
    method: init.method ?? (init.json !== undefined || init.form ? 'POST' : 'GET'),
    headers,
    body: init.form ?? (init.json !== undefined ? JSON.stringify(init.json) : undefined),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${init.method ?? 'request'} ${pathname} answered ${response.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as T
}

const STAFF = { admin: 'e2e-admin@example.com', support: 'e2e-support@example.com' }

/** What staff do before customers come: the first admin, a support agent, a published release. */
const prepareStaff = async (): Promise<string> => {
  await api('/api/users/first-register', { json: { email: STAFF.admin, password: PASSWORD } })
  const { token } = await api<{ token: string }>('/api/users/login', { json: { email: STAFF.admin, password: PASSWORD } })
  await api('/api/users', { jwt: token, json: { email: STAFF.support, password: PASSWORD, roles: ['support'], emailVerified: true } })
  const form = new FormData()
  form.append('_payload', JSON.stringify({ version: RELEASE_VERSION, publishedAt: new Date(Date.now() - 60_000).toISOString() }))
  // A real gzip archive: Payload checks an upload's type from its bytes.
  form.append('file', new Blob([zlib.gzipSync(crypto.randomBytes(32 * 1024))], { type: 'application/gzip' }), `starter-kit-${RELEASE_VERSION}.tar.gz`)
  await api('/api/releases', { jwt: token, form })
  return token
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The processor stand-in's hosted checkout: the email (prefilled for a signed-in buyer), Pay, back to /success. */
const payOnCheckout = async (page: Page, email?: string) => {
  await page.waitForURL((url) => url.pathname.startsWith('/checkout/'))
  if (email) await page.fill('input[name="email"]', email)
  await page.click('button:has-text("Pay")')
  await page.waitForURL('**/success?**')
}

const signUp = async (page: Page, email: string) => {
  await page.goto(`${base}/sign-up`)
  await page.fill('input[name="email"]', email)
  await page.fill('input[name="password"]', PASSWORD)
  await page.click('main button[type="submit"]')
  await page.waitForURL('**/sign-up?sent=1')
  await page.goto(await linkFromOutbox(email, 'verify'))
  expectPath(page, '/dashboard')
}

const signInWithPassword = async (page: Page, email: string) => {
  await page.goto(`${base}/sign-in`)
  const form = page.locator('form', { hasText: 'Password' })
  await form.locator('input[name="email"]').fill(email)
  await form.locator('input[name="password"]').fill(PASSWORD)
  await form.locator('button[type="submit"]').click()
  await page.waitForURL('**/dashboard')
}

/** The dashboard's first license key, once the webhook has granted it. */
const licenseOnDashboard = async (page: Page): Promise<string> => {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    await page.goto(`${base}/dashboard`)
    if ((await page.locator('[data-testid="licenses"] tbody tr').count()) > 0) break
    await sleep(500)
  }
  const key = (await page.locator('[data-testid="licenses"] code').first().textContent())?.trim() ?? ''
  if (!/^KIT(-[0-9A-Z]{5}){4}$/.test(key)) throw new Error(`no license on the dashboard (${key})`)
  return key
}

/** The license email (sent by a job) in the SMTP server's outbox. */
const expectLicenseEmail = async (email: string, key: string) => {
  for (let attempt = 0; attempt < 90; attempt += 1) {
    const files = fs.existsSync(outbox) ? fs.readdirSync(outbox) : []
    if (files.some((file) => ((raw) => raw.includes(key) && raw.includes(email))(fs.readFileSync(path.join(outbox, file), 'utf8')))) return
    await sleep(500)
  }
  throw new Error(`the license email to ${email} did not arrive`)
}

/** The dashboard's newest-release button: a signed link, followed by the browser to the file. */
const downloadFromDashboard = async (page: Page): Promise<{ name: string; size: number }> => {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('form button', { hasText: /^Download/ }).first().click()])
  const file = path.join(dataDir, `download-${Date.now()}`)
  await download.saveAs(file)
  return { name: download.suggestedFilename(), size: fs.statSync(file).size }
}

type Buyer = { email: string; key: string }
/** Filled by the purchase journeys, for the later ones (revocation, the signed-in pages' checks). */
let standardBuyer: Buyer | null = null
let ultimateBuyer: Buyer | null = null
let adminJwt = ''
let codeHostUrl = ''

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
    "someone signs up with another person's email: the owner's confirmation asks for a new password, and the squatter's stops working",
    async (page) => {
      const email = `e2e-owner-${Date.now()}@example.com`
      // The squatter signs up in this browser with a password of their own.
      await page.goto(`${base}/sign-up`)
      await page.fill('input[name="email"]', email)
      await page.fill('input[name="password"]', 'squatters-password-1')
      await page.click('main button[type="submit"]')
      await page.waitForURL('**/sign-up?sent=1')
      // The owner opens the confirmation email in their own browser.
      const owner = await page.context().browser()!.newContext()
      try {
        const ownerPage = await owner.newPage()
        await ownerPage.goto(await linkFromOutbox(email, 'verify'))
        expectPath(ownerPage, '/reset-password?step=new&confirmed=1')
        await ownerPage.locator('[role="status"]', { hasText: 'Your email address is confirmed' }).waitFor()
        fs.mkdirSync(screenshotDir, { recursive: true })
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
      await page.goto(`${base}/sign-in`)
      const form = page.locator('form', { hasText: 'Password' })
      await form.locator('input[name="email"]').fill(email)
      await form.locator('input[name="password"]').fill('squatters-password-1')
      await form.locator('button[type="submit"]').click()
      await page.locator('[role="alert"]').waitFor()
      if (new URL(page.url()).pathname !== '/sign-in') throw new Error(`the squatter's password signed in: at ${page.url()}`)
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
    'a visitor buys Standard anonymously, pays, signs up with the checkout email, confirms, sees the license and downloads',
    async (page) => {
      const email = `standard-${Date.now()}@example.com`
      await page.goto(`${base}/pricing`)
      await page.locator('[data-testid="account-nav"]', { hasText: 'Sign in' }).waitFor()
      await page.click('article[data-plan="standard"] button[type="submit"]')
      await payOnCheckout(page, email)
      // The success page confirms the checkout with the processor; an anonymous visitor sees only the masked address.
      await page.locator('main', { hasText: 'Your license is on its way to' }).waitFor()
      const shown = (await page.locator('main').textContent()) ?? ''
      if (shown.includes(email) || !shown.includes('@example.com')) throw new Error(`the success page shows "${shown.slice(0, 300)}"`)
      await signUp(page, email)
      const key = await licenseOnDashboard(page)
      await expectLicenseEmail(email, key)
      await page.locator('[data-testid="versions"]', { hasText: RELEASE_VERSION }).waitFor()
      const file = await downloadFromDashboard(page)
      if (file.name !== `starter-kit-${RELEASE_VERSION}.tar.gz` || file.size === 0) throw new Error(`downloaded ${file.name} (${file.size} bytes)`)
      await page.goto(`${base}/dashboard`)
      await page.locator('[data-testid="download-history"]', { hasText: `Version ${RELEASE_VERSION}` }).waitFor()
      // A plan the customer owns says so instead of selling itself again.
      await page.goto(`${base}/pricing`)
      await page.locator('article[data-plan="standard"]', { hasText: 'Your plan' }).waitFor()
      if (await page.locator('article[data-plan="standard"] button[type="submit"]').count()) throw new Error('an owned plan still has a Buy button')
      standardBuyer = { email, key }
    },
  ],
  [
    'an Ultimate buyer requests repository access and becomes a collaborator after accepting the invitation, makes an API key and asks support',
    async (page) => {
      const email = `ultimate-${Date.now()}@example.com`
      const username = `e2e-ultimate-${Date.now().toString(36)}`
      await signUp(page, email)
      await page.goto(`${base}/pricing`)
      await page.locator('[data-testid="account-nav"]', { hasText: email }).waitFor()
      await page.click('article[data-plan="ultimate"] button[type="submit"]')
      await payOnCheckout(page)
      const shown = ((await page.locator('[data-testid="success-license"] code').textContent({ timeout: 60_000 })) ?? '').trim()
      if (shown !== (await licenseOnDashboard(page))) throw new Error('the success page and the dashboard show different licenses')
      await page.fill('#repository input[name="username"]', username)
      await page.click('#repository button[type="submit"]')
      await page.locator('[data-testid="repo-status"]', { hasText: `An invitation went to ${username}` }).waitFor()
      // The invitation is accepted on the code host, as the customer would on GitHub.
      await page.goto(codeHostUrl)
      await page.click(`button:has-text("Accept as ${username}")`)
      // The dashboard asks the code host again at most every 10 s per customer.
      for (let attempt = 0; attempt < 30; attempt += 1) {
        await page.goto(`${base}/dashboard`)
        if (await page.locator('[data-testid="repo-status"]', { hasText: `${username} is a collaborator` }).count()) break
        if (attempt === 29) throw new Error(`the dashboard still says: ${await page.locator('[data-testid="repo-status"]').textContent()}`)
        await sleep(1000)
      }
      // Ultimate includes API keys: a new key is shown once, works on the download API, and is gone on reload.
      await page.fill('input[name="name"]', 'CI server')
      await page.click('button:has-text("Create a key")')
      const apiKey = ((await page.locator('[data-testid="new-api-key"] code').textContent()) ?? '').trim()
      const viaKey = await fetch(`${base}/api/download?version=${RELEASE_VERSION}`, { headers: { authorization: `Bearer ${apiKey}` }, redirect: 'manual' })
      if (viaKey.status !== 200) throw new Error(`the new API key's download answered ${viaKey.status}: ${await viaKey.text()}`)
      await page.goto(`${base}/dashboard`)
      if ((await page.content()).includes(apiKey)) throw new Error('the API key is shown again after a reload')
      // And priority support: a request opened from the dashboard is listed there.
      await page.fill('input[name="subject"]', 'How do I rename the app?')
      await page.fill('textarea[name="message"]', 'I want to change the product name everywhere. Where is it set?')
      await page.click('button:has-text("Send to support")')
      await page.locator('[data-testid="support-requests"]', { hasText: 'How do I rename the app?' }).waitFor()
      ultimateBuyer = { email, key: shown }
    },
  ],
  [
    'a Pro subscriber opens the billing portal, cancels, and the dashboard says when the plan ends',
    async (page) => {
      const email = `pro-${Date.now()}@example.com`
      await signUp(page, email)
      await page.goto(`${base}/pricing`)
      await page.locator('[data-testid="account-nav"]', { hasText: email }).waitFor()
      if (await page.locator('.price.cycle-yearly:visible').count()) throw new Error('the yearly price shows before the toggle')
      await page.click('label:has-text("Yearly")')
      await page.locator('article[data-plan="pro"] button:visible', { hasText: 'yearly' }).click()
      await payOnCheckout(page)
      await licenseOnDashboard(page)
      await page.locator('.card', { hasText: 'Renews on' }).waitFor()
      await page.click('button:has-text("Manage billing")')
      await page.waitForURL((url) => url.origin !== base)
      await page.click('button:has-text("Cancel subscription")')
      await page.locator('td', { hasText: /^ends / }).waitFor()
      await page.click('a:has-text("Return")')
      await page.waitForURL(`${base}/dashboard`)
      // The cancellation reaches the service as a webhook; the plan keeps working to the end of the paid period.
      for (let attempt = 0; attempt < 30; attempt += 1) {
        if (await page.locator('.card', { hasText: 'Ends on' }).count()) break
        if (attempt === 29) throw new Error('the dashboard does not say when the cancelled subscription ends')
        await sleep(500)
        await page.reload()
      }
      await page.locator('[data-testid="licenses"] tr[data-status="active"]').waitFor()
    },
  ],
  [
    'support revokes a license in the admin; the customer sees it revoked and the next download is refused',
    async (page) => {
      if (!standardBuyer) throw new Error('needs the Standard buyer of the first purchase journey')
      const buyer = standardBuyer
      const { docs } = await api<{ docs: { id: number }[] }>(`/api/licenses?where[key][equals]=${buyer.key}&depth=0`, { jwt: adminJwt })
      const licenseId = docs[0]?.id
      if (licenseId === undefined) throw new Error(`no license ${buyer.key}`)
      await page.goto(`${base}/admin/login`)
      await page.fill('input[name="email"]', STAFF.support)
      await page.fill('input[name="password"]', PASSWORD)
      await page.click('button[type="submit"]')
      await page.waitForURL(/\/admin(\/)?$/)
      await page.goto(`${base}/admin/collections/licenses/${licenseId}`)
      await page.click('button:has-text("Revoke license")')
      await page.fill('.staff-actions__reason', 'Chargeback: the payment was disputed (e2e).')
      await page.locator('.staff-actions__confirm button', { hasText: 'Revoke license' }).click()
      await page.locator('text=License revoked.').waitFor()

      const customer = await page.context().browser()!.newContext()
      try {
        const customerPage = await customer.newPage()
        await signInWithPassword(customerPage, buyer.email)
        await customerPage.locator('[data-testid="licenses"] tr[data-status="revoked"]').waitFor()
        // The download API from the customer's browser, with the session cookie.
        const refused = await customerPage.evaluate(async (url) => {
          const response = await fetch(url, { redirect: 'manual' })
          return { status: response.status, body: (await response.json()) as { errors?: { code: string }[] } }
        }, `${base}/api/download?version=${RELEASE_VERSION}`)
        const { body } = refused
        if (refused.status !== 403) throw new Error(`a download with a revoked license answered ${refused.status} ${JSON.stringify(body)}`)
        if (!body.errors?.[0]?.code) throw new Error(`the refusal has no error code: ${JSON.stringify(body)}`)
        // The dashboard no longer offers the download and says why the license stopped.
        if (await customerPage.locator('form button', { hasText: /^Download/ }).count()) throw new Error('a revoked license still offers downloads')
        await customerPage.locator('#download', { hasText: 'Downloads come with' }).waitFor()
      } finally {
        await customer.close()
      }
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
    'every page at 360 and 1280 px, light and dark, public and signed in: no serious or critical axe-core violation, no horizontal scroll, a screenshot; every link on them answers',
    async (page) => {
      await page.goto(`${base}/blog`)
      const post = (await page.locator('.post-card-title a').first().getAttribute('href')) ?? '/blog'
      const problems = await checkPages(page, PUBLIC_PAGES.map((candidate) => (candidate === '{post}' ? post : candidate)), 'public')
      if (!ultimateBuyer) throw new Error('needs the Ultimate buyer of the repository journey')
      await signInWithPassword(page, ultimateBuyer.email)
      problems.push(...(await checkPages(page, ['/dashboard', '/pricing'], 'customer')))
      problems.push(...(await brokenLinks(page)))
      if (linked.size < 10) problems.push(`only ${linked.size} links were found on the pages`)
      if (problems.length > 0) throw new Error(`accessibility or layout problems:\n  ${problems.join('\n  ')}`)
    },
  ],
]

type Violation = { id: string; impact: string; nodes: { target: string[] }[] }

/** Each page in both colour schemes at phone and desktop width: axe-core, sideways scroll, a full-page screenshot. */
const checkPages = async (page: Page, pagePaths: string[], who: string): Promise<string[]> => {
  fs.mkdirSync(screenshotDir, { recursive: true })
  const problems: string[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      for (const pagePath of pagePaths) {
        await page.goto(`${base}${pagePath}`, { waitUntil: 'networkidle' })
        await page.addScriptTag({ path: AXE_SOURCE })
        const violations = (await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: unknown[] }> } }).axe
          return (await axe.run(document, { resultTypes: ['violations'] })).violations
        })) as Violation[]
        for (const violation of violations.filter((candidate) => candidate.impact === 'serious' || candidate.impact === 'critical')) {
          problems.push(`${pagePath} (${who}) ${width}px ${scheme}: ${violation.impact} ${violation.id} at ${violation.nodes.map((node) => node.target.join(' ')).slice(0, 3).join(', ')}`)
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        if (overflow > 0) problems.push(`${pagePath} (${who}) ${width}px: scrolls sideways by ${overflow} px`)
        // Links to a place on the same page (the skip link) are not links to check.
        const hrefs = await page.locator('a[href]:not([href^="#"])').evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).href))
        for (const href of hrefs) {
          const url = new URL(href)
          if (url.origin === base) linked.add(`${url.pathname}${url.search}`)
        }
        const slug = pagePath.replace(/\?.*$/, '').replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home'
        await page.screenshot({ path: path.join(screenshotDir, `${who}-${slug}-${width}-${scheme}.png`), fullPage: true })
      }
    }
  }
  return problems
}

/** Every same-origin link seen on the checked pages, each asked once (anonymously) at the end. */
const linked = new Set<string>()

const brokenLinks = async (page: Page): Promise<string[]> => {
  const broken: string[] = []
  for (const href of linked) {
    const response = await page.request.get(`${base}${href}`)
    if (response.status() >= 400) broken.push(`${href} answered ${response.status()}`)
  }
  return broken
}

const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })

const started = Date.now()
fs.rmSync(path.join(screenshotDir, 'failed-run'), { recursive: true, force: true })
let passed = 0
let failed = 0
try {
  ensureBuild()
  await recreateDatabase()
  const standIns = await startStandIns()
  codeHostUrl = standIns.codeHostUrl
  await startServer(standIns)
  adminJwt = await prepareStaff()
  const browser = await launchBrowser()
  try {
    for (const [name, scenario] of scenarios) {
      const context = await browser.newContext({ acceptDownloads: true })
      const page = await context.newPage()
      page.setDefaultTimeout(60_000)
      try {
        await scenario(page)
        passed += 1
        console.info(`✓ ${name}`)
      } catch (error) {
        failed += 1
        console.error(`✗ ${name}\n  ${(error as Error).message}`)
        await page.screenshot({ path: path.join(dataDir, `failure-${passed + failed}.png`), fullPage: true }).catch(() => undefined)
      }
      await context.close()
    }
  } finally {
    await browser.close()
  }
} catch (error) {
  failed += 1
  console.error(`✗ setting up: ${(error as Error).message}`)
} finally {
  await stopChildren()
}
console.info(`${passed} passed, ${failed} failed in ${Math.round((Date.now() - started) / 1000)} s; screenshots in ${screenshotDir}`)
if (failed > 0) {
  // The logs and failure screenshots go beside the page screenshots, so CI keeps them as one artifact.
  const kept = path.join(screenshotDir, 'failed-run')
  fs.cpSync(dataDir, kept, { recursive: true, filter: (source) => !source.includes(`${path.sep}media`) && !source.includes(`${path.sep}releases`) })
  console.error(`server and stand-in logs, failure screenshots: ${kept}`)
} else {
  fs.rmSync(dataDir, { recursive: true, force: true })
}
process.exit(failed > 0 ? 1 : 0)
