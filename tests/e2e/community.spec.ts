import path from 'node:path'

import { buySignedIn, expect, licenseOnDashboard, signUp, test, signInToAdmin } from './helpers'
import { adminToken, api, runState, screenshotDir, STAFF } from './service'

// Sign-ups of their own address: the run's other scenarios share 127.0.0.1's hourly limit.
test.use({ extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.30' } })

/** The member's roles as the bot reads them from Discord (the stand-in), or null when not in the server. */
const rolesOnDiscord = async (userId: string): Promise<string[] | null> => {
  const { discord } = runState()
  const response = await fetch(`${discord.apiUrl}/guilds/${discord.guildId}/members/${userId}`, {
    headers: { authorization: `Bot ${discord.botToken}` },
  })
  if (response.status === 404) return null
  return ((await response.json()) as { roles: string[] }).roles
}

test('a buyer joins the Discord community from the dashboard and loses the role on refund', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000)
  const { discord, processor } = runState()
  const buyerId = discord.buyer.id!
  const jwt = await adminToken()
  // The seller gives Standard the Buyers role in the admin.
  const plans = await api<{ docs: { id: number }[] }>('/api/plans?where[slug][equals]=standard&depth=0', { jwt })
  await api(`/api/plans/${plans.docs[0]!.id}`, {
    jwt,
    method: 'PATCH',
    json: { discordRoleId: discord.buyersRoleId },
  })

  const email = `e2e-discord-${Date.now()}@example.com`
  await signUp(page, email)
  // Nothing to join before a license gives the role.
  await page.goto('/dashboard')
  await expect(page.locator('#community')).toHaveCount(0)
  await buySignedIn(page, email, 'standard')
  const key = await licenseOnDashboard(page)

  await page.goto('/dashboard#community')
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await page
      .locator('#community')
      .screenshot({ path: path.join(screenshotDir, `dashboard-community-join-${width}.png`) })
  }
  await page.getByTestId('join-discord').click()
  // Discord's consent page (the stand-in's): sign in as its buyer and authorize.
  await page.waitForURL((url) => url.pathname === '/oauth2/authorize')
  await page.selectOption('select[name="user_id"]', buyerId)
  await page.click('button[value="authorize"]')
  await page.waitForURL('**/dashboard?community=joined#community')
  await expect(page.getByTestId('community-notice')).toContainText('You are in')
  await expect(page.getByTestId('community-status')).toContainText(discord.buyer.username)
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    await page
      .locator('#community')
      .screenshot({ path: path.join(screenshotDir, `dashboard-community-joined-${width}.png`) })
  }
  expect(await rolesOnDiscord(buyerId)).toContain(discord.buyersRoleId)

  // Support sees the link on the customer's page and syncs the roles (a moderator removed it by hand).
  await fetch(`${discord.apiUrl}/guilds/${discord.guildId}/members/${buyerId}/roles/${discord.buyersRoleId}`, {
    method: 'DELETE',
    headers: { authorization: `Bot ${discord.botToken}` },
  })
  expect(await rolesOnDiscord(buyerId)).toEqual([])
  const users = await api<{ docs: { id: number }[] }>(`/api/users?where[email][equals]=${email}&depth=0`, { jwt })
  const staff = await browser.newContext()
  try {
    const admin = await staff.newPage()
    await signInToAdmin(admin, STAFF.support)
    await admin.goto(`/admin/collections/users/${users.docs[0]!.id}`)
    await admin.click('button:has-text("Sync community roles")')
    await admin.fill('.staff-actions__reason', 'The customer says the buyers role is missing (e2e).')
    await admin.locator('.staff-actions__confirm button', { hasText: 'Sync community roles' }).click()
    await admin.locator('text=Discord checked: 1 role(s) given, 0 failed.').waitFor()
    await admin.getByText('Customer', { exact: true }).first().click()
    await admin.getByText(discord.buyer.username).first().waitFor()
    for (const width of [360, 1280]) {
      await admin.setViewportSize({ width, height: 900 })
      await admin.screenshot({ path: path.join(screenshotDir, `admin-customer-discord-${width}.png`), fullPage: true })
    }
  } finally {
    await staff.close()
  }
  expect(await rolesOnDiscord(buyerId)).toContain(discord.buyersRoleId)

  // The seller refunds the purchase at the processor; its webhook revokes the license, a job takes the role off.
  const licenses = await api<{ docs: { oneTimePurchase: number }[] }>(
    `/api/licenses?where[key][equals]=${key}&depth=0`,
    { jwt },
  )
  const purchase = await api<{ processorPaymentIntentId: string }>(
    `/api/one_time_purchases/${licenses.docs[0]!.oneTimePurchase}?depth=0`,
    { jwt },
  )
  const refund = await fetch(`${processor.url}/v1/refunds`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${processor.secretKey}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ payment_intent: purchase.processorPaymentIntentId }),
  })
  expect(refund.status, await refund.clone().text()).toBe(200)
  await expect.poll(() => rolesOnDiscord(buyerId), { timeout: 60_000, intervals: [500] }).toEqual([])

  await page.goto('/dashboard#community')
  await expect(page.getByTestId('community-status')).toContainText('Your licenses include no community role now')
  // Disconnecting forgets the account; with no license giving a role, the section goes once read.
  await page.getByTestId('disconnect-discord').click()
  await page.waitForURL('**/dashboard?community=disconnected#community')
  await expect(page.getByTestId('community-notice')).toContainText('Discord is disconnected')
  await expect(page.getByTestId('join-discord')).toHaveCount(0)
  await page.goto('/dashboard')
  await expect(page.locator('#community')).toHaveCount(0)
})
