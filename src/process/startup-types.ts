import type { Payload, SanitizedConfig } from 'payload'

// PATCH: startup-types
/**
 * Outside production, every Payload instance regenerates `src/payload-types.ts` as it starts: its
 * `init` spawns `node payload/bin.js generate:types`, a process that loads the whole config again and
 * compiles the collections' JSON Schema to TypeScript (about 15 s of CPU on two cores). `npm run dev`
 * makes two instances, the database preparation's and the server's, so a start paid for it twice, and
 * both ran while Next compiled the admin for its first answer.
 *
 * The config with that start-up step turned off (`typescript.autoGenerate: false` on this copy only:
 * Payload reloads the config module's own when it changes in development, and regenerates the types
 * then, as before).
 */
export const withoutStartupTypes = async (config: Promise<SanitizedConfig>): Promise<SanitizedConfig> => {
  const sanitized = await config
  return { ...sanitized, typescript: { ...sanitized.typescript, autoGenerate: false } }
}

/** How long after the server's instance starts its types are generated, past a newcomer's first `/admin`. */
export const STARTUP_TYPES_DELAY_MS = 90_000

/**
 * The server's instance generates the types as Payload's start would have, only later (when the config
 * asks for it and it is not production); the timer does not keep the process alive.
 */
export const generateTypesLater = (payload: Payload, config: SanitizedConfig): void => {
  if (process.env.NODE_ENV === 'production' || config.typescript.autoGenerate === false) return
  const generate = () =>
    payload
      .bin({ args: ['generate:types'], log: false })
      .catch((error: unknown) => payload.logger.warn({ err: error }, 'could not generate the types'))
  setTimeout(() => void generate(), STARTUP_TYPES_DELAY_MS).unref()
}
