/**
 * Every test gets its own data dir and its own `parley serve` (the real CLI, as a user would run
 * it). The server is ready when it prints its `listening on` line and its sign-in link; no
 * sleeps. The browser signs in through that link as a person would (`signedIn: false` opts
 * out), and a page that breaks the Content-Security-Policy fails its test.
 */
import {
  test as base,
  chromium,
  expect,
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type Page,
} from '@playwright/test';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromiumLaunchOptions } from '../chromium.mjs';
import './localhost-names.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const bin = path.join(repoRoot, 'main/cli/bin.mjs');

/** How long `serve` may take to print its ready line before the test fails (not a sleep). */
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

export interface ParleyServer {
  /** The UI's own origin, `http://p<PORT>.localhost:<PORT>` (README "Sessions and sign-in"). */
  url: string;
  /** The address `parley serve` listens on, `http://127.0.0.1:<PORT>`. */
  listenUrl: string;
  /** The one-click sign-in link `parley serve` printed (single use: see `signInLink`). */
  loginUrl: string;
  /** The server's own data dir: the CLI can act on it while the server runs (README "The parley command"). */
  dataDir: string;
  /** The team desk's TLS listener, with `test.use({ team: true })`; null for the solo desk. */
  team: TeamDesk | null;
  /** Stops `parley serve` and starts it again on the same data dir and port (the solo desk only). */
  restart(): Promise<void>;
}

/**
 * A desk shared with the team (`parley serve --team`, README "Working as a team"): `url`,
 * `listenUrl` and `loginUrl` above are this machine's own loopback listener (the owner's browser),
 * and this is where teammates come in.
 */
export interface TeamDesk {
  /** The TLS listener as this machine reaches it, `https://127.0.0.1:<PORT>` (never a LAN address). */
  url: string;
  /** The base64 SHA-256 of the certificate's public key: Chromium's `--ignore-certificate-errors-spki-list`. */
  spki: string;
  /** `sha256:` and the certificate's hex SHA-256: what invite links carry. */
  fingerprint: string;
}

const run = promisify(execFile);

/** Runs the real `parley` CLI against the test's data dir and parses its `--json` answer. */
export async function parleyCli<T>(
  server: Pick<ParleyServer, 'dataDir'>,
  args: string[],
): Promise<T> {
  const { stdout } = await run(
    process.execPath,
    [bin, ...args, '--json', '--data-dir', server.dataDir],
    { cwd: repoRoot, env: { ...process.env, PARLEY_DATA_DIR: server.dataDir } },
  );
  return JSON.parse(stdout) as T;
}

/** A fresh one-click sign-in link (`parley login-url`): each works once, for 10 minutes. */
export async function signInLink(server: ParleyServer): Promise<string> {
  return (await parleyCli<{ loginUrl: string }>(server, ['login-url'])).loginUrl;
}

/**
 * A signed-in page at 1024×700 in a context that bypasses the app's CSP, for axe (injected as a
 * script, which the policy refuses). The caller closes `page.context()`.
 */
export async function signedInAuditPage(browser: Browser, server: ParleyServer): Promise<Page> {
  const context = await browser.newContext({
    bypassCSP: true,
    baseURL: server.url,
    viewport: { width: 1024, height: 700 },
  });
  expect((await context.request.get(await signInLink(server), { maxRedirects: 0 })).status()).toBe(
    303,
  );
  return context.newPage();
}

/** The password the tests' invited members choose (12+ characters, not a common one). */
export const MEMBER_PASSWORD = 'e2e parley member passphrase';

/** A member, as `GET /members` answers it (shared/schemas/members.ts). */
export interface MemberInfo {
  id: string;
  name: string;
  email: string | null;
  role: 'owner' | 'admin' | 'agent';
  active: boolean;
}

/**
 * Adds an agent who cannot sign in yet (assignable), as an admin does: `request` is a signed-in
 * admin's, such as the default fixture's `page.request` (the owner; API keys may not add members).
 */
export async function addAgent(
  request: APIRequestContext,
  name: string,
  email: string,
): Promise<MemberInfo> {
  const response = await request.post('/agents', { data: { name, email } });
  expect(response.status(), `POST /agents: ${await response.text()}`).toBe(201);
  return (await response.json()) as MemberInfo;
}

/**
 * Invites a member as a signed-in admin (`admin` is their context's request, such as the default
 * fixture's `page.request`) and accepts the invite in `context`, as the invitee's own browser
 * would: that context is then signed in as the new member.
 */
export async function joinAs(
  admin: APIRequestContext,
  context: BrowserContext,
  invitee: { name: string; email: string; role?: 'admin' | 'agent' },
): Promise<MemberInfo> {
  const invited = await admin.post('/members/invites', {
    data: { name: invitee.name, email: invitee.email, role: invitee.role ?? 'agent' },
  });
  expect(invited.status(), `POST /members/invites: ${await invited.text()}`).toBe(201);
  const { inviteUrl } = (await invited.json()) as { inviteUrl: string };
  const token = new URLSearchParams(new URL(inviteUrl).hash.slice(1)).get('token');
  const accepted = await context.request.post('/invites/accept', {
    data: { token, name: invitee.name, password: MEMBER_PASSWORD },
  });
  expect(accepted.status(), `POST /invites/accept: ${await accepted.text()}`).toBe(201);
  return (await accepted.json()) as MemberInfo;
}

