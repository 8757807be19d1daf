import { blogRss, siteUrl } from '../../../../content/seo'
import { listPostIndex } from '../../../_lib/content'

/**
 * GET /blog/rss.xml. Dynamic (the build has no database) over cached data: the post index is
 * read through `unstable_cache` under `content:posts`, so a publish shows here at once.
 */
export const dynamic = 'force-dynamic'

export const GET = async (): Promise<Response> =>
  new Response(blogRss(siteUrl(), await listPostIndex()), {
    headers: {
      'Content-Type': 'application/rss+xml; charset=utf-8',
      // Feed readers poll; a minute at a shared cache is within the pages' own ceiling.
      'Cache-Control': 'public, max-age=60, s-maxage=60',
    },
  })
