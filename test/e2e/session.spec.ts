import type { Page } from '@playwright/test';
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  createApiKey,
  expect,
  joinAs,
  MEMBER_PASSWORD,
  signInLink,
  simulateInbound,
  test,
  waitForLiveUpdates,
} from './fixtures.ts';

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

const USED_LINK = 'This sign-in link is used or expired.';

test('the printed link signs in once, on the UI’s own host name, no token in any page, and the session outlives a restart', async ({
  page,
  request,
  server,
  newContext,
}) => {
  // The link names the UI's own host name, p<PORT>.localhost; no permanent secret is kept.
  const port = new URL(server.listenUrl).port;
  expect(server.url).toBe(`http://p${port}.localhost:${port}`);
  expect(server.loginUrl).toMatch(/^http:\/\/p\d+\.localhost:\d+\/login\?token=[A-Za-z0-9]{43}$/);
  expect(server.loginUrl.startsWith(`${server.url}/login?token=`)).toBe(true);
  const token = new URL(server.loginUrl).searchParams.get('token')!;
  expect(existsSync(path.join(server.dataDir, 'session.secret'))).toBe(false);

  // The page a local process can fetch carries no credential at all, and a real CSP header.
  const html = await request.get('/', { headers: { Accept: 'text/html' } });
  expect(html.status()).toBe(200);
  const text = await html.text();
  expect(text).toContain('<div id="root">');
  expect(text).not.toContain(token);
  expect(text).not.toContain('parley_session');
  expect(html.headers()['set-cookie']).toBeUndefined();
  expect(html.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(html.headers()['x-content-type-options']).toBe('nosniff');
  expect(html.headers()['referrer-policy']).toBe('no-referrer');

  // Without signing in, the app offers the sign-in form and says how else to sign in.
  const cspViolations = await recordCspViolations(page);
  await page.goto('/');
  const signIn = page.getByTestId('sign-in');
  await expect(signIn).toContainText('Sign in to Parley');
  await expect(signIn).toContainText('parley login-url');
  await expect(signIn.getByLabel('Email')).toBeVisible();
  await expect(signIn.getByLabel('Password')).toBeVisible();
  await expect(page.locator('body')).not.toContainText('API key is missing');
  expect(await page.content()).not.toContain(token);

  // A wrong link is refused in words.
  const wrong = await page.goto('/login?token=not-the-token');
  expect(wrong?.status()).toBe(403);
  await expect(page.locator('body')).toContainText(USED_LINK);

  // The printed link opened on the address serve listens on (127.0.0.1) first moves to the UI's
  // own host name, then signs in; the token leaves the address bar; the cookie is out of reach.
  const onLoopback = server.loginUrl.replace(server.url, server.listenUrl);
  expect(onLoopback.startsWith('http://127.0.0.1:')).toBe(true);
  await page.goto(onLoopback);
  await expect(page).toHaveURL(`${server.url}/#/inbox`);
  await expect(page.getByTestId('sign-in')).toHaveCount(0);
  await expect(page.getByTestId('current-member')).toHaveText('Owner');
  await waitForLiveUpdates(page);
  expect(await page.evaluate(() => document.cookie)).toBe('');
  expect(await page.content()).not.toContain(token);

  // The link works once: opened again, in another browser, it signs nobody in.
  const other = await (await newContext()).newPage();
  const again = await other.goto(onLoopback);
  expect(again?.status()).toBe(403);
  expect(other.url()).toBe(server.loginUrl);
  await expect(other.locator('body')).toContainText(USED_LINK);
  await other.goto('/');
  await expect(other.getByTestId('sign-in')).toContainText('Sign in to Parley');

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
  await expect(page.getByTestId('current-member')).toHaveText('Owner');
  await expect(page.getByTestId('connection-banner')).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText('API key is missing');

  // The UI ran under the page policy without a single violation.
  expect(await cspViolations()).toEqual([]);
});

test('a member signs in with their email and password; a wrong password is refused in words', async ({
  page,
  server,
  newContext,
}) => {
  // The owner (signed in through a fresh link in their own browser) invites Ann; she joined.
  const owner = await newContext();
  const link = await owner.request.get(await signInLink(server), { maxRedirects: 0 });
  expect(link.status(), 'the sign-in link answers a redirect').toBe(303);
  await joinAs(owner.request, await newContext(), { name: 'Ann Lee', email: 'ann@example.com' });

  await page.goto('/');
  const form = page.getByTestId('sign-in');
  await expect(form).toContainText('Sign in to Parley');
  await form.getByLabel('Email').fill('ann@example.com');
  await form.getByLabel('Password').fill('not Ann’s password at all');
  await form.getByTestId('sign-in-submit').click();
  await expect(form.getByTestId('sign-in-error')).toHaveText('The email or password is not right.');

  await form.getByLabel('Password').fill(MEMBER_PASSWORD);
  await form.getByTestId('sign-in-submit').click();
  await expect(page.getByTestId('sign-in')).toHaveCount(0);
  await expect(page.getByTestId('current-member')).toHaveText('Ann Lee');
  await expect(page.getByTestId('current-role')).toHaveText('Agent');
  await waitForLiveUpdates(page);
  expect(await page.evaluate(() => document.cookie)).toBe('');
});

test('a session signed out elsewhere says "your session has ended", never the API key error', async ({
  page,
  context,
  server,
}) => {
  await page.goto(await signInLink(server));
  await waitForLiveUpdates(page);

  // Another tab of the same browser signs out: this tab's session has ended with it, and it
  // says so by itself (its event stream was closed), before anyone clicks.
  const other = await context.newPage();
  await other.goto('/');
  await waitForLiveUpdates(other);
  await other.getByTestId('account-menu').click();
  await other.getByTestId('sign-out').click();
  await expect(other.getByTestId('sign-in')).toBeVisible();

  const signIn = page.getByTestId('sign-in');
  await expect(signIn).toContainText('Your session has ended — sign in again');
  await expect(page.locator('body')).not.toContainText('API key is missing');

  // Signing in again (a fresh one-click link) brings the app back.
  await page.goto(await signInLink(server));
  await expect(page.getByTestId('sign-in')).toHaveCount(0);
  await waitForLiveUpdates(page);
});