/** A POST with an API key, as a script would; fails the test unless it answers 2xx. */
export async function apiPost(
  request: APIRequestContext,
  key: string,
  path: string,
  data: unknown,
): Promise<Record<string, unknown>> {
  const response = await request.post(path, { headers: { 'X-API-Key': key }, data });
  expect(response.status(), `${path}: ${await response.text()}`).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * An end user writing in, through the simulator, as a test-mode script would: a text, or a pick
 * from an interactive list they were sent.
 */
export async function simulateInbound(
  request: APIRequestContext,
  key: string,
  body: { phone: string; receivedAt?: string } & (
    { message: string } | { listReply: { listId: string; rowId: string } }
  ),
): Promise<void> {
  const response = await request.post('/api/simulator/inbound', {
    headers: { 'X-API-Key': key },
    data: body,
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** Changes arrive over the event stream: wait until it is connected before causing any. */
export async function waitForLiveUpdates(page: Page): Promise<void> {
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'open');
}

/** Creates an API key with the CLI, as a developer would for a script. */
export async function createApiKey(
  server: Pick<ParleyServer, 'dataDir'>,
  environment: 'test' | 'live',
  name = `e2e-${environment}`,
): Promise<string> {
  const created = await parleyCli<{ key: string }>(server, [
    'keys',
    'create',
    '--env',
    environment,
    '--name',
    name,
  ]);
  return created.key;
}

/**
 * Resolves with what `read` finds in `serve`'s output (stdout and stderr together) once it finds
 * it; fails when `serve` exits first or finds nothing within READY_TIMEOUT_MS.
 */
function waitForReady<T>(child: ChildProcess, read: (output: string) => T | null): Promise<T> {
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (why: string) => {
      cleanup();
      reject(new Error(`parley serve ${why}.\nOutput so far:\n${output}`));
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      let ready: T | null;
      try {
        ready = read(output);
      } catch (e) {
        return fail(`printed a ready line that cannot be read (${(e as Error).message})`);
      }
      if (ready !== null) {
        cleanup();
        resolve(ready);
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(`exited before it was ready (code ${code}, signal ${signal})`);
    const onError = (e: Error) => fail(`could not start: ${e.message}`);
    const timer = setTimeout(
      () => fail(`printed no ready line within ${READY_TIMEOUT_MS} ms`),
      READY_TIMEOUT_MS,
    );
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

interface Ready {
  url: string;
  listenUrl: string;
  loginUrl: string;
  team: TeamDesk | null;
}

/** `parley serve` is ready when it printed its `listening on` line and its sign-in link. */
function readListening(output: string): Ready | null {
  const listening = /listening on (http:\/\/\S+)/.exec(output);
  const signIn = /sign in: (http:\/\/\S+)/.exec(output);
  if (!listening?.[1] || !signIn?.[1]) return null;
  const listenUrl = listening[1].replace(/\/+$/, '');
  const port = new URL(listenUrl).port;
  return { url: `http://p${port}.localhost:${port}`, listenUrl, loginUrl: signIn[1], team: null };
}

/**
 * `parley serve --team --json` prints one line once both listeners are up (README "Working as a
 * team"): the loopback listener (`url`), the owner's sign-in link, and the TLS listener's
 * address and certificate (`team`).
 */
function readTeamDesk(output: string): Ready | null {
  const line = /^(\{.*\})\n/m.exec(output);
  if (!line?.[1]) return null;
  const ready = JSON.parse(line[1]) as { url: string; loginUrl: string; team: TeamDesk };
  const { url, spki, fingerprint } = ready.team;
  return {
    url: new URL(ready.loginUrl).origin,
    listenUrl: ready.url,
    loginUrl: ready.loginUrl,
    team: { url, spki, fingerprint },
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

async function serve(
  dataDir: string,
  port: string,
  team = false,
): Promise<Ready & { child: ChildProcess }> {
  // A team desk binds its TLS listener to loopback only, and never announces itself (the network
  // rule of the tests: 127.0.0.1 only, no mDNS).
  const args = team
    ? ['serve', '--team', '--host', '127.0.0.1', '--port', port, '--json']
    : ['serve', '--port', port];
  const child = spawn(process.execPath, [bin, ...args, '--data-dir', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, PARLEY_DATA_DIR: dataDir, PARLEY_NO_MDNS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const ready = await waitForReady(child, team ? readTeamDesk : readListening);
    // Keep draining the pipes so a chatty server never blocks on a full buffer.
    child.stdout?.resume();
    child.stderr?.resume();
    return { child, ...ready };
  } catch (e) {
    await stop(child);
    throw e;
  }
}

/** Collects what the page's Content-Security-Policy refused (Chromium reports it on the console). */
function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/**
 * Local test peers (a fake Graph API, an SMTP server) listen on 127.0.0.1: the workspace must
 * allow private targets first (the outbound policy, README "API", Webhooks). `request` is a
 * signed-in context's (the setting is the desk's admin session's).
 */
export async function allowPrivateTargets(request: APIRequestContext): Promise<void> {
  const res = await request.patch('/api/workspace/settings', {
    data: { allowPrivateWebhooks: true },
  });
  expect(res.status(), await res.text()).toBe(200);
}

export const test = base.extend<{
  server: ParleyServer;
  signedIn: boolean;
  /** Serve a team desk (`parley serve --team` on 127.0.0.1): `server.team`, `pinnedBrowser`. */
  team: boolean;
  /**
   * Another browser (a second person): a new context on the UI's host name, signed out, its pages
   * watched for CSP violations like `page`; closed after the test.
   */
  newContext: () => Promise<BrowserContext>;
  /**
   * A teammate's own Chromium on the team desk (`test.use({ team: true })`): a persistent profile
   * (the flag needs `--user-data-dir`) started with `--ignore-certificate-errors-spki-list=<the
   * desk's SPKI hash>`, the README's "In a browser", its base URL the TLS listener. `spki`
   * pins another key, `null` leaves the flag out. Signed out, its pages watched for CSP
   * violations; closed and its profile removed after the test.
   */
  pinnedBrowser: (options?: { spki?: string | null }) => Promise<BrowserContext>;
}>({
  signedIn: [true, { option: true }],
  team: [false, { option: true }],
  server: async ({ team }, use) => {
    if (!existsSync(path.join(repoRoot, '.build/renderer/index.html'))) {
      throw new Error('The UI is not built: run `node main/scripts/build.mjs` first.');
    }
    const dataDir = await mkdtemp(path.join(tmpdir(), 'parley-e2e-'));
    let running: ChildProcess | null = null;
    try {
      const first = await serve(dataDir, '0', team);
      running = first.child;
      const port = new URL(first.url).port;
      await use({
        url: first.url,
        listenUrl: first.listenUrl,
        loginUrl: first.loginUrl,
        dataDir,
        team: first.team,
        restart: async () => {
          if (team) throw new Error('restart() serves the solo desk only');
          if (running) await stop(running);
          running = null;
          running = (await serve(dataDir, port)).child;
        },
      });
    } finally {
      if (running) await stop(running);
      await rm(dataDir, { recursive: true, force: true });
    }
  },
  baseURL: async ({ server }, use) => {
    await use(server.url);
  },
  // Signs the browser in through the printed link, as a person would: the answer's cookie lands
  // in this context, so every page of the test is signed in.
  context: async ({ context, server, signedIn }, use) => {
    if (signedIn) {
      const login = await context.request.get(server.loginUrl, { maxRedirects: 0 });
      expect(login.status(), 'the sign-in link answers a redirect').toBe(303);
    }
    await use(context);
  },
  page: async ({ page }, use) => {
    const violations = watchCsp(page);
    await use(page);
    expect(violations, 'Content-Security-Policy violations').toEqual([]);
  },
  newContext: async ({ browser, server }, use) => {
    const contexts: BrowserContext[] = [];
    const watched: string[][] = [];
    await use(async () => {
      const context = await browser.newContext({ baseURL: server.url });
      context.on('page', (page) => watched.push(watchCsp(page)));
      contexts.push(context);
      return context;
    });
    for (const context of contexts) await context.close();
    expect(watched.flat(), 'Content-Security-Policy violations').toEqual([]);
  },
  pinnedBrowser: async ({ server, viewport }, use) => {
    const desk = server.team;
    const launched: { context: BrowserContext; profile: string }[] = [];
    const watched: string[][] = [];
    try {
      await use(async ({ spki = desk?.spki } = {}) => {
        if (!desk) throw new Error('pinnedBrowser needs a team desk: test.use({ team: true })');
        const profile = await mkdtemp(path.join(tmpdir(), 'parley-e2e-profile-'));
        const pin = spki === null ? [] : [`--ignore-certificate-errors-spki-list=${spki}`];
        const context = await chromium
          .launchPersistentContext(profile, {
            ...chromiumLaunchOptions,
            args: [...chromiumLaunchOptions.args, ...pin],
            baseURL: desk.url,
            viewport,
          })
          .catch(async (e: unknown) => {
            await rm(profile, { recursive: true, force: true });
            throw e;
          });
        launched.push({ context, profile });
        for (const page of context.pages()) watched.push(watchCsp(page));
        context.on('page', (page) => watched.push(watchCsp(page)));
        return context;
      });
    } finally {
      for (const { context, profile } of launched) {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      }
    }
    expect(watched.flat(), 'Content-Security-Policy violations').toEqual([]);
  },
});

export { expect };
