import type { LicenseStorage } from './types.js'

/** A storage that lives as long as the process: for tests, or an app that stores nothing. */
export const memoryStorage = (): LicenseStorage => {
  const values = new Map<string, string>()
  return {
    get: (name) => values.get(name) ?? null,
    set: (name, value) => {
      values.set(name, value)
    },
    delete: (name) => {
      values.delete(name)
    },
  }
}

/** The browser's `localStorage` (or any Web Storage). */
export const webStorage = (target: Storage = globalThis.localStorage): LicenseStorage => ({
  get: (name) => target.getItem(name),
  set: (name, value) => target.setItem(name, value),
  delete: (name) => target.removeItem(name),
})
