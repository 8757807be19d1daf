import nextEnv from '@next/env'
import type { Payload } from 'payload'

import { readEnv, resolvePayloadSecret, type ServiceEnv } from '../src/config/env'

/**
 * Run a command-line task against the database: DATABASE_URL when set, otherwise the embedded
 * development database (started for the task and stopped after it, unless it was already running).
 */
export const withPayload = async (task: (payload: Payload, env: ServiceEnv) => Promise<void>) => {
  nextEnv.loadEnvConfig(process.cwd(), process.env.NODE_ENV !== 'production', {
    info: () => undefined,
    error: console.error,
  })
  const env = readEnv()
  const { resolveDatabase } = await import('../src/db/resolve')
  const database = await resolveDatabase(env, (message) => console.info(message))
  process.env.PAYLOAD_SECRET ??= resolvePayloadSecret(env)
  // PATCH: esm-tla-deadlock
  // Sequential on purpose: concurrent dynamic imports can deadlock Node's ESM loader (see server.ts).
  const { default: config } = await import('../payload.config')
  const { getPayload } = await import('payload')
  const { closePayload } = await import('../src/db/bootstrap')
  const payload = await getPayload({ config, key: 'cli' })
  try {
    await task(payload, env)
  } finally {
    await closePayload(payload)
    if (database.embedded && !database.embedded.reused) await database.embedded.stop()
  }
}
