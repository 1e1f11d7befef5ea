/**
 * Every test gets its own data dir and its own `parley serve` (the real CLI, as a user would run
 * it). The server is ready when it prints its `listening on` line and its sign-in link; no
 * sleeps. The browser signs in through that link as a person would (`signedIn: false` opts
 * out), and a page that breaks the Content-Security-Policy fails its test.
 */
import {
  test as base,
  expect,
  type APIRequestContext,
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
  /** Stops `parley serve` and starts it again on the same data dir and port. */
  restart(): Promise<void>;
}

const run = promisify(execFile);

/** Runs the real `parley` CLI against the test's data dir and parses its `--json` answer. */
export async function parleyCli<T>(server: ParleyServer, args: string[]): Promise<T> {
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
  server: ParleyServer,
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

function waitForListening(
  child: ChildProcess,
): Promise<{ url: string; listenUrl: string; loginUrl: string }> {
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (why: string) => {
      cleanup();
      reject(new Error(`parley serve ${why}.\nOutput so far:\n${output}`));
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on (http:\/\/\S+)/.exec(output);
      const signIn = /sign in: (http:\/\/\S+)/.exec(output);
      if (listening?.[1] && signIn?.[1]) {
        cleanup();
        const listenUrl = listening[1].replace(/\/+$/, '');
        const port = new URL(listenUrl).port;
        resolve({ url: `http://p${port}.localhost:${port}`, listenUrl, loginUrl: signIn[1] });
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(`exited before it was ready (code ${code}, signal ${signal})`);
    const onError = (e: Error) => fail(`could not start: ${e.message}`);
    const timer = setTimeout(
      () => fail(`printed no "listening on" line within ${READY_TIMEOUT_MS} ms`),
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
): Promise<{ child: ChildProcess; url: string; listenUrl: string; loginUrl: string }> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', port, '--data-dir', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, PARLEY_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const ready = await waitForListening(child);
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
  /**
   * Another browser (a second person): a new context on the UI's host name, signed out, its pages
   * watched for CSP violations like `page`; closed after the test.
   */
  newContext: () => Promise<BrowserContext>;
}>({
  signedIn: [true, { option: true }],
  // eslint-disable-next-line no-empty-pattern -- Playwright reads fixture dependencies from this pattern
  server: async ({}, use) => {
    if (!existsSync(path.join(repoRoot, '.build/renderer/index.html'))) {
      throw new Error('The UI is not built: run `node main/scripts/build.mjs` first.');
    }
    const dataDir = await mkdtemp(path.join(tmpdir(), 'parley-e2e-'));
    let running: ChildProcess | null = null;
    try {
      const first = await serve(dataDir, '0');
      running = first.child;
      const port = new URL(first.url).port;
      await use({
        url: first.url,
        listenUrl: first.listenUrl,
        loginUrl: first.loginUrl,
        dataDir,
        restart: async () => {
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
});

export { expect };
