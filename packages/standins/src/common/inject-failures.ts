import type { NextFunction, Request, Response } from 'express'

import type { BaseFailureRule, FailureRules } from './failures'

export type InjectableRule = BaseFailureRule & {
  status?: number
  delayMs?: number
  body?: unknown
  headers?: Record<string, string>
}

/**
 * Injected failures answer before anything else runs, so an injected 500 changes nothing. A rule with
 * only a delay lets the request through afterwards: the slow service that still does the work.
 * `bodyFor` writes the service's own error shape when the rule brings no body.
 */
export const injectFailures =
  <Rule extends InjectableRule>(
    failures: FailureRules<Rule>,
    bodyFor: (status: number, headers: Record<string, string>) => unknown,
  ) =>
  (req: Request, res: Response, next: NextFunction): void => {
    const rule = failures.take(req.method, req.path)
    if (!rule) {
      next()
      return
    }
    const answer = () => {
      if (rule.delayMs !== undefined && rule.status === undefined && rule.body === undefined) {
        next()
        return
      }
      const status = rule.status ?? 500
      const headers = rule.headers ?? {}
      res
        .status(status)
        .set(headers)
        .json(rule.body ?? bodyFor(status, headers))
    }
    if (rule.delayMs === undefined) answer()
    else failures.after(rule.delayMs, answer)
  }
