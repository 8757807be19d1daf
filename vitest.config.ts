import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // The service's tests, and the stand-ins' own (packages/standins/tests: no database, but cheap to give one).
    include: ['tests/int/**/*.test.ts', 'packages/*/tests/**/*.test.ts'],
    // The production server's tests (a database restart, two instances, its log, the packed license client) need `npm run build` first: CI runs them after the
    // build with KIT_PRODUCTION_BUILD=1. Left out of the plain run rather than reported as skipped.
    exclude:
      process.env.KIT_PRODUCTION_BUILD === '1'
        ? []
        : [
            'tests/int/outage-server.test.ts',
            'tests/int/instances.test.ts',
            'tests/int/log-secrets.test.ts',
            'tests/int/license-client-packed.test.ts',
          ],
    globalSetup: ['tests/support/global-setup.ts'],
    setupFiles: ['tests/support/fast-password-hashing.ts', 'tests/support/per-file-database.ts'],
    // Each file runs in its own process against its own database.
    pool: 'forks',
    isolate: true,
    // Node 24 re-parses a package's whole `exports` map for every file it resolves: resolved once per file instead.
    execArgv: ['--import', './tests/support/resolve-cache.mjs'],
    // Two cores: Payload boots per file, so two files at a time is the sweet spot.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: {
      NODE_ENV: 'test',
      // Expected failures (SMTP down, injected errors) would flood the output; set LOG_LEVEL=info to debug.
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'fatal',
      PAYLOAD_SECRET: 'test-secret-that-is-long-enough-for-the-checks-0123456789',
      DATA_DIR: '.data/test',
      MEDIA_DIR: '.data/test/media',
      SERVER_URL: 'http://localhost:3000',
      DISABLE_PAYLOAD_HMR: 'true',
    },
  },
})
