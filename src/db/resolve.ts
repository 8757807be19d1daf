import type { ServiceEnv } from '../config/env'
import { type EmbeddedDatabase, startEmbeddedPostgres } from './embedded'

/** The database name the embedded server hosts the app in. */
export const EMBEDDED_DATABASE_NAME = 'kit'

export type ResolvedDatabase = {
  url: string
  embedded: EmbeddedDatabase | null
}

/**
 * DATABASE_URL as is when set; otherwise (development only) the embedded PostgreSQL, whose URL is
 * then exported as DATABASE_URL so every module of this process (Next's included) sees the same one.
 */
export const resolveDatabase = async (env: ServiceEnv, log: (message: string) => void): Promise<ResolvedDatabase> => {
  if (env.databaseUrl) return { url: env.databaseUrl, embedded: null }
  if (env.isProduction) throw new Error('DATABASE_URL is not set')
  const embedded = await startEmbeddedPostgres({
    dataDir: env.dataDir,
    port: env.embeddedPostgresPort,
    database: EMBEDDED_DATABASE_NAME,
    log,
  })
  process.env.DATABASE_URL = embedded.url
  return { url: embedded.url, embedded }
}
