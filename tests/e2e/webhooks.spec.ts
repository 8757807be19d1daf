import path from 'node:path'

import { type Page } from '@playwright/test'

import { startWebhookReceiver } from '../support/webhook-receiver'
import { expect, test, signInToAdmin } from './helpers'
import { screenshotDir, STAFF } from './service'

/** No sideways scrolling at this width (the secret and the URL are long words). */
const fitsWidth = async (page: Page) =>
  expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), { timeout: 5_000 })
    .toBe(0)

test('an admin adds a webhook endpoint, copies its secret once, sends a test event and sends a delivery again', async ({
  page,
}) => {
  const receiver = await startWebhookReceiver()
  try {
    await signInToAdmin(page, STAFF.admin)

    await page.goto('/admin/collections/webhook_endpoints/create')
    await page.fill('#field-url', `${receiver.url}/crm`)
    await page.fill('#field-description', 'Our CRM (e2e)')
    await page.locator('#field-events').click()
    for (const label of ['Order paid', 'License revoked']) {
      await page.keyboard.type(label)
      await page.keyboard.press('Enter')
    }
    await page.locator('#action-save').click()
    await page.waitForURL(/\/admin\/collections\/webhook_endpoints\/\d+$/)
    const id = /(\d+)$/.exec(page.url())![1]

    await page.getByRole('button', { name: 'Show signing secret' }).click()
    const secret = (await page.locator('.webhook-secret__value').textContent())!.trim()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    receiver.route('/crm', { kind: 'ok' }, [secret])
    // Shown once: after a reload the page offers only rotation.
    await page.reload()
    await page.getByRole('button', { name: 'Rotate secret' }).waitFor()
    await expect(page.getByRole('button', { name: 'Show signing secret' })).toHaveCount(0)
    await expect(page.locator('body')).not.toContainText(secret)

    await page.getByRole('button', { name: 'Send test event' }).click()
    await expect(page.getByText(/Test event: Delivered: the receiver answered 200 in \d+ ms\./)).toBeVisible()
    expect(receiver.at('/crm').map((record) => record.verified?.type)).toEqual(['webhook.test'])

    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 })
      await fitsWidth(page)
      await page.screenshot({ path: path.join(screenshotDir, `admin-webhook-endpoint-${width}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: 1280, height: 900 })

    // The delivery, as staff find it, sent again with the same event id.
    await page.goto('/admin/collections/webhook_deliveries')
    await page.getByRole('link', { name: 'webhook.test' }).first().click()
    await page.waitForURL(/\/admin\/collections\/webhook_deliveries\/\d+$/)
    await expect(page.locator('#field-url')).toHaveValue(`${receiver.url}/crm`)
    await page.getByRole('button', { name: 'Send again' }).click()
    await expect(page.getByText(/^Delivered: the receiver answered 200/)).toBeVisible()
    const [first, again] = receiver.at('/crm')
    expect(again!.id).toBe(first!.id)
    expect(again!.verified).toEqual(first!.verified)
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 })
      await fitsWidth(page)
      await page.screenshot({ path: path.join(screenshotDir, `admin-webhook-delivery-${width}.png`), fullPage: true })
    }
    expect(id).toBeTruthy()
  } finally {
    await receiver.close()
  }
})
