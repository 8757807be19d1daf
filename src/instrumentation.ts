/**
 * Next calls `register()` once when its server starts (server.ts awaits it in `nextApp.prepare()`):
 * the process's one Payload instance is made here, inside Next's bundle, so that Next's routes, the
 * jobs worker and the paths the express host serves directly share it (src/process/service.ts).
 */
export const register = async (): Promise<void> => {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return
  const { startService } = await import('./process/start-service')
  await startService()
}
