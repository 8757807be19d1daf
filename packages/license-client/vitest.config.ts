import { defineConfig } from 'vitest/config'

// The package's own tests: no database; `npm test -w @starter-kit/license-client`.
export default defineConfig({ test: { include: ['tests/**/*.test.ts'], testTimeout: 15_000 } })
