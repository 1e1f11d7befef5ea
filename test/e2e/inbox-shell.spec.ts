import type { Locator, Page } from '@playwright/test';
import { audit } from './axe-audit.ts';
import { createApiKey, expect, signInLink, simulateInbound, test } from './fixtures.ts';

/** Journey fixes: a missing code chunk, the simulator strip at 1024×700, a resized thread. */

async function height(locator: Locator): Promise<number> {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not on screen');
  return b.height;
}

/** How far (px) the open thread is from its end. */
const fromEnd = (page: Page) =>
  page
    .getByTestId('thread-messages')
    .evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);

test('a code chunk that cannot be loaded shows "Parley was updated" with Reload, not a blank window', async ({
  browser,
  server,
}) => {
  // axe is injected as a script, which the app's CSP refuses: this context bypasses it.
  const context = await browser.newContext({ bypassCSP: true });
  expect((await context.request.get(await signInLink(server), { maxRedirects: 0 })).status()).toBe(
    303,
  );
  const page = await context.newPage();
  // The workflow canvas is its own chunk: as after a rebuild under a running window, it is gone.
  const canvasChunk = /\/assets\/workflow-canvas-[^/]*\.js$/;
  await page.route(canvasChunk, (route) => route.abort());
  await page.goto('/#/workflows');
  await page.getByTestId('workflow-new').click();
  const error = page.getByTestId('screen-error');
  // It reloads once by itself; the chunk is still missing, so it says so and stops there.
  await expect(error).toBeVisible();
  await expect(error).toContainText('Parley was updated');
  await expect(page.getByTestId('screen-error-reload')).toHaveText('Reload');
  expect(await audit(page, 'a screen that failed to load')).toEqual([]);
  // The rest of the window still works, and it does not reload again.
  await expect(page.getByRole('navigation').first()).toBeVisible();
  await page.waitForTimeout(1000);
  await expect(error).toBeVisible();

  // With the chunk back, Reload brings the screen.
  await page.unroute(canvasChunk);
  await page.getByTestId('screen-error-reload').click();
  await page.goto('/#/workflows');
  await page.getByTestId('workflow-new').click();
  await expect(page.getByTestId('wf-canvas')).toBeVisible();
  await expect(page.getByTestId('screen-error')).toHaveCount(0);
  await context.close();
});

test.describe('the thread at 1024×700', () => {
  test.use({ viewport: { width: 1024, height: 700 } });

  test('the open Customer (simulated) strip leaves the thread most of the height', async ({
    page,
    request,
    server,
  }) => {
    const key = await createApiKey(server, 'test', 'e2e-inbox-shell');
    await simulateInbound(request, key, { phone: '+14155552801', message: 'Do you ship abroad?' });
    await page.goto('/#/inbox');
    await page.getByTestId('conversation-row').first().click();
    const thread = page.getByTestId('thread-messages');
    await expect(thread.getByTestId('message')).toHaveCount(1);
    const toggle = page.getByTestId('simulator-toggle');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    // Compact: the strip stays under ~130 px, its other rows scroll inside it.
    expect(await height(page.getByTestId('simulator-panel'))).toBeLessThanOrEqual(130);
    expect(await height(thread)).toBeGreaterThanOrEqual(220);
    // Its samples are still reachable.
    await page.getByRole('button', { name: 'Location' }).scrollIntoViewIfNeeded();
    await expect(page.getByRole('button', { name: 'Location' })).toBeInViewport();
  });
});

test('a thread read at its end stays at its end after the window is resized', async ({
  page,
  request,
  server,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const key = await createApiKey(server, 'test', 'e2e-inbox-shell-resize');
  const phone = '+14155552802';
  const words = 'a long question about the parcel and where it is now, '.repeat(4);
  for (let i = 1; i <= 24; i++)
    await simulateInbound(request, key, { phone, message: `${i}: ${words}` });
  await page.goto('/#/inbox');
  await page.getByTestId('conversation-row').first().click();
  const thread = page.getByTestId('thread-messages');
  await expect(thread.getByTestId('message').filter({ hasText: /^24: / })).toBeVisible();
  await expect.poll(() => fromEnd(page)).toBeLessThanOrEqual(2);

  for (const size of [
    { width: 1024, height: 700 },
    { width: 1440, height: 900 },
    { width: 1024, height: 700 },
  ]) {
    await page.setViewportSize(size);
    await expect.poll(() => fromEnd(page)).toBeLessThanOrEqual(2);
    await expect(thread.getByTestId('message').filter({ hasText: /^24: / })).toBeInViewport();
  }

  // Scrolled up (once the rows are measured again), a resize leaves it where it was.
  await page.waitForTimeout(500);
  await thread.evaluate((el) => {
    el.scrollTop = 0;
  });
  await expect.poll(() => fromEnd(page)).toBeGreaterThan(100);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.waitForTimeout(300);
  expect(await fromEnd(page)).toBeGreaterThan(100);
});

test('the audit trail names API keys by their names, from one list of the keys', async ({
  page,
}) => {
  await page.goto('/#/inbox');
  await expect(page.getByTestId('current-member')).toHaveText('Owner');
  const created = await page.request.post('/api/keys', {
    data: { name: 'Shop backend', environment: 'test' },
  });
  expect(created.status(), await created.text()).toBe(201);
  const keyLists: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/keys') keyLists.push(r.url());
  });
  await page.goto('/#/settings/audit');
  const row = page.getByTestId('audit-row').filter({ hasText: 'Created an API key' });
  await expect(row).toContainText('API key Shop backend');
  await expect(row).not.toContainText('key_');
  expect(keyLists).toHaveLength(1);
});
