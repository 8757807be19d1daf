/**
 * Import this FIRST in a billing test file: it starts the SMTP sink, an HTTP front for Payload and the
 * processor stand-in, and exports their settings before anything reads the Payload config.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { afterAll } from 'vitest'

import { startCodeHostStandIn } from '@starter-kit/standins/code-host'
import { DEFAULT_PRICES, startProcessorStandIn } from '@starter-kit/standins/processor'
import { startEndpointServer } from './endpoint-server'
import { startSmtpSink } from './smtp-sink'

/** A small deterministic generator, so a failing delivery order can be replayed from its seed. */
export const seededRandom = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

export const smtp = await startSmtpSink()
export const service = await startEndpointServer()
export const PROCESSOR_SECRET_KEY = 'sk_test_standin_0123456789'
const WEBHOOK_SECRET = 'whsec_test_standin_0123456789'
export const standIn = await startProcessorStandIn({
  secretKey: PROCESSOR_SECRET_KEY,
  webhookSecret: WEBHOOK_SECRET,
  webhookUrl: `${service.url}/api/webhooks/processor`,
  random: seededRandom(Number(process.env.EVENT_ORDER_SEED ?? 7)),
})

export const PRICES = {
  standard: 'price_standin_standard_lifetime',
  ultimate: 'price_standin_ultimate_lifetime',
  standardRenewal: 'price_standin_standard_renewal',
  proMonthly: 'price_standin_pro_monthly',
  proYearly: 'price_standin_pro_yearly',
  liveOnly: 'price_standin_live_only',
} as const
for (const id of Object.values(PRICES)) {
  if (!DEFAULT_PRICES.some((price) => price.id === id)) throw new Error(`the stand-in has no price ${id}`)
}

process.env.PAYMENT_SECRET_KEY = PROCESSOR_SECRET_KEY
process.env.PAYMENT_WEBHOOK_SECRET = WEBHOOK_SECRET
process.env.PUBLIC_PAYMENT_PUBLISHABLE_KEY = 'pk_test_standin_0123456789'
process.env.PAYMENT_API_URL = standIn.url
process.env.SMTP_URL = smtp.url
process.env.JOBS_RETRY_DELAY_MS = '1'

/** The code host's clock runs `offsetMs` ahead, so tests can let invitations expire. */
export const codeHostClock = { offsetMs: 0 }
export const REPO = { token: 'ghp_test_standin_0123456789', owner: 'kit-org', name: 'starter-kit' }
export const codeHost = await startCodeHostStandIn({
  token: REPO.token,
  owner: REPO.owner,
  repo: REPO.name,
  now: () => new Date(Date.now() + codeHostClock.offsetMs),
})
Object.assign(process.env, {
  REPO_ACCESS_TOKEN: REPO.token,
  REPO_OWNER: REPO.owner,
  REPO_NAME: REPO.name,
  REPO_API_URL: codeHost.url,
  REPO_TIMEOUT_MS: '1000',
})
const releasesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-releases-'))
process.env.RELEASES_DIR = releasesDir
process.env.PAYMENT_TIMEOUT_MS = '1500'

export const PRICE_IDS = {
  standardLifetime: PRICES.standard,
  ultimateLifetime: PRICES.ultimate,
  standardRenewal: PRICES.standardRenewal,
  proMonthly: PRICES.proMonthly,
  proYearly: PRICES.proYearly,
}

afterAll(async () => {
  fs.rmSync(releasesDir, { recursive: true, force: true })
  await standIn.close()
  await codeHost.close()
  await service.close()
  await smtp.close()
})
