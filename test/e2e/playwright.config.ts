import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '../chromium.mjs';

export default defineConfig({
  testDir: '.',
  // `npm run screenshots` runs only the README's screenshot capture (it rewrites assets/);
  // the test run never does.
  testMatch: process.env.PARLEY_SCREENSHOTS ? 'readme-screenshots.ts' : '**/*.spec.ts',
  outputDir: '../../test-results',
  workers: 1,
  retries: 0,
  reporter: 'list',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    headless: true,
    viewport: { width: 1360, height: 860 },
    trace: 'retain-on-failure',
    launchOptions: chromiumLaunchOptions,
  },
});
