import crypto from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import type { LicenseStorage } from './types.js'

/** `$XDG_CONFIG_HOME/license-client`, or `~/.config/license-client`. */
export const defaultDirectory = (): string =>
  path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'license-client')

/**
 * One JSON file (`state.json`, mode 0600) in `directory`, holding every name: read on each call (two
 * processes of an app see each other's writes), written whole to a temporary file then renamed, so a
 * crash never leaves half a file. Writes within a process are queued.
 */
export const fileStorage = (directory: string = defaultDirectory()): LicenseStorage => {
  const file = path.join(directory, 'state.json')
  let queue: Promise<unknown> = Promise.resolve()
  const load = async (): Promise<Record<string, string>> => {
    try {
      const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as unknown
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, string>)
        : {}
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return {}
      throw error
    }
  }
  const change = (apply: (values: Record<string, string>) => void): Promise<void> => {
    const next = queue.then(async () => {
      const values = await load()
      apply(values)
      await fs.mkdir(directory, { recursive: true, mode: 0o700 })
      const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`
      await fs.writeFile(temporary, JSON.stringify(values, null, 2), { mode: 0o600 })
      await fs.rename(temporary, file)
    })
    queue = next.catch(() => undefined)
    return next
  }
  return {
    get: async (name) => {
      await queue
      return (await load())[name] ?? null
    },
    set: (name, value) =>
      change((values) => {
        values[name] = value
      }),
    delete: (name) =>
      change((values) => {
        delete values[name]
      }),
  }
}
