/**
 * Parley's session cookie stays with Parley (README "Sessions and sign-in"): browsers scope
 * cookies by host name, not port, and the UI lives on its own name, `p<PORT>.localhost`, so
 * another program's server on 127.0.0.1 or localhost never receives it. Here Chromium itself
 * signs in and stores the cookie, then visits such a server, which records what it is sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, signInLink, test, waitForLiveUpdates } from './fixtures.ts';

// Chromium signs in by itself, through the one-click link.
test.use({ signedIn: false });

interface Seen {
  host: string;
  path: string;
  cookie: string | undefined;
}

/** Another program's server on loopback: answers a page, records each request's Cookie header. */
async function startRecorder(): Promise<{ port: number; seen: Seen[]; stop: () => Promise<void> }> {
  const seen: Seen[] = [];
  const recorder = http.createServer((req, res) => {
    seen.push({ host: req.headers.host ?? '', path: req.url ?? '', cookie: req.headers.cookie });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>Another program</title><p>Another program</p>');
  });
  await new Promise<void>((resolve, reject) => {
    recorder.once('error', reject);
    recorder.listen(0, '127.0.0.1', resolve);
  });
  const { port } = recorder.address() as AddressInfo;
  const stop = () =>
    new Promise<void>((resolve, reject) => {
      recorder.closeAllConnections();
      recorder.close((e) => (e ? reject(e) : resolve()));
    });
  return { port, seen, stop };
}

test('no Parley cookie reaches another server on 127.0.0.1 or localhost', async ({
  page,
  context,
  server,
}) => {
  const other = await startRecorder();
  try {
    // Chromium opens the one-click link and stores the cookie it is answered with.
    await page.goto(await signInLink(server));
    await expect(page).toHaveURL(`${server.url}/#/inbox`);
    await expect(page.getByTestId('current-member')).toHaveText('Owner');
    await waitForLiveUpdates(page);

    // Positive control: the browser holds the session cookie, scoped to the UI's own host name.
    const parleyPort = new URL(server.url).port;
    const sessions = (await context.cookies()).filter((c) => c.name === 'parley_session');
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      domain: `p${parleyPort}.localhost`,
      path: '/',
      httpOnly: true,
      sameSite: 'Strict',
    });

    // Another program's server, by both loopback names, and a request its own page makes.
    for (const origin of [`http://127.0.0.1:${other.port}`, `http://localhost:${other.port}`]) {
      await page.goto(`${origin}/`);
      await expect(page.locator('p')).toHaveText('Another program');
      const status = await page.evaluate(
        async () => (await fetch('/from-the-page', { credentials: 'include' })).status,
      );
      expect(status).toBe(200);
    }

    // It was reached every way, and never sent Parley's cookie.
    const paths = other.seen.map((r) => `${r.host}${r.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        `127.0.0.1:${other.port}/`,
        `127.0.0.1:${other.port}/from-the-page`,
        `localhost:${other.port}/`,
        `localhost:${other.port}/from-the-page`,
      ]),
    );
    expect(other.seen.filter((r) => r.cookie?.includes('parley_session'))).toEqual([]);
  } finally {
    await other.stop();
  }
});
