/** Discord's epoch, the first second of 2015: a snowflake's top bits count milliseconds since then. */
const DISCORD_EPOCH_MS = 1_420_070_400_000n

/** Snowflakes are 64-bit integers written in decimal; Discord answers 400 to a path id that is not one. */
export const SNOWFLAKE = /^\d{17,20}$/

/**
 * A generator of snowflakes as Discord makes them: creation time, then worker, process and a per-process
 * increment, so ids sort by creation like real ones and `(BigInt(id) >> 22n) + epoch` reads back the time.
 */
export const snowflakes = (now: () => Date): (() => string) => {
  const worker = BigInt(Math.floor(Math.random() * 32))
  const processId = BigInt(Math.floor(Math.random() * 32))
  let increment = 0n
  return () => {
    const elapsed = BigInt(now().getTime()) - DISCORD_EPOCH_MS
    increment = (increment + 1n) % 4096n
    return ((elapsed << 22n) | (worker << 17n) | (processId << 12n) | increment).toString()
  }
}

/**
 * The ids a stand-in starts with unless its options name others. Fixed, so that a development database
 * that linked `discord-buyer` keeps finding the same account after the stand-in restarts.
 */
export const FIXED_IDS = {
  guild: '1151156124435742720',
  botUser: '1151154759634255872',
  botRole: '1151156688129228801',
  buyersRole: '1151157071224373250',
  ultimateRole: '1151157139838992387',
  buyer: '838843038510874624',
  friend: '932570228494176256',
} as const
