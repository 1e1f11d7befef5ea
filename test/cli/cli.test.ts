import { BIN, cliHarness } from './harness.ts';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../main/core/core.ts';
import { makeCore } from '../helpers.ts';

const { children, dataDir, parley, json } = cliHarness('parley-cli-');

/**
 * A GET as a browser sends it: connected to loopback, with the URL's own Host — browsers resolve
 * `p<PORT>.localhost` to loopback themselves; Node's resolver does not, and fetch sets its own Host.
 */
function browse(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    http
      .get(
        {
          host: '127.0.0.1',
          port: u.port,
          path: `${u.pathname}${u.search}`,
          headers: { host: u.host },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
        },
      )
      .on('error', reject);
  });
}

describe('parley CLI', () => {
  it('manages workspaces, keys and the wallet, with --json giving one object', async () => {
    const dir = dataDir();
    expect(await json(['workspaces', 'list'], dir)).toEqual([
      { id: expect.stringMatching(/^ws_/), name: 'Default' },
    ]);
    const ws = await json(['workspaces', 'create', 'Acme', 'Shoes'], dir);
    expect(ws).toEqual({ id: expect.stringMatching(/^ws_/), name: 'Acme Shoes' });

    const key = await json(
      ['keys', 'create', '--env', 'live', '--name', 'Shop', '--workspace', ws.id],
      dir,
    );
    expect(Object.keys(key).sort()).toEqual(['environment', 'id', 'key', 'prefix', 'workspaceId']);
    expect(key.key).toMatch(/^svc_live_[A-Za-z0-9]{40}$/);
    expect(key.workspaceId).toBe(ws.id);

    const list = await parley(['keys', 'list', '--workspace', ws.id], dir);
    expect(list.stdout).toContain(key.prefix);
    expect(list.stdout).not.toContain(key.key);
    expect(list.stdout).toMatch(/never\s+active/);

    const human = await parley(['wallet', 'topup', '--amount', '25.00'], dir);
    expect(human.stdout.trim()).toBe('topped up $25.00; balance $25.00');
    const shown = await json(['wallet', 'show'], dir);
    expect(shown.balanceMicros).toBe(25_000_000);
    expect(shown.recent[0]).toMatchObject({ type: 'topup', amountMicros: 25_000_000 });

    const revoked = await parley(['keys', 'revoke', key.id], dir);
    expect(revoked.code).toBe(0);
    expect((await parley(['keys', 'list', '--workspace', ws.id], dir)).stdout).toMatch(/revoked/);
  });

  it('fails with one clear line and a non-zero exit', async () => {
    const dir = dataDir();
    const cases: [string[], RegExp, number][] = [
      [['bogus'], /^parley: unknown command "bogus"/, 2],
      [['keys', 'create', '--name', 'x'], /^parley: missing --env test\|live/, 2],
      [['keys', 'create', '--env', 'prod', '--name', 'x'], /--env must be test or live/, 2],
      [['wallet', 'topup', '--amount=-3'], /--amount must be a positive amount/, 2],
      [['keys', 'revoke', 'key_nope'], /^parley: no API key key_nope$/, 1],
      [['keys', 'list', '--workspace', 'ws_nope'], /^parley: no workspace ws_nope$/, 1],
      [['serve', '--port', 'abc'], /--port must be 0–65535/, 2],
      [['wallet', 'show', '--frobnicate'], /^parley: Unknown option '--frobnicate'/, 2],
    ];
    for (const [args, message, code] of cases) {
      const r = await parley(args, dir);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(message);
    }
    const j = await parley(['keys', 'revoke', 'key_nope', '--json'], dir);
    expect(JSON.parse(j.stdout)).toEqual({
      error: { code: 'not_found', message: 'no API key key_nope' },
    });
  });

  it('refuses a corrupt data dir with a clear message instead of crashing', async () => {
    const dir = dataDir();
    fs.writeFileSync(path.join(dir, 'parley.db'), 'garbage'.repeat(1000), { mode: 0o600 });
    const r = await parley(['workspaces', 'list'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^parley: .*parley\.db is not a usable Parley database/);
  });

  it('writes a consistent backup that opens as a Parley data dir', async () => {
    const dir = dataDir();
    await parley(['wallet', 'topup', '--amount', '3.5'], dir);
    const file = path.join(dir, 'copies', 'backup.db');
    const r = await json(['backup', file], dir);
    expect(r.file).toBe(file);
    expect(r.bytes).toBeGreaterThan(0);
    const restored = dataDir();
    fs.copyFileSync(file, path.join(restored, 'parley.db'));
    expect((await json(['wallet', 'show'], restored)).balanceMicros).toBe(3_500_000);
    expect((await parley(['backup', file], dir)).stderr).toMatch(/exists already/);
  });

  it('backs up the media files beside the database (FILE.media/, owner-only)', async () => {
    const dir = dataDir();
    const core = await createCore({ dataDir: dir, browserLogin: false });
    let sha256: string;
    try {
      const key = core.services.keys.create(core.services.workspaces.resolve().id, 'test', 'k').key;
      const sent = await core.app.inject({
        method: 'POST',
        url: '/api/simulator/inbound',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify({ phone: '+14155550101', media: { type: 'document' } }),
      });
      expect(sent.statusCode).toBe(200);
      await core.services.scheduler.runDue();
      sha256 = core.services.media.find(
        { workspaceId: core.services.workspaces.resolve().id, environment: 'test' },
        sent.json().media.id,
      ).sha256!;
    } finally {
      await core.stop();
    }
    const file = path.join(dir, 'copies', 'with-media.db');
    const r = await json(['backup', file], dir);
    expect(r).toMatchObject({ file, mediaDir: `${file}.media`, mediaFiles: 1 });
    const copy = path.join(`${file}.media`, sha256);
    expect(fs.readFileSync(copy).equals(fs.readFileSync(path.join(dir, 'media', sha256)))).toBe(
      true,
    );
    if (process.platform !== 'win32') {
      expect(fs.statSync(`${file}.media`).mode & 0o777).toBe(0o700);
      expect(fs.statSync(copy).mode & 0o777).toBe(0o600);
    }
  });

  it('imports contacts from a CSV file', async () => {
    const dir = dataDir();
    const csv = path.join(dir, 'c.csv');
    fs.writeFileSync(csv, 'phone,name\n+14155552671,Ann\nnope,Bad\n');
    const r = await json(['contacts', 'import', csv], dir);
    expect(r).toMatchObject({ total: 2, created: 1, failed: 1, errors: [{ line: 3 }] });
    // The same reader as the API: a UTF-16 export with tabs imports from the command line too.
    const utf16 = await json(
      ['contacts', 'import', path.resolve('test/fixtures/contacts/excel-unicode-text.txt')],
      dir,
    );
    expect(utf16).toMatchObject({ total: 3, created: 2, failed: 1 });
    expect(
      (await parley(['contacts', 'import', path.join(dir, 'missing.csv')], dir)).stderr,
    ).toMatch(/no file/);
  });

  it('serves, and a key revoked from the CLI is refused on the server’s very next request', async () => {
    const dir = dataDir();
    const key = (await json(['keys', 'create', '--env', 'test', '--name', 'dev'], dir))
      .key as string;
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const get = () => fetch(`${url}/api/contacts`, { headers: { 'X-API-Key': key } });
    expect((await get()).status).toBe(200);
    const id = (await json(['keys', 'list'], dir))[0].id;
    await parley(['keys', 'revoke', id], dir);
    const res = await get();
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('shows and sets workspace settings without the UI', async () => {
    const dir = dataDir();
    expect(await json(['settings', 'show'], dir)).toEqual({
      workspaceId: expect.stringMatching(/^ws_/),
      name: 'Default',
      businessAccountName: 'Default business account',
      allowPrivateWebhooks: false,
      lowBalanceThresholdMicros: expect.any(Number),
      autoAssign: false,
      assignOnFirstReply: true,
      publicUrl: null,
    });
    expect((await json(['settings', 'set', 'autoAssign', 'true'], dir)).autoAssign).toBe(true);
    const url = await json(['settings', 'set', 'publicUrl', 'https://desk.acme.example/'], dir);
    expect(url.publicUrl).toBe('https://desk.acme.example');
    expect((await parley(['settings', 'show'], dir)).stdout).toMatch(
      /publicUrl\s+https:\/\/desk\.acme\.example/,
    );
    expect((await json(['settings', 'set', 'publicUrl', 'none'], dir)).publicUrl).toBeNull();
    const set = await json(['settings', 'set', 'allowPrivateWebhooks', 'true'], dir);
    expect(set.allowPrivateWebhooks).toBe(true);
    const human = await parley(['settings', 'set', 'lowBalanceThreshold', '5.00'], dir);
    expect(human.code).toBe(0);
    expect(human.stdout.trim()).toBe('Default: lowBalanceThresholdMicros set to 5000000');
    const shown = await parley(['settings', 'show'], dir);
    expect(shown.stdout).toMatch(/allowPrivateWebhooks\s+true/);
    expect(shown.stdout).toMatch(/lowBalanceThresholdMicros\s+5000000 \(\$5\.00\)/);
    await json(['settings', 'set', 'lowBalanceThresholdMicros', '250000'], dir);
    // Names: checked by the API's rule, trimmed.
    const renamed = await parley(
      ['settings', 'set', 'businessAccountName', ' Acme WhatsApp '],
      dir,
    );
    expect(renamed.stdout.trim()).toBe('Default: businessAccountName set to Acme WhatsApp');
    expect((await json(['settings', 'set', 'name', 'Acme Shop'], dir)).name).toBe('Acme Shop');

    // Another workspace is untouched; --workspace picks it.
    const ws = await json(['workspaces', 'create', 'Other'], dir);
    expect((await json(['settings', 'show', '--workspace', ws.id], dir)).allowPrivateWebhooks).toBe(
      false,
    );
    // The server reads the same settings.
    const key = (await json(['keys', 'create', '--env', 'test', '--name', 'k'], dir)).key as string;
    const core = await createCore({ dataDir: dir, browserLogin: false });
    try {
      const res = await core.app.inject({
        method: 'GET',
        url: '/api/workspace/settings',
        headers: { 'x-api-key': key },
      });
      expect(res.json()).toEqual({
        name: 'Acme Shop',
        businessAccountName: 'Acme WhatsApp',
        allowPrivateWebhooks: true,
        lowBalanceThresholdMicros: 250000,
        autoAssign: true,
        assignOnFirstReply: true,
        publicUrl: null,
      });
    } finally {
      await core.stop();
    }

    const cases: [string[], RegExp][] = [
      [
        ['settings', 'set', 'allowPrivateWebhooks', 'yes'],
        /allowPrivateWebhooks must be true or false/,
      ],
      [['settings', 'set', 'lowBalanceThresholdMicros', '1.5'], /must be a whole number of micros/],
      [['settings', 'set', 'lowBalanceThreshold', 'lots'], /must be an amount like 5\.00/],
      [['settings', 'set', 'publicUrl', 'desk.acme.example'], /publicUrl must be an http\(s\) URL/],
      [['settings', 'set', 'colour', 'blue'], /^parley: unknown setting "colour"/],
      [['settings', 'set', 'name', '  '], /^parley: name must not be empty/],
      [
        ['settings', 'set', 'allowPrivateWebhooks'],
        /^parley: missing a VALUE for allowPrivateWebhooks/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await parley(args, dir);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(message);
    }
    expect((await parley(['--help'], dir)).stdout).toMatch(/settings set KEY VALUE/);
    // Some twenty runs of the bin, each a process of its own.
  }, 60_000);

  it('prints a fresh single-use sign-in link on the UI’s own host name, with serve and login-url', async () => {
    const dir = dataDir();
    expect((await parley(['login-url'], dir)).stderr.trim()).toMatch(
      /^parley: parley serve has not run on this data dir yet; start it, or pass --port/,
    );
    const link = (port: number | string) =>
      new RegExp(`^http://p${port}\\.localhost:${port}/login\\?token=[A-Za-z0-9]{43}$`);
    const a = (await parley(['login-url', '--port', '4999'], dir)).stdout.trim();
    const b = (await parley(['login-url', '--port', '4999'], dir)).stdout.trim();
    expect(a).toMatch(link(4999));
    expect(b).toMatch(link(4999));
    expect(b).not.toBe(a);
    expect(await json(['login-url', '--port', '4999'], dir)).toEqual({
      loginUrl: expect.stringMatching(link(4999)),
      url: 'http://127.0.0.1:4999',
      expiresInSeconds: 600,
    });

    const start = async (port: string) => {
      const child = spawn(process.execPath, [BIN, 'serve', '--port', port, '--data-dir', dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      const lines = await new Promise<{ url: string; login: string }>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /^listening on (http:\/\/\S+)\nsign in: (http:\/\/\S+)$/m.exec(out);
          if (m) resolve({ url: m[1]!, login: m[2]! });
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      return { child, ...lines };
    };
    const stop = async (child: ChildProcess) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    };
    const first = await start('0');
    const port = new URL(first.url).port;
    expect(first.login).toMatch(link(port));

    // A link the CLI mints while the core runs (another process, the same database) signs in.
    const minted = (await parley(['login-url'], dir)).stdout.trim();
    expect(minted).toMatch(link(port));
    expect(minted).not.toBe(first.login);
    const login = await browse(minted);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/');
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    expect(cookie).toMatch(/^parley_session=[A-Za-z0-9]{43}$/);
    expect((await browse(minted)).status).toBe(403);
    const me = () => fetch(`${first.url}/api/me`, { headers: { cookie } });
    const who = await me();
    expect(who.status).toBe(200);
    expect(await who.json()).toMatchObject({ auth: 'session', role: 'owner' });
    // The link serve printed is good once too.
    expect((await browse(first.login)).status).toBe(303);
    expect((await browse(first.login)).status).toBe(403);

    // A restart prints another link; the session lives on (it is in the database).
    await stop(first.child);
    const second = await start(port);
    expect(second.login).toMatch(link(port));
    expect(second.login).not.toBe(first.login);
    expect((await me()).status).toBe(200);
    await stop(second.child);
  });

  it('records what it changes in the audit trail, as the actor cli', async () => {
    const dir = dataDir();
    const key = await json(['keys', 'create', '--env', 'test', '--name', 'Ops'], dir);
    expect((await parley(['wallet', 'topup', '--amount', '5.00'], dir)).code).toBe(0);
    expect((await parley(['keys', 'revoke', key.id], dir)).code).toBe(0);
    const t = await makeCore({ dataDir: dir });
    try {
      const res = await t.request('GET', '/audit?actor=cli', { session: 'test' });
      expect(res.status).toBe(200);
      const entries = res.body.data as { action: string; actor: unknown; target: unknown }[];
      expect(entries.map((e) => e.action)).toEqual([
        'api_key.revoked',
        'wallet.topped_up',
        'api_key.created',
      ]);
      expect(entries[2]).toMatchObject({
        actor: { kind: 'cli', id: 'cli', name: expect.stringMatching(/^parley \(.+\)$/) },
        target: { type: 'api_key', id: key.id },
        address: null,
        details: { environment: 'test' },
      });
      expect(entries[0]).toMatchObject({ target: { type: 'api_key', id: key.id } });
      expect(entries[1]).toMatchObject({ details: { amountMicros: 5_000_000 } });
    } finally {
      await t.close();
    }
  });

  it('says so when the port is taken', async () => {
    const dir = dataDir();
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const port = await new Promise<string>((resolve) => {
      child.stdout!.on('data', (d: Buffer) => {
        const m = /:(\d+)\s*$/m.exec(d.toString());
        if (m) resolve(m[1]!);
      });
    });
    const r = await parley(['serve', '--port', port], dataDir());
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `parley: port ${port} on 127.0.0.1 is already in use; pass --port to pick another`,
    );
  });
});
