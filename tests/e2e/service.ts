/**
 * The service under test as the Playwright config, its global set-up and the scenarios all see it: where
 * it listens (E2E_PORT), where the run's artifacts go (E2E_SCREENSHOTS), its staff, and its REST API as
 * staff call it from the admin.
 */
import path from 'node:path'

export const root = path.resolve(import.meta.dirname, '../..')
export const port = Number(process.env.E2E_PORT ?? 3100)
export const base = `http://localhost:${port}`
/** The database the server under test runs on (created afresh by the global set-up). */
export const databaseUrl = process.env.E2E_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/kit_e2e'
/** Phone and desktop screenshots of every page, kept after the run. */
export const screenshotDir = path.resolve(process.env.E2E_SCREENSHOTS ?? path.join(root, '.data/e2e-screenshots'))
/** After a failure: the server's and stand-ins' logs, and Playwright's failure screenshots and traces. */
export const failedRunDir = path.join(screenshotDir, 'failed-run')
/** Playwright's output, cleaned when a run starts; copied into failed-run/ after a failure. */
export const resultsDir = path.join(root, '.data/e2e-results')

export const PASSWORD = 'e2e-password-0123'
export const RELEASE_VERSION = '1.0.0'
export const STAFF = { admin: 'e2e-admin@example.com', support: 'e2e-support@example.com' }

/** A JSON or multipart request to the server's REST API, as staff would make in the admin. */
export const api = async <T>(
  pathname: string,
  init: { jwt?: string; json?: unknown; form?: FormData; method?: string } = {},
): Promise<T> => {
  const headers: Record<string, string> = { origin: base }
  if (init.jwt) headers.authorization = `JWT ${init.jwt}`
  if (init.json !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${base}${pathname}`, {
    method: init.method ?? (init.json !== undefined || init.form ? 'POST' : 'GET'),
    headers,
    body: init.form ?? (init.json !== undefined ? JSON.stringify(init.json) : undefined),
  })
  const text = await response.text()
  if (!response.ok)
    throw new Error(`${init.method ?? 'request'} ${pathname} answered ${response.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as T
}

/** The admin's REST token. */
export const adminToken = async (): Promise<string> =>
  (await api<{ token: string }>('/api/users/login', { json: { email: STAFF.admin, password: PASSWORD } })).token

/** What the global set-up hands the scenarios, as JSON in E2E_RUN (Playwright's workers inherit its environment). */
export type RunState = {
  /** The run's temporary folder: the server's data, the logs, the outbox. */
  dataDir: string
  /** Each message the SMTP stand-in received, raw. */
  outbox: string
  /** The code host stand-in's page, where invitations are accepted. */
  codeHostUrl: string
  /** The processor stand-in's API and the seller's key (a refund as the seller makes it in their dashboard). */
  processor: { url: string; secretKey: string }
  /** The Discord stand-in's API as the bot sees it, its default user and the role a plan gives. */
  discord: {
    apiUrl: string
    guildId: string
    botToken: string
    buyer: { id?: string; username: string }
    buyersRoleId: string
  }
}

export const runState = (): RunState => {
  if (!process.env.E2E_RUN)
    throw new Error(
      'E2E_RUN is not set: run the scenarios with `npm run test:e2e`, whose global set-up starts the server',
    )
  return JSON.parse(process.env.E2E_RUN) as RunState
}

/** A failed scenario names itself in this file; the teardown then keeps the run's logs in failed-run/. */
export const failuresFile = (dataDir: string): string => path.join(dataDir, 'failures.txt')
