import { AsyncLocalStorage } from 'node:async_hooks'

import nextEnv from '@next/env'
import type { Logger } from 'pino'

import { productionProblems, readEnv, type ServiceEnv } from '../config/env'
import { stubTypeGenerator } from './type-generator-stub'

export type PreparedProcess = {
  dev: boolean
  env: ServiceEnv
  logger: Logger
  log: (message: string) => void
  fail: (message: string, error?: unknown) => never
}

/**
 * What every long-running entry point (server.ts, scripts/jobs.ts) does first: the globals Next's
 * modules expect, the .env files, then the logger (LOG_LEVEL may come from a .env file, so it is
 * imported only now; JSON lines in production, with the process's own output sent through it), the
 * configuration read once, and production's refusal to start on stand-ins or missing secrets.
 */
export const prepareProcess = async (name: string): Promise<PreparedProcess> => {
  const dev = process.env.NODE_ENV !== 'production'
  // PATCH: async-local-storage
  // Next's request storage (next/cache, loaded by the content hooks through the Payload config) is built
  // on this global, which Next itself sets only when its server loads: after the config.
  ;(globalThis as { AsyncLocalStorage?: typeof AsyncLocalStorage }).AsyncLocalStorage ??= AsyncLocalStorage
  // A server never generates types: their generator's dependencies stay unloaded.
  if (!dev) stubTypeGenerator()
  // The service runs offline by default; Next's telemetry would only try the network.
  process.env.NEXT_TELEMETRY_DISABLED ??= '1'
  const envFileErrors: unknown[][] = []
  nextEnv.loadEnvConfig(process.cwd(), dev, {
    info: () => undefined,
    error: (...args: unknown[]) => envFileErrors.push(args),
  })

  const { logger: root, sendProcessOutputToLogger } = await import('../log')
  const logger = root.child({ name })
  if (!dev) sendProcessOutputToLogger(logger)
  for (const args of envFileErrors) logger.error(args.map(String).join(' '))
  const log = (message: string) => logger.info(message)
  const fail = (message: string, error?: unknown): never => {
    logger.fatal(error === undefined ? {} : { err: error }, message)
    process.exit(1)
  }

  let env: ServiceEnv
  try {
    env = readEnv()
  } catch (error) {
    return fail(`invalid configuration: ${(error as Error).message}`)
  }
  if (env.isProduction) {
    const problems = productionProblems()
    if (problems.length > 0) fail(`refusing to start in production: ${problems.join('; ')}`)
  }
  return { dev, env, logger, log, fail }
}
