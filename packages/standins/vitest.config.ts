import { defineConfig } from 'vitest/config'

// The stand-ins' own tests (`npm test -w @starter-kit/standins`): the real SDKs against each stand-in over
// HTTP, no database. The service's `npm test` runs them too (its vitest.config.ts includes this folder).
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
  },
})
