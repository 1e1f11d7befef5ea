import type { Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createApiKey, expect, test, simulateInbound } from './fixtures.ts';

// This spec signs in by hand, through the page.
test.use({ signedIn: false });

/** Records every `securitypolicyviolation` the page raises, from before its first script. */
async function recordCspViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
}

test('sign in with the printed link, no token in any page, and stay signed in across a restart', async ({
  page,
  request,
  server,
}) => {
  const secret = (await readFile(path.join(server.dataDir, 'session.secret'), 'utf8')).trim();
  expect(server.loginUrl).toBe(`${server.url}/login?token=${secret}`);

  // The page a local process can fetch carries no credential at all, and a real CSP header.
  const html = await request.get('/', { headers: { Accept: 'text/html' } });
  expect(html.status()).toBe(200);
  const text = await html.text();
  expect(text).toContain('<div id="root">');
  expect(text).not.toContain(secret);
  expect(text).not.toContain('parley-session');
  expect(html.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(html.headers()['x-content-type-options']).toBe('nosniff');
  expect(html.headers()['referrer-policy']).toBe('no-referrer');

  // Without signing in, the app says how to, in words.
  const cspViolations = await recordCspViolations(page);
  await page.goto('/');
  const signIn = page.getByTestId('sign-in');
  await expect(signIn).toContainText('Sign in to Parley');
  await expect(signIn).toContainText('Open the link parley serve printed');
  await expect(page.locator('body')).not.toContainText('API key is missing');
  expect(await page.content()).not.toContain(secret);

  // A wrong link is refused in words.
  const wrong = await page.goto('/login?token=not-the-token');
  expect(wrong?.status()).toBe(403);
  await expect(page.locator('body')).toContainText('This sign-in link is not valid.');

  // The printed link signs in; the token leaves the address bar; the cookie is out of reach.
  await page.goto(server.loginUrl);
  await expect(page).toHaveURL(`${server.url}/#/inbox`);
  await expect(page.getByTestId('sign-in')).toHaveCount(0);
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'open');
  expect(await page.evaluate(() => document.cookie)).toBe('');

  const key = await createApiKey(server, 'test', 'e2e-session');
  await simulateInbound(request, key, { phone: '+14155552671', message: 'Before the restart' });
  await expect(
    page.getByTestId('conversation-row').filter({ hasText: '+14155552671' }),
  ).toBeVisible();

  // `parley serve` restarts on the same data dir and port: the tab says so, its event stream
  // comes back by itself, and the session still holds.
  await server.restart();
  const banner = page.getByTestId('connection-banner');
  await expect(banner).toContainText('Parley restarted — reload');
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'open');
  await simulateInbound(request, key, { phone: '+14155552672', message: 'After the restart' });
  await expect(
    page.getByTestId('conversation-row').filter({ hasText: '+14155552672' }),
  ).toBeVisible();

  await banner.getByRole('button', { name: 'Reload' }).click();
  await expect(page.getByTestId('conversation-row')).toHaveCount(2);
  await expect(page.getByTestId('sign-in')).toHaveCount(0);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText('API key is missing');

  // The UI ran under the page policy without a single violation.
  expect(await cspViolations()).toEqual([]);
});

test('a session that stops holding says "sign in again", never the API key error', async ({
  page,
  server,
  context,
}) => {
  await page.goto(server.loginUrl);
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'open');
  // The cookie is gone (cleared, or the data dir's secret changed): the next request is refused.
  await context.clearCookies();
  await page.getByTestId('nav-contacts').click();
  const signIn = page.getByTestId('sign-in');
  await expect(signIn).toContainText('Your session has ended — sign in again');
  await expect(page.locator('body')).not.toContainText('API key is missing');

  // Signing in again (the printed link) brings the app back.
  await page.goto(server.loginUrl);
  await expect(page.getByTestId('sign-in')).toHaveCount(0);
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'open');
});
