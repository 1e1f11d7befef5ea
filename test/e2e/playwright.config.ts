import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '../chromium.mjs';

export default defineConfig({
  testDir: '.',
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
