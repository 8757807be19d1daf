/**
 * "The public pages changed": the one signal between the code that expires Next's cached reads
 * (src/cache/expire.ts, bundled into Next's server chunks) and the host's page cache
 * (src/server/page-cache.ts, loaded by server.ts outside Next). The two are separate module instances
 * of this file in one process, so the listeners live on the process's global object.
 */
type Listener = () => void

const LISTENERS = Symbol.for('kit.pages-expired')

const listeners = (): Set<Listener> => {
  const holder = globalThis as { [LISTENERS]?: Set<Listener> }
  holder[LISTENERS] ??= new Set()
  return holder[LISTENERS]
}

/** Called whenever a page's content may have changed; returns the unsubscribe. */
export const onPagesExpired = (listener: Listener): (() => void) => {
  listeners().add(listener)
  return () => listeners().delete(listener)
}

/** Tell every listener of this process (a listener that throws does not stop the others). */
export const expirePages = (): void => {
  for (const listener of listeners()) {
    try {
      listener()
    } catch {
      // A listener only drops copies: nothing to undo.
    }
  }
}
