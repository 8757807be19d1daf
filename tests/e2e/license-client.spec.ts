/**
 * The license client's browser build (packages/license-client, built as `npm pack` builds it) in Chromium,
 * on a page of a seller's app served from an origin of its own: it verifies the documented test vector with
 * pinned keys, refuses it tampered, and, with a key bought through the checkout, activates and checks
 * online against the service (across origins) and offline from what it kept in localStorage.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

import { expect, keyFromOutbox, payOnCheckout, test } from './helpers'
import { base, root } from './service'

const packageDir = path.join(root, 'packages/license-client')
const docs = fs.readFileSync(path.join(root, 'docs/LICENSING.md'), 'utf8')
const blocks = [...docs.slice(docs.indexOf('#### Test vectors')).matchAll(/```(?:json|text)\n([\s\S]*?)\n```/g)].map(
  (match) => match[1]!.trim(),
)
const vector = { publicKeys: blocks[2]!, payload: JSON.parse(blocks[4]!) as { iat: number }, token: blocks[5]! }

/** The seller's page: an import map for jose's browser build, the client's browser entry on `window`. */
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Seller app</title>
<script type="importmap">{"imports": {"jose": "/jose/index.js"}}</script>
<script type="module">
import * as client from '/client/browser.js'
window.licenseClient = client
document.body.dataset.ready = 'yes'
</script></head><body><h1>Seller app</h1></body></html>`

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html' }

test('the browser build verifies the vector, and activates and checks a bought license across origins', async ({
  page,
}) => {
  execFileSync('npm', ['run', 'build'], { cwd: packageDir, stdio: 'ignore' })
  const joseDir = path.dirname(
    path.join(
      root,
      'node_modules/jose',
      (
        JSON.parse(fs.readFileSync(path.join(root, 'node_modules/jose/package.json'), 'utf8')) as {
          exports: { '.': { browser: string } }
        }
      ).exports['.'].browser,
    ),
  )
  const files = (prefix: string, dir: string) => (url: string) =>
    url.startsWith(prefix)
      ? path.join(dir, path.normalize(url.slice(prefix.length)).replace(/^(\.\.[/\\])+/, ''))
      : null
  const routes = [files('/client/', path.join(packageDir, 'dist')), files('/jose/', joseDir)]
  const app = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0]!
    if (url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' })
      return res.end(PAGE)
    }
    const file = routes.map((route) => route(url)).find((found) => found && fs.existsSync(found))
    if (!file) {
      res.writeHead(404)
      return res.end()
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' })
    fs.createReadStream(file).pipe(res)
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  const appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
  try {
    await page.goto(appOrigin)
    await expect(page.locator('body[data-ready="yes"]')).toBeVisible()

    const verified = await page.evaluate(
      async ({ publicKeys, token, at }) => {
        type Client = { verifyCertificate: (jws: string) => Promise<{ genuine: boolean; code: string }> }
        const { createLicenseClient, memoryStorage } = (
          window as unknown as { licenseClient: Record<string, (o?: unknown) => unknown> }
        ).licenseClient
        const client = createLicenseClient!({
          serviceUrl: 'https://kit.example',
          publicKeys: JSON.parse(publicKeys) as unknown,
          storage: memoryStorage!(),
          now: () => at,
        }) as Client
        const [header, payload, signature] = token.split('.')
        return {
          genuine: await client.verifyCertificate(token),
          tampered: await client.verifyCertificate(`${header}.${payload}x.${signature}`),
        }
      },
      { publicKeys: vector.publicKeys, token: vector.token, at: (vector.payload.iat + 60) * 1000 },
    )
    expect(verified.genuine).toMatchObject({ genuine: true, code: 'VALID' })
    expect(verified.tampered).toEqual({ genuine: false, code: 'NOT_GENUINE' })

    // A license bought by a guest in another tab (no account: sign-ups are rate-limited per address), its
    // key taken from the license email, then used by the seller's app on its own origin.
    const email = `client-${Date.now()}@example.com`
    const shop = await page.context().newPage()
    await shop.goto('/pricing')
    await shop.click('article[data-plan="ultimate"] button[type="submit"]')
    await payOnCheckout(shop, email)
    await shop.close()
    const key = await keyFromOutbox(email)
    const answers = await page.evaluate(
      async ({ serviceUrl, key }) => {
        type Check = { status: string; code: string; source: string; claims?: { plan: string } }
        type Client = { activate: (k: string) => Promise<{ check: Check }>; check: () => Promise<Check> }
        const { createLicenseClient } = (window as unknown as { licenseClient: Record<string, (o: unknown) => Client> })
          .licenseClient
        const online = createLicenseClient!({ serviceUrl, fingerprint: 'browser:e2e' })
        const activated = (await online.activate(key)).check
        const checked = await online.check()
        const stored = Object.keys(localStorage).filter((name) => name.startsWith('license-client '))
        // The same app with the service out of reach: what localStorage kept decides.
        const offline = createLicenseClient!({
          serviceUrl,
          fingerprint: 'browser:e2e',
          fetch: () => Promise.reject(new TypeError('Failed to fetch')),
        })
        return { activated, checked, stored, offline: await offline.check() }
      },
      { serviceUrl: base, key },
    )
    expect(answers.activated).toMatchObject({
      status: 'valid',
      code: 'VALID',
      source: 'online',
      claims: { plan: 'ultimate' },
    })
    expect(answers.checked).toMatchObject({ status: 'valid', code: 'VALID', source: 'online' })
    expect(answers.stored.length).toBeGreaterThan(0)
    expect(answers.offline).toMatchObject({ status: 'valid', code: 'VALID', source: 'stored' })
  } finally {
    await new Promise((resolve) => app.close(resolve))
  }
})
