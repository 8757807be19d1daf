import path from 'node:path'

import { type Page } from '@playwright/test'

import { downloadFromDashboard, expect, expectPath, licenseOnDashboard, linkFromOutbox, signUp, test } from './helpers'
import { base, PASSWORD, RELEASE_VERSION, screenshotDir } from './service'

/** The page at phone and desktop width: no sideways scroll, a full-page screenshot each; back to desktop after. */
const photograph = async (page: Page, name: string) => {
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 })
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      `${name} scrolls sideways at ${width} px`,
    ).toBe(0)
    await page.screenshot({ path: path.join(screenshotDir, `team-${name}-${width}.png`), fullPage: true })
  }
  await page.setViewportSize({ width: 1280, height: 900 })
}

test('an owner buys Ultimate for three and invites a member, who claims the seat from the email and downloads; revoked, the member has no downloads', async ({
  page,
  browser,
}) => {
  const stamp = Date.now()
  const ownerEmail = `team-owner-${stamp}@example.com`
  const memberEmail = `team-member-${stamp}@example.com`

  // The owner picks three seats in the pricing table's Buy form and pays for three on the processor's page.
  await signUp(page, ownerEmail)
  await page.goto('/pricing')
  await page.locator('[data-testid="account-nav"]', { hasText: ownerEmail }).waitFor()
  const ultimate = page.locator('article[data-plan="ultimate"]')
  await ultimate.locator('.price', { hasText: 'per seat' }).waitFor()
  await ultimate.getByLabel('Seats', { exact: true }).fill('3')
  await photograph(page, 'pricing')
  await ultimate.locator('button[type="submit"]:visible').click()
  await page.waitForURL((url) => url.pathname.startsWith('/checkout/'))
  await expect(page.locator('tr', { hasText: 'Ultimate' }).locator('td').nth(1)).toHaveText('3')
  await page.locator('.total', { hasText: '$897.00' }).waitFor()
  await page.click('button:has-text("Pay")')
  await page.waitForURL('**/success?**')
  await licenseOnDashboard(page)

  // The Team section: the owner's own seat, then an invitation by email.
  const team = page.locator('[data-testid="team"]')
  await expect(team.locator('[data-testid="seats-used"]')).toHaveText('1 of 3 seats used.')
  await team.getByLabel('Their email address').fill(memberEmail)
  await team.getByRole('button', { name: 'Send invitation' }).click()
  await team
    .locator('[data-testid="team-notice"]', {
      hasText: `We emailed a link to ${memberEmail}. It works for 7 days, only for an account with that address.`,
    })
    .waitFor()
  await expect(team.locator('[data-testid="seats-used"]')).toHaveText('2 of 3 seats used.')
  await expect(team.locator('li[data-status="pending"]', { hasText: memberEmail })).toContainText('Invited')
  await photograph(page, 'owner-invited')

  // The member, in a browser of their own, opens the emailed link signed out: sign in or sign up with that address.
  const memberBrowser = await browser.newContext()
  try {
    const member = await memberBrowser.newPage()
    await member.goto(await linkFromOutbox(memberEmail, 'seat'))
    expectPath(member, '/sign-in?next=%2Fauth%2Fcallback%3Ftype%3Dseat&notice=seat')
    await member
      .locator('[data-testid="seat-sign-in-notice"]', { hasText: 'with the email address the invitation was sent to' })
      .waitFor()
    await photograph(member, 'sign-in')
    // They have no account: sign up from there, and confirming the address claims the seat on the way to the dashboard.
    await member.locator('[data-testid="seat-sign-in-notice"]').getByRole('link', { name: 'create an account' }).click()
    await member.waitForURL('**/sign-up?next=**')
    await member.fill('input[name="email"]', memberEmail)
    await member.fill('input[name="password"]', PASSWORD)
    await member.click('main button[type="submit"]')
    await member.waitForURL('**/sign-up?sent=1')
    await member.goto(await linkFromOutbox(memberEmail, 'verify'))
    expectPath(member, '/dashboard?seat=claimed')
    await member.locator('[data-testid="seat-notice"]', { hasText: 'You joined the team' }).waitFor()
    await member
      .locator('[data-testid="team-seats"]', { hasText: `Ultimate license, shared with you by ${ownerEmail}, joined` })
      .waitFor()
    // A member never sees the owner's key, nor a team to manage.
    expect(await member.locator('[data-testid="licenses"]').count(), 'the member sees a license table').toBe(0)
    expect(await member.locator('[data-testid="team"]').count(), 'the member sees the team').toBe(0)
    const download = await downloadFromDashboard(member)
    expect(download.name).toBe(`starter-kit-${RELEASE_VERSION}.tar.gz`)
    expect(download.size, 'the downloaded file is empty').toBeGreaterThan(0)
    await member.goto('/dashboard')
    await photograph(member, 'member-dashboard')

    // The owner sees them joined and revokes the seat, after the confirmation step.
    await page.goto('/dashboard')
    const joined = team.locator('li[data-status="claimed"]', { hasText: memberEmail })
    await expect(joined).toContainText('Joined')
    await joined.locator('summary', { hasText: 'Revoke' }).click()
    await joined.getByRole('button', { name: 'Yes, revoke the seat' }).waitFor()
    await photograph(page, 'owner-revoke')
    await joined.getByRole('button', { name: 'Yes, revoke the seat' }).click()
    await team.locator('[data-testid="team-notice"]', { hasText: 'the seat is free again' }).waitFor()
    await expect(team.locator('[data-testid="seats-used"]')).toHaveText('1 of 3 seats used.')
    expect(await team.locator('li', { hasText: memberEmail }).count(), 'the revoked member is still listed').toBe(0)

    // At once, the member's dashboard offers no download, and the download API refuses them.
    await member.goto('/dashboard')
    await member.locator('#download', { hasText: 'Downloads come with' }).waitFor()
    expect(
      await member.locator('form button', { hasText: /^Download/ }).count(),
      'a revoked member still has download buttons',
    ).toBe(0)
    expect(await member.locator('[data-testid="team-seats"]').count(), 'the revoked seat is still listed').toBe(0)
    const refused = await member.evaluate(
      async (url) => (await fetch(url, { redirect: 'manual' })).status,
      `${base}/api/download?version=${RELEASE_VERSION}`,
    )
    expect(refused, 'the download API still serves a revoked member').toBe(403)
    await photograph(member, 'member-revoked')
  } finally {
    await memberBrowser.close()
  }
})
