import Database from 'better-sqlite3';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSealer,
  fileKeyProvider,
  keychainKeyProvider,
  SECRET_KEY_FILE,
} from '../../main/core/secrets.ts';
import type { FakeGraph } from '../fake-graph.ts';
import { startFakeGraph } from '../fake-graph.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, tempDir } from '../helpers.ts';
import { connectionTo, orderUpdateTemplate } from '../live-channel.ts';
import type { SmtpPeer } from '../smtp-peer.ts';
import { smtpPeer } from '../smtp-peer.ts';

let t: TestCore | null = null;
let graph: FakeGraph | null = null;
let peer: SmtpPeer | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await t?.close();
  t = null;
  await graph?.close();
  graph = null;
  await peer?.close();
  peer = null;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const POSIX = process.platform !== 'win32';
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
const DKIM_KEY = generateKeyPairSync('rsa', { modulusLength: 1024 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const SMTP_PASSWORD = 'smtp-pass-Xq81Lw';

/** A dir that outlives one core: tests restart cores on it. */
function dataDir() {
  const d = tempDir();
  dirs.push(d);
  return d;
}

/** A core on `dir` that does not remove it when closed. */
async function coreOn(dir: string) {
  const c = await makeCore({ dataDir: dir, smtpOptions: { timeoutMs: 2000 } });
  t = { ...c, close: () => c.core.stop() };
  return t;
}

/**
 * A live account connected to the fake Graph API with an approved template and a funded wallet,
 * and live SMTP settings (password, DKIM key) for a local peer that wants that password.
 */
async function configure(c: TestCore) {
  const services = c.core.services;
  services.workspaces.updateSettings(c.workspaceId, { allowPrivateWebhooks: true });
  services.simulator.update(c.workspaceId, { approvalWaitMs: 0 });
  services.wallet.topup(c.workspaceId, 10_000_000);
  const key = c.key('live');
  const g = graph!;
  await orderUpdateTemplate(c, key, g);
  const put = await c.request('PUT', '/api/channel', { session: 'live', body: connectionTo(g) });
  expect(put.status).toBe(200);
  const email = await saveEmailSettings(c);
  expect(email.status).toBe(200);
  return key;
}

/** Live SMTP settings for the peer, with the password it wants and a DKIM key. */
const saveEmailSettings = (c: TestCore) =>
  c.request('PUT', '/v1/email/settings', {
    session: 'live',
    body: {
      smtp: {
        host: '127.0.0.1',
        port: peer!.port,
        secure: false,
        user: 'news',
        password: SMTP_PASSWORD,
      },
      dkim: { domainName: 'acme.example', keySelector: 's1', privateKey: DKIM_KEY },
      publicUrl: 'https://mail.acme.example',
    },
  });

async function peers() {
  peer = await smtpPeer({
    authOptional: false,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === 'news' && auth.password === SMTP_PASSWORD) {
        return callback(null, { user: 'news' });
      }
      callback(
        Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }),
      );
    },
  });
  graph = await startFakeGraph({ webhookUrl: 'http://127.0.0.1:9/channel/webhook' });
}

const raw = (dir: string) => {
  const db = new Database(path.join(dir, 'parley.db'));
  return {
    channel: () =>
      db.prepare('SELECT access_token, app_secret FROM channel_settings').get() as {
        access_token: string;
        app_secret: string;
      },
    email: () =>
      db
        .prepare(
          "SELECT smtp_password, dkim_private_key, link_key FROM email_settings WHERE environment = 'live'",
        )
        .get() as { smtp_password: string; dkim_private_key: string; link_key: string },
    db,
  };
};

const send = (c: TestCore, key: string) =>
  c.request('POST', '/api/send', {
    key,
    body: {
      phone: '+14155550123',
      templateName: 'order_update',
      variables: { 1: 'Ann', 2: 'A-17' },
    },
  });

