import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSealer, fileKeyProvider } from '../../main/core/secrets.ts';
import { makeCore } from '../helpers.ts';
import { cliHarness } from './harness.ts';

const { dataDir, json } = cliHarness('parley-secrets-');

const POSIX = process.platform !== 'win32';
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('secrets at rest, on disk', () => {
  it('the database, its WAL, a parley backup and an audit export hold no secret in plain text; the data dir and the backup are owner-only', async () => {
    const dir = dataDir();
    const t = await makeCore({ dataDir: dir });
    const core = { ...t, close: () => t.core.stop() };
    try {
      const dkim = generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      const secrets: Record<string, string> = {
        accessToken: 'EAAGplainAccessToken0123456789abcdef',
        appSecret: 'plainAppSecret0123456789abcdef01',
        smtpPassword: 'plain-smtp-password-77',
        // A line from the middle of the PEM: any copy of the key holds it.
        dkim: dkim.split('\n')[5]!,
      };
      await core.request('PATCH', '/api/workspace/settings', {
        session: 'live',
        body: { allowPrivateWebhooks: true },
      });
      const channel = await core.request('PUT', '/api/channel', {
        session: 'live',
        body: {
          provider: 'cloud_api',
          phoneNumberId: '1234567890',
          wabaId: '987654321',
          accessToken: secrets.accessToken,
          appSecret: secrets.appSecret,
        },
      });
      expect(channel.status).toBe(200);
      const email = await core.request('PUT', '/v1/email/settings', {
        session: 'live',
        body: {
          smtp: {
            host: '127.0.0.1',
            port: 2525,
            secure: false,
            user: 'news',
            password: secrets.smtpPassword,
          },
          dkim: { domainName: 'acme.example', keySelector: 's1', privateKey: dkim },
        },
      });
      expect(email.status).toBe(200);
      const created = await core.request('POST', '/api/keys', {
        session: 'live',
        headers: { 'idempotency-key': 'k1' },
        body: { environment: 'live', name: 'CI' },
      });
      expect(created.status).toBe(201);
      secrets.apiKey = created.body.key;
      const sealedLinkKey = core.core.db
        .prepare("SELECT link_key FROM email_settings WHERE environment = 'live'")
        .pluck()
        .get() as string;
      const link = createSealer(fileKeyProvider(dir)).unseal(
        'email_settings.link_key',
        sealedLinkKey,
      );
      expect(link.ok).toBe(true);
      if (link.ok) secrets.linkKey = link.value;

      // A member signs in, and saves the audit trail's export to disk (a download: its mode is
      // the browser's). It names what changed, never a secret.
      const ada = await core.member({ name: 'Ada', role: 'admin' });
      secrets.sessionToken = ada.cookie;
      secrets.password = ada.password;
      const exported = await core.request('GET', '/audit/export', { cookie: ada.cookie });
      expect(exported.status).toBe(200);
      const csv = path.join(dataDir(), 'downloads', 'parley-audit.csv');
      fs.mkdirSync(path.dirname(csv));
      fs.writeFileSync(csv, exported.text);
      const exportedText = fs.readFileSync(csv, 'utf8');
      expect(exportedText).toContain('settings.updated');
      expect(exportedText).toContain('member.joined');
      for (const [name, secret] of Object.entries(secrets)) {
        expect([name, exportedText.includes(secret)]).toEqual([name, false]);
      }

      // A backup by the real bin while the core holds the database open (its WAL in use).
      const file = path.join(dataDir(), 'copies', 'parley-backup.db');
      const backup = await json(['backup', file], dir);
      expect(backup.file).toBe(file);

      // The copy holds the settings, sealed.
      expect(fs.readFileSync(file).includes('sealed:v1:')).toBe(true);
      const wal = path.join(dir, 'parley.db-wal');
      expect(fs.statSync(wal).size).toBeGreaterThan(0);
      for (const where of [path.join(dir, 'parley.db'), wal, file]) {
        const bytes = fs.readFileSync(where);
        for (const [name, secret] of Object.entries(secrets)) {
          expect([where, name, bytes.includes(secret)]).toEqual([where, name, false]);
        }
        // Nor the data key: the backup is the database only.
        const key = fs.readFileSync(path.join(dir, 'secret.key'), 'utf8').trim().split(':').pop()!;
        expect(bytes.includes(key)).toBe(false);
      }

      if (POSIX) {
        // Whatever the run wrote in the data dir: every folder 0700, every file 0600.
        const walk = (d: string): string[] =>
          fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => {
            const p = path.join(d, e.name);
            return e.isDirectory() ? [p, ...walk(p)] : [p];
          });
        const entries = walk(dir);
        expect(entries.map((p) => path.relative(dir, p))).toEqual(
          expect.arrayContaining(['parley.db', 'parley.db-wal', 'parley.db-shm', 'secret.key']),
        );
        expect(modeOf(dir)).toBe(0o700);
        const loose = entries
          .map((p) => [path.relative(dir, p), modeOf(p).toString(8)])
          .filter(
            ([p, mode]) => mode !== (fs.statSync(path.join(dir, p!)).isDirectory() ? '700' : '600'),
          );
        expect(loose).toEqual([]);
        expect(modeOf(file)).toBe(0o600);
      }

      // Restored on another machine (no matching key): the secrets read as not set, and say so.
      const elsewhere = dataDir();
      fs.copyFileSync(file, path.join(elsewhere, 'parley.db'));
      const restored = await makeCore({ dataDir: elsewhere });
      try {
        const settings = await restored.request('GET', '/api/channel', { session: 'live' });
        expect(settings.body).toMatchObject({ accessTokenSet: false, appSecretSet: false });
        expect(settings.body.lastCheck.message).toContain('enter it again');
        const check = await restored.request('POST', '/v1/email/settings/check', {
          session: 'live',
          body: {},
        });
        expect(check.body).toMatchObject({ ok: false, code: 'secret_unsealable' });
      } finally {
        await restored.core.stop();
      }
    } finally {
      await core.close();
    }
  });
});
