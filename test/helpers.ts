import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Core, CoreOptions } from '../main/core/core.ts';
import { createCore, openStore } from '../main/core/core.ts';
import type { Environment } from '../shared/schemas/common.ts';
import type { SimulatorSettings } from '../shared/schemas/simulator.ts';
import { checkErrorAnswer } from './openapi-check.ts';

export function tempDir(prefix = 'parley-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A clock tests can move. */
export function manualClock(start = Date.parse('2026-01-05T10:00:00Z')) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms), set: (ms: number) => (t = ms) };
}

export interface TestCore {
  core: Core;
  dataDir: string;
  workspaceId: string;
  key(env?: Environment, workspaceId?: string): string;
  request(
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    opts?: {
      key?: string | null;
      body?: unknown;
      headers?: Record<string, string>;
      session?: Environment;
      /** A member's session token (the `parley_session` cookie), from `member()` or `signIn()`. */
      cookie?: string;
      /** The client's address (inject's default is 127.0.0.1). */
      remoteAddress?: string;
    },
  ): Promise<{ status: number; body: any; headers: Record<string, unknown>; text: string }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** An agent who cannot sign in (as `POST /agents` adds one). */
  agent(name: string, email?: string): { id: string; name: string };
  /**
   * A member who signed in: invited by the owner, accepted with `password` (default
   * `correct horse 42`); `cookie` is their session token.
   */
  member(opts: {
    name: string;
    email?: string;
    role?: 'admin' | 'agent';
    rights?: ('campaigns' | 'automation')[];
    password?: string;
    workspaceId?: string;
  }): Promise<{ id: string; cookie: string; email: string; password: string }>;
  close(): Promise<void>;
}

/** Who the test helpers act as when they set members up: the workspace's owner. */
const ownerContext = (core: Core, workspaceId: string) => {
  const owner = core.services.members.ownerOf(workspaceId);
  return {
    workspaceId,
    actor: { kind: 'member' as const, id: owner.id, name: owner.name },
    memberId: owner.id,
    sessionId: null,
    address: null,
  };
};

/** A fresh core on a fresh data dir; `close()` stops it and removes the dir. */
export async function makeCore(opts: Partial<CoreOptions> = {}): Promise<TestCore> {
  const dataDir = opts.dataDir ?? tempDir();
  // Password hashing at a test cost (2^10): the default (2^17) is measured by the bench.
  const core = await createCore({
    dataDir,
    sessionToken: 'test-session-token',
    scrypt: { logN: 10, r: 8, p: 1 },
    ...opts,
  });
  const workspaceId = core.services.workspaces.resolve().id;
  return {
    core,
    dataDir,
    workspaceId,
    key: (env = 'test', ws = workspaceId) => core.services.keys.create(ws, env, `${env} key`).key,
    async request(method, url, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      // Once the core listens, the Host guard wants its real port.
      const addr = core.app.server.address();
      if (addr && typeof addr === 'object') headers.host ??= `127.0.0.1:${addr.port}`;
      if (o.key) headers['x-api-key'] = o.key;
      if (o.cookie) headers.cookie = `parley_session=${o.cookie}`;
      if (o.session) {
        headers['x-parley-session'] = 'test-session-token';
        headers['x-parley-environment'] = o.session;
      }
      let payload: string | undefined;
      if (o.body !== undefined) {
        payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await core.app.inject({
        method,
        url,
        headers,
        ...(payload !== undefined ? { payload } : {}),
        ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}),
      });
      let body: unknown;
      try {
        body = res.json();
      } catch {
        body = null;
      }
      // Every error answer of the API suite must be one /openapi.json declares.
      if (res.statusCode >= 400) checkErrorAnswer(() => core.app.swagger(), method, url, res);
      return { status: res.statusCode, body, headers: res.headers, text: res.body };
    },
    agent(name, email = `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`) {
      return core.services.members.createAgent(ownerContext(core, workspaceId), { name, email });
    },
    async member(m) {
      const ws = m.workspaceId ?? workspaceId;
      const email = m.email ?? `${m.name.toLowerCase().replace(/\W+/g, '.')}@example.com`;
      const password = m.password ?? 'correct horse 42';
      const invite = core.services.members.invite(
        ownerContext(core, ws),
        { email, name: m.name, role: m.role ?? 'agent', rights: m.rights },
        'http://127.0.0.1',
      );
      const token = invite.inviteUrl.split('#token=')[1]!;
      const accepted = await core.services.members.acceptInvite(
        { token, name: m.name, password },
        { address: '127.0.0.1', userAgent: 'vitest' },
      );
      return { id: accepted.member.id, cookie: accepted.token, email, password };
    },
    async close() {
      await core.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The `parley_session` token an answer's Set-Cookie carries, or null. */
export function sessionTokenOf(res: { headers: Record<string, unknown> }): string | null {
  const m = /(?:^|, )parley_session=([^;]*)/.exec(String(res.headers['set-cookie'] ?? ''));
  return m?.[1] || null;
}

/** A member's sign-in (`POST /login`), which must succeed: the session token it set. */
export async function signIn(
  t: TestCore,
  email: string,
  password: string,
  opts: { remoteAddress?: string; headers?: Record<string, string> } = {},
): Promise<string> {
  const res = await t.request('POST', '/login', { body: { email, password }, ...opts });
  if (res.status !== 204) throw new Error(`sign-in of ${email}: ${res.status} ${res.text}`);
  return sessionTokenOf(res)!;
}

/** The data of the newest stored event of a type (parsed), or undefined if there is none. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an event's data, read as JSON
export function lastEvent(t: TestCore, type: string): Record<string, any> | undefined {
  const data = t.core.db
    .prepare('SELECT data FROM events WHERE type = ? ORDER BY seq DESC LIMIT 1')
    .pluck()
    .get(type) as string | undefined;
  return data === undefined ? undefined : JSON.parse(data);
}

/** The pid of a process that has exited (and been reaped): what a SIGKILLed core leaves. */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

/** A built UI as Vite leaves it: index.html and content-hashed assets (a script and a sheet). */
export function fakeRendererDir(): string {
  const dir = tempDir('parley-ui-');
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="./assets/index-AbC123.js"></script><link rel="stylesheet" href="./assets/index-XyZ789.css"></head><body><div id="root"></div></body></html>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'index-AbC123.js'), 'console.log("ui")');
  fs.writeFileSync(path.join(dir, 'assets', 'index-XyZ789.css'), 'body{margin:0}');
  return dir;
}

