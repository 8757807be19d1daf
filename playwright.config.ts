/**
 * `npm run test:e2e`: the browser scenarios (tests/e2e/*.spec.ts) in Debian's headless Chromium
 * (CHROMIUM_PATH, default /usr/bin/chromium) against the production build, started by
 * tests/e2e/global-setup.ts. One scenario at a time against one server, and no retries: a flake is a defect.
 */
import { defineConfig } from '@playwright/test'

import { base, resultsDir } from './tests/e2e/service'

export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '*.spec.ts',
  globalSetup: './tests/e2e/global-setup.ts',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  timeout: 5 * 60_000,
  reporter: 'list',
  outputDir: resultsDir,
  use: {
    baseURL: base,
    actionTimeout: 60_000,
    navigationTimeout: 60_000,
    screenshot: { mode: 'only-on-failure', fullPage: true },
    trace: 'retain-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        browserName: 'chromium',
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      },
    },
  ],
})
