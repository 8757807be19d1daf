import type { MetadataRoute } from 'next'

import { siteUrl } from '../content/seo'

/**
 * GET /robots.txt: crawl the public pages, not the admin, the API, the account pages or previews.
 * Dynamic so the sitemap's address is this deployment's SERVER_URL, not the build machine's.
 */
export const dynamic = 'force-dynamic'

const robots = (): MetadataRoute.Robots => ({
  rules: [
    {
      userAgent: '*',
      allow: ['/', '/api/media/'],
      disallow: ['/admin', '/api/', '/dashboard', '/preview', '/auth/', '/success'],
    },
  ],
  sitemap: `${siteUrl()}/sitemap.xml`,
})

export default robots
