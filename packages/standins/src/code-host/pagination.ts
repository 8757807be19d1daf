import type { Request, Response } from 'express'

const DEFAULT_PER_PAGE = 30
const MAX_PER_PAGE = 100

const positive = (value: unknown, fallback: number): number => {
  const number = Math.floor(Number(value))
  return Number.isFinite(number) && number >= 1 ? number : fallback
}

/**
 * GitHub's pagination: the page `page` of `per_page` items (default 30, at most 100), and a Link header
 * to the neighbouring pages, which is what `octokit.paginate` follows.
 */
export const paginate = <T>(baseUrl: string, req: Request, res: Response, items: T[]): T[] => {
  const perPage = Math.min(positive(req.query.per_page, DEFAULT_PER_PAGE), MAX_PER_PAGE)
  const page = positive(req.query.page, 1)
  const lastPage = Math.max(Math.ceil(items.length / perPage), 1)
  const link = (target: number, rel: string): string => {
    const url = new URL(req.originalUrl, baseUrl)
    url.searchParams.set('per_page', String(perPage))
    url.searchParams.set('page', String(target))
    return `<${url.href}>; rel="${rel}"`
  }
  const links = [
    ...(page > 1 ? [link(Math.min(page - 1, lastPage), 'prev')] : []),
    ...(page < lastPage ? [link(page + 1, 'next'), link(lastPage, 'last')] : []),
    ...(page > 1 ? [link(1, 'first')] : []),
  ]
  if (links.length > 0) res.set('link', links.join(', '))
  return items.slice((page - 1) * perPage, page * perPage)
}