describe('secrets at rest', () => {
  it('seals the plaintext secrets an older Parley stored, at start, and they still work', async () => {
    await peers();
    const dir = dataDir();
    const first = await coreOn(dir);
    const key = await configure(first);
    await first.close();
    // As the previous version stored them: in the clear, and no data key yet.
    const linkKey = 'oldPlainLinkKey0123456789abcdefghijklmnopqr';
    const old = raw(dir);
    old.db
      .prepare('UPDATE channel_settings SET access_token = ?, app_secret = ?')
      .run(graph!.accessToken, graph!.appSecret);
    old.db
      .prepare('UPDATE email_settings SET smtp_password = ?, dkim_private_key = ?, link_key = ?')
      .run(SMTP_PASSWORD, DKIM_KEY, linkKey);
    old.db.close();
    fs.rmSync(path.join(dir, SECRET_KEY_FILE));

    const c = await coreOn(dir);
    const now = raw(dir);
    const stored = { ...now.channel(), ...now.email() };
    now.db.close();
    for (const value of Object.values(stored)) expect(value).toMatch(/^sealed:v1:[\w-]+$/);
    expect(JSON.stringify(stored)).not.toContain(graph!.accessToken);
    if (POSIX) expect(modeOf(path.join(dir, SECRET_KEY_FILE))).toBe(0o600);

    // The services see plaintext: a live send through the Graph API, a login to the SMTP
    // server, and a link signed with the old link key still opens.
    const settings = await c.request('GET', '/api/channel', { key });
    expect(settings.body).toMatchObject({
      connected: true,
      accessTokenSet: true,
      appSecretSet: true,
    });
    const sent = await send(c, key);
    expect(sent.status).toBe(200);
    expect(graph!.sent).toHaveLength(1);
    const check = await c.request('POST', '/v1/email/settings/check', {
      session: 'live',
      body: {},
    });
    expect(check.body).toMatchObject({ ok: true, outcome: 'connected' });
    expect(
      (await c.request('GET', '/v1/email/settings', { session: 'live' })).body.dkim,
    ).toMatchObject({
      keySet: true,
    });

    // A second start changes nothing.
    await c.close();
    await coreOn(dir);
    const again = raw(dir);
    expect({ ...again.channel(), ...again.email() }).toEqual(stored);
    again.db.close();
    // The link key is the same key, sealed: links signed before the upgrade still open.
    const opened = createSealer(fileKeyProvider(dir)).unseal(
      'email_settings.link_key',
      stored.link_key,
    );
    expect(opened).toEqual({ ok: true, value: linkKey });
  });

  it('a store restored where its data key is not: the secrets read as not set and the settings say so', async () => {
    await peers();
    const dir = dataDir();
    const first = await coreOn(dir);
    const key = await configure(first);
    const linkBefore = raw(dir);
    const sealedLinkKey = linkBefore.email().link_key;
    linkBefore.db.close();
    await first.close();
    // Another machine: the database without its key (a new one is made on first need).
    fs.rmSync(path.join(dir, SECRET_KEY_FILE));
    const other = dataDir();
    createSealer(fileKeyProvider(other)).seal('channel_settings.access_token', 'x');
    fs.copyFileSync(path.join(other, SECRET_KEY_FILE), path.join(dir, SECRET_KEY_FILE));

    const c = await coreOn(dir);
    const channel = await c.request('GET', '/api/channel', { key });
    expect(channel.status).toBe(200);
    expect(channel.body).toMatchObject({
      connected: false,
      accessTokenSet: false,
      appSecretSet: false,
      lastCheck: { ok: false, outcome: 'auth_failed' },
    });
    expect(channel.body.lastCheck.message).toContain(
      'could not be unsealed on this machine (a backup restored elsewhere, or a new data key): enter it again',
    );
    const email = await c.request('GET', '/v1/email/settings', { session: 'live' });
    expect(email.body.smtp).toMatchObject({ host: '127.0.0.1', passwordSet: false });
    expect(email.body.dkim).toMatchObject({ keySet: false });
    const check = await c.request('POST', '/v1/email/settings/check', {
      session: 'live',
      body: {},
    });
    expect(check.body).toMatchObject({
      ok: false,
      outcome: 'auth_failed',
      code: 'secret_unsealable',
    });
    expect(check.body.response).toMatch(
      /^the SMTP password and the DKIM private key: .*enter it again/,
    );
    // A live send goes nowhere near the provider with a secret it does not have.
    await send(c, key);
    expect(graph!.sent).toHaveLength(0);
    // The link key is made anew (links signed with the old one no longer open).
    const after = raw(dir);
    expect(after.email().link_key).not.toBe(sealedLinkKey);
    after.db.close();

    // Both must be given again to connect; then the message is gone.
    const partial = await c.request('PUT', '/api/channel', {
      session: 'live',
      body: { accessToken: graph!.accessToken },
    });
    expect(partial.status).toBe(400);
    expect(partial.body.error.param).toBe('appSecret');
    const still = await c.request('GET', '/api/channel', { key });
    expect(still.body.lastCheck.message).toMatch(/^the access token and the app secret: /);
    const fixed = await c.request('PUT', '/api/channel', {
      session: 'live',
      body: { accessToken: graph!.accessToken, appSecret: graph!.appSecret },
    });
    expect(fixed.body).toMatchObject({ connected: true, accessTokenSet: true, appSecretSet: true });
    expect(fixed.body.lastCheck?.message ?? '').not.toContain('unsealed');
    expect((await send(c, key)).status).toBe(200);
    expect(graph!.sent).toHaveLength(1);
    const smtp = await saveEmailSettings(c);
    expect(smtp.body.smtp.passwordSet).toBe(true);
    const ok = await c.request('POST', '/v1/email/settings/check', { session: 'live', body: {} });
    expect(ok.body).toMatchObject({ ok: true, outcome: 'connected' });
  });

  it('a sealed value moved to another column does not open there', async () => {
    const dir = dataDir();
    const sealer = createSealer(fileKeyProvider(dir));
    const sealed = sealer.seal('channel_settings.app_secret', 'top secret');
    expect(sealer.unseal('channel_settings.app_secret', sealed)).toEqual({
      ok: true,
      value: 'top secret',
    });
    expect(sealer.unseal('channel_settings.access_token', sealed)).toEqual({ ok: false });
    // A random 96-bit IV per value: the same secret never seals the same twice.
    expect(sealer.seal('channel_settings.app_secret', 'top secret')).not.toBe(sealed);
  });

  it('the desktop keeps the data key wrapped by the OS keychain; without it the secrets read as not set', async () => {
    const dir = dataDir();
    // A stand-in for Electron's safeStorage: what it wraps only it unwraps.
    const wrap = (s: string) => Buffer.from(`kc:${Buffer.from(s).toString('hex')}`);
    const safeStorage = {
      isEncryptionAvailable: () => true,
      encryptString: wrap,
      decryptString: (b: Buffer) => Buffer.from(b.toString().slice(3), 'hex').toString(),
    };
    const desktop = await makeCore({
      dataDir: dir,
      keyProvider: keychainKeyProvider(dir, safeStorage),
    });
    t = { ...desktop, close: () => desktop.core.stop() };
    const put = await desktop.request('PUT', '/api/channel', {
      session: 'live',
      body: {
        provider: 'cloud_api',
        phoneNumberId: '1234567890',
        wabaId: '987654321',
        accessToken: 'EAAGdesktopAccessToken0123456789',
        appSecret: 'desktopAppSecret0123456789abcdef',
      },
    });
    expect(put.body).toMatchObject({ accessTokenSet: true, appSecretSet: true });
    const file = fs.readFileSync(path.join(dir, SECRET_KEY_FILE), 'utf8');
    expect(file).toMatch(/^parley-data-key:v1:keychain:/);
    if (POSIX) expect(modeOf(path.join(dir, SECRET_KEY_FILE))).toBe(0o600);
    await desktop.core.stop();
    // The desktop again: the same key.
    const again = await makeCore({
      dataDir: dir,
      keyProvider: keychainKeyProvider(dir, safeStorage),
    });
    t = { ...again, close: () => again.core.stop() };
    expect((await again.request('GET', '/api/channel', { session: 'live' })).body).toMatchObject({
      accessTokenSet: true,
      appSecretSet: true,
    });
    await again.core.stop();
    // `parley serve` on the desktop's data dir cannot open the keychain: not set, no crash.
    const serve = await coreOn(dir);
    const seen = await serve.request('GET', '/api/channel', { session: 'live' });
    expect(seen.body).toMatchObject({ accessTokenSet: false, lastCheck: { ok: false } });
    expect(() => fileKeyProvider(dir).dataKey()).toThrow(/OS keychain; only the desktop app/);
    const save = await serve.request('PUT', '/api/channel', {
      session: 'live',
      body: {
        accessToken: 'EAAGanotherAccessToken0123456789',
        appSecret: 'anotherAppSecret0123456789abcdef',
      },
    });
    expect(save.status).toBe(503);
    expect(save.body.error.message).toMatch(/only the desktop app can open it/);
  });

  it('a created API key is never kept in the idempotency table: a replay answers 409 with its record', async () => {
    const c = await makeCore();
    t = c;
    const create = () =>
      c.request('POST', '/api/keys', {
        session: 'test',
        headers: { 'idempotency-key': 'create-once' },
        body: { environment: 'live', name: 'CI' },
      });
    const first = await create();
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^svc_live_/);
    const stored = c.core.db.prepare('SELECT body FROM idempotency_keys').pluck().all() as string[];
    expect(stored).toHaveLength(1);
    // Its record only (the prefix the key list shows too), never the key.
    expect(stored.join()).not.toMatch(/svc_(live|test)_[A-Za-z0-9]{40}/);
    expect(stored.join()).not.toContain(first.body.key);
    const replay = await create();
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('idempotency_conflict');
    expect(replay.body.error.message).toContain('shown only once');
    expect(replay.body.error.details.created).toMatchObject({
      id: first.body.id,
      prefix: first.body.prefix,
    });
    expect(JSON.stringify(replay.body)).not.toContain(first.body.key);
    // Still one key: the replay created nothing.
    const list = await c.request('GET', '/api/keys', { session: 'test' });
    expect(list.body.data.filter((k: { name: string }) => k.name === 'CI')).toHaveLength(1);
  });

  it.runIf(POSIX)(
    'keeps the data dir owner-only and tightens one an older Parley left open',
    async () => {
      const dir = path.join(dataDir(), 'fresh');
      let c = await coreOn(dir);
      expect(modeOf(dir)).toBe(0o700);
      for (const f of ['parley.db', 'parley.db-wal', 'parley.db-shm']) {
        expect([f, modeOf(path.join(dir, f))]).toEqual([f, 0o600]);
      }
      await c.close();
      // As an older version left it, with an answer holding a created key and a migration to run.
      fs.chmodSync(dir, 0o755);
      fs.chmodSync(path.join(dir, 'parley.db'), 0o644);
      fs.writeFileSync(path.join(dir, 'serve.json'), '{"url":"http://127.0.0.1:4780"}\n', {
        mode: 0o644,
      });
      const db = new Database(path.join(dir, 'parley.db'));
      db.prepare(
        `INSERT INTO idempotency_keys (scope, key, request_hash, status, headers, body, created_at)
       VALUES ('session:x:test', 'k', 'h', 201, '{}', ?, ?)`,
      ).run(JSON.stringify({ id: 'key_1', key: 'svc_live_oldSecretKey0123456789' }), Date.now());
      // A store from before migration 0016 (its indexes).
      db.exec(`DROP INDEX business_events_created; DROP INDEX workflow_runs_ended;
      DROP INDEX webhook_deliveries_pending; DROP INDEX email_messages_bodies;
      DELETE FROM schema_migrations WHERE id = 16;`);
      db.close();
      const logged: string[] = [];
      const reopened = await makeCore({ dataDir: dir, log: (m) => logged.push(m) });
      c = { ...reopened, close: () => reopened.core.stop() };
      t = c;
      expect(modeOf(dir)).toBe(0o700);
      expect(modeOf(path.join(dir, 'parley.db'))).toBe(0o600);
      expect(modeOf(path.join(dir, 'serve.json'))).toBe(0o600);
      expect(logged.filter((m) => m.includes('readable by others'))).toHaveLength(1);
      // The automatic copy before a migration: owner-only too, and taken after the redaction.
      const backups = path.join(dir, 'backups');
      const copies = fs.readdirSync(backups);
      expect(copies).toHaveLength(1);
      expect(modeOf(backups)).toBe(0o700);
      expect(modeOf(path.join(backups, copies[0]!))).toBe(0o600);
      expect(fs.readFileSync(path.join(backups, copies[0]!)).includes('svc_live_old')).toBe(false);
      const bodies = c.core.db
        .prepare('SELECT body FROM idempotency_keys')
        .pluck()
        .all() as string[];
      expect(bodies).toEqual([JSON.stringify({ id: 'key_1' })]);
    },
  );
});
