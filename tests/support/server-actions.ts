/**
 * Calling Next's server actions and pages in a test, as Next would: the test file mocks the modules
 * with these (vi.mock factories are hoisted, so they import this file themselves):
 *
 *   vi.mock('../../src/app/_lib/session', () => import('../support/server-actions').then((m) => m.sessionModule(() => user)))
 *   vi.mock('next/navigation', () => import('../support/server-actions').then((m) => m.navigationModule))
 */

/** What `redirect()` throws here, with its target. */
class Redirected extends Error {
  constructor(readonly url: string) {
    super(`redirect to ${url}`)
  }
}

export const navigationModule = {
  redirect: (url: string) => {
    throw new Redirected(url)
  },
}

/** src/app/_lib/session with the test's signed-in user (or none) and the test's Payload instance. */
export const sessionModule = async (currentUser: () => unknown) => {
  const { getPayload } = await import('payload')
  const { default: config } = await import('../../payload.config')
  return { getPayloadClient: () => getPayload({ config }), currentUser: () => Promise.resolve(currentUser()) }
}

/** Where an action sent the browser (the actions end in a redirect). */
export const redirectOf = async (action: () => Promise<unknown>): Promise<string> => {
  try {
    await action()
  } catch (error) {
    if (error instanceof Redirected) return error.url
    throw error
  }
  throw new Error('the action did not redirect')
}