export interface SeededCampaign {
  workspaceId: string;
  campaignId: string;
  groupId: string;
  contactIds: string[];
}

/**
 * Seeds a data dir through the store (opened here, closed before returning): the account's
 * simulator settings, an approved template `notice` ("Hi {{1}}, …") in `env`, usable at once,
 * `contacts` contacts (phones from `firstPhone` on) in a new group, and a draft campaign to it.
 * Call again on the same dir for more campaigns (give each its own `name`).
 */
export function seedCampaign(
  dataDir: string,
  opts: {
    contacts: number;
    env?: Environment;
    name?: string;
    firstPhone?: number;
    category?: 'MARKETING' | 'UTILITY';
    simulator?: Partial<SimulatorSettings>;
  },
): SeededCampaign {
  const store = openStore({ dataDir });
  try {
    const { services, db } = store;
    const workspaceId = services.workspaces.resolve().id;
    const scope = { workspaceId, environment: opts.env ?? 'test' } as const;
    services.simulator.update(workspaceId, { approvalWaitMs: 0, ...opts.simulator });
    if (!services.templates.repo.byName(scope, 'notice')) {
      const tpl = services.templates.create(scope, {
        name: 'notice',
        category: opts.category ?? 'UTILITY',
        language: 'en',
        components: [{ type: 'BODY', text: 'Hi {{1}}, your order has shipped.' }],
      });
      services.templates.decide(scope, tpl.id, 'approve');
    }
    const first = opts.firstPhone ?? 0;
    const contactIds = db.transaction(() =>
      Array.from(
        { length: opts.contacts },
        (_, i) =>
          services.contacts.write(scope, `+49151${String(first + i).padStart(8, '0')}`, {
            name: `Person ${first + i}`,
          }).row.id,
      ),
    )();
    const name = opts.name ?? 'Spring sale';
    const group = services.contacts.createGroup(scope, `${name} audience`, contactIds);
    const campaign = services.campaigns.create(scope, {
      name,
      templateName: 'notice',
      variables: { '1': '{{contact.name}}' },
      target: { groupId: group.id },
    });
    return { workspaceId, campaignId: campaign.id, groupId: group.id, contactIds };
  } finally {
    store.close();
  }
}
