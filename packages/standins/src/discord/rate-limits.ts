import crypto from 'node:crypto'

import type { NextFunction, Request, Response } from 'express'

import { beforeHead } from './before-head'
import type { DiscordHost } from './context'

/** Requests per bucket and window; the numbers Discord sends for most guild routes. */
const LIMIT = 10
const WINDOW_MS = 10_000

/**
 * Discord's bucket is an opaque hash shared by every request of one route shape, e.g. all
 * `PUT /guilds/:id/members/:id/roles/:id`; here it is a hash of that shape.
 */
const bucketOf = (method: string, path: string): string =>
  crypto
    .createHash('sha256')
    .update(`${method} ${path.replace(/\d{17,20}/g, ':id')}`)
    .digest('hex')
    .slice(0, 32)

/** Discord counts a bucket separately for each guild (its "major parameter"). */
const majorParameter = (path: string): string => /\/guilds\/(\d+)/.exec(path)?.[1] ?? ''

const seconds = (ms: number): string => (ms / 1000).toFixed(3)

/**
 * Discord's rate-limit headers on every API answer. The remaining count goes down within a window but
 * stops at 1: running out is something a test injects with `failNext({ status: 429 })`, so neither a
 * long development session nor @discordjs/rest (which waits pre-emptively at 0) is ever held up by it.
 * Headers are filled in as the answer goes out, so a 429 rule's own Remaining and Reset-After win, and a
 * global 429, which names no bucket, gets none.
 */
export const rateLimitHeaders = (host: DiscordHost) => {
  const windows = new Map<string, { resetsAt: number; used: number }>()
  return (req: Request, res: Response, next: NextFunction): void => {
    const bucket = bucketOf(req.method, req.path)
    const key = `${bucket}:${majorParameter(req.path)}`
    const arrivedAt = host.now().getTime()
    let window = windows.get(key)
    if (!window || arrivedAt >= window.resetsAt) {
      window = { resetsAt: arrivedAt + WINDOW_MS, used: 0 }
      windows.set(key, window)
    }
    window.used += 1
    const remaining = Math.max(LIMIT - window.used, 1)
    const resetsAt = window.resetsAt
    beforeHead(res, () => {
      if (res.hasHeader('x-ratelimit-global')) return
      const fill = (name: string, value: string) => {
        if (!res.hasHeader(name)) res.setHeader(name, value)
      }
      const now = host.now().getTime()
      fill('x-ratelimit-reset-after', seconds(Math.max(resetsAt - now, 0)))
      fill('x-ratelimit-limit', String(LIMIT))
      fill('x-ratelimit-remaining', String(remaining))
      fill('x-ratelimit-reset', seconds(now + Number(res.getHeader('x-ratelimit-reset-after')) * 1000))
      fill('x-ratelimit-bucket', bucket)
    })
    next()
  }
}

/**
 * A 429 as Discord sends it: `retry_after` in seconds (a float) in the body, `Retry-After` rounded up
 * to whole seconds. A route's limit names its scope and leaves the bucket headers to `rateLimitHeaders`;
 * the global limit says so with `X-RateLimit-Global` and carries no bucket.
 */
export const rateLimitedAnswer = (retryAfter: number, global: boolean) => ({
  headers: {
    'Retry-After': String(Math.ceil(retryAfter)),
    ...(global
      ? { 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global' }
      : {
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset-After': retryAfter.toFixed(3),
          'X-RateLimit-Scope': 'user',
        }),
  },
  body: { message: 'You are being rate limited.', retry_after: retryAfter, global },
})
