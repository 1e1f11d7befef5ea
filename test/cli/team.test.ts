import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cryptoRandom } from '../../main/core/runtime.ts';
import { certificateNames, ensureSelfSigned } from '../../main/core/tls/certificate.ts';
import { plainHttp, secureSessionOf, tlsRequest } from '../tls.ts';
import { BIN, cliHarness } from './harness.ts';

/**
 * `parley serve --team`, `parley team status` and `parley members …` (design.md §6). Every
 * connection goes to 127.0.0.1, even with the desk on 0.0.0.0; no mDNS packet is sent (the
 * announcer refuses under tests).
 */
const h = cliHarness('parley-cli-team-');
const DAY = 24 * 3600 * 1000;

/** `parley serve` with `args`, resolved once `ready` matches its stdout. */
function serve(dir: string, args: string[], ready: RegExp) {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', ...args, '--data-dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  h.children.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<{ out: string; err: () => string; child: ChildProcess }>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) resolve({ out, err: () => err, child });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

async function stop(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A request over TLS with the session cookie of a member, if given. */
const tls = (
  port: number,
  pin: string,
  method: string,
  path: string,
  opts: { cookie?: string; body?: unknown } = {},
) =>
  tlsRequest(port, pin, method, path, {
    body: opts.body,
    headers: opts.cookie ? { cookie: `__Host-parley_session=${opts.cookie}` } : {},
  });

describe('parley serve --team', () => {
  it('renews an ending certificate, serves TLS only, and invites pin it', async () => {
    const dir = h.dataDir();
    // A certificate made 355 days ago: it ends in 10 days, so this start renews it.
    const old = await ensureSelfSigned({
      dataDir: dir,
      clock: { now: () => Date.now() - 355 * DAY },
      random: cryptoRandom,
      names: certificateNames({ hostname: 'deskhost', addresses: [], port: 0 }),
      commonName: 'old',
    });
    const s = await serve(dir, ['--team', '--host', '127.0.0.1', '--port', '0'], /sign in: \S+\n/);
    const fp = /^fingerprint: (sha256:[0-9a-f]{64})$/m.exec(s.out)![1]!;
    const port = Number(
      /^listening on https:\/\/127\.0\.0\.1:(\d+) \(the team desk: TLS only\)$/m.exec(s.out)![1],
    );
    expect(s.out).toContain(
      `certificate renewed: the fingerprint changed from ${old.certificate.fingerprint} to ${fp}; joined desktops must paste a new invite`,
    );
    expect(s.out).toMatch(/^spki: [A-Za-z0-9+/]{43}=$/m);
    expect(s.out).toMatch(/^this machine: http:\/\/127\.0\.0\.1:\d+$/m);
    expect(await plainHttp(port)).toMatch(
      /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\nThis Parley desk speaks HTTPS only: open https:\/\/127\.0\.0\.1:\d+\/\n$/,
    );

    const status = await h.json(['team', 'status'], dir);
    expect(status).toMatchObject({
      sharing: true,
      fingerprint: fp,
      addresses: [`https://127.0.0.1:${port}`],
      sessionsOnline: 0,
    });
    expect(Date.parse(status.certificate.notAfter)).toBeGreaterThan(Date.now() + 360 * DAY);

    // An invite from the command line points at the shared desk and carries the pin.
    const invite = await h.json(
      [
        'members',
        'invite',
        'ana@example.com',
        '--name',
        'Ana',
        '--role',
        'agent',
        '--rights',
        'campaigns',
      ],
      dir,
    );
    expect(invite.inviteUrl).toMatch(
      new RegExp(`^https://127\\.0\\.0\\.1:${port}/join#token=[A-Za-z0-9]{43}&fp=${fp}$`),
    );
    expect(invite.invite).toMatchObject({ role: 'agent', rights: ['campaigns'] });
    const token = new URLSearchParams(invite.inviteUrl.split('#')[1]).get('token');
    const accepted = await tls(port, fp, 'POST', '/invites/accept', {
      body: { token, name: 'Ana', password: 'correct horse 42' },
    });
    expect(accepted.status).toBe(201);
    const cookie = secureSessionOf(accepted);
    const ana = JSON.parse(accepted.text) as { id: string };
    expect((await tls(port, fp, 'GET', '/api/me', { cookie })).status).toBe(200);
    expect((await h.json(['team', 'status'], dir)).sessionsOnline).toBe(1);

    const list = await h.json(['members', 'list'], dir);
    expect(list.map((m: { name: string }) => m.name)).toContain('Ana');
    const human = await h.parley(['members', 'list'], dir);
    expect(human.stdout).toMatch(/^ID\s+NAME\s+EMAIL\s+ROLE\s+RIGHTS\s+STATUS\s+LAST SEEN$/m);

    // Deactivated from the command line: the desk refuses her session on its next request.
    const off = await h.json(['members', 'deactivate', ana.id], dir);
    expect(off).toMatchObject({ id: ana.id, active: false });
    expect((await tls(port, fp, 'GET', '/api/me', { cookie })).status).toBe(401);
    expect((await h.json(['team', 'status'], dir)).sessionsOnline).toBe(0);

    await stop(s.child);
    const after = await h.parley(['team', 'status'], dir);
    expect(after.stdout).toMatch(/^sharing: no/m);
    expect(after.stdout).toContain(`fingerprint: ${fp}`);
  });

  it('a --host off loopback is the team desk; --announce sends nothing under tests', async () => {
    const dir = h.dataDir();
    const s = await serve(dir, ['--host', '0.0.0.0', '--port', '0', '--announce', '--json'], /\n/);
    const out = JSON.parse(s.out);
    expect(out.team).toMatchObject({ sharing: true, announce: false, renewed: null });
    expect(out.team.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(out.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.err()).toContain('the mDNS announcement is off under tests and CI');
    const port = out.team.port as number;
    expect(await plainHttp(port)).toContain('This Parley desk speaks HTTPS only');
    expect((await tls(port, out.team.fingerprint, 'GET', '/health')).status).toBe(200);
    await stop(s.child);
  });

  it('explains usage mistakes', async () => {
    const dir = h.dataDir();
    const role = await h.parley(
      ['members', 'invite', 'a@example.com', '--name', 'A', '--role', 'boss'],
      dir,
    );
    expect(role.code).toBe(2);
    expect(role.stderr).toContain('--role must be agent or admin');
    const rights = await h.parley(
      ['members', 'invite', 'a@example.com', '--name', 'A', '--role', 'agent', '--rights', 'keys'],
      dir,
    );
    expect(rights.code).toBe(2);
    expect(rights.stderr).toContain('--rights takes campaigns, automation');
    const email = await h.parley(
      ['members', 'invite', 'nope', '--name', 'A', '--role', 'agent'],
      dir,
    );
    expect(email.code).toBe(2);
    expect(email.stderr).toContain('EMAIL: email is not a valid address');
    const cert = await h.parley(['serve', '--team', '--tls-cert', 'x.pem'], dir);
    expect(cert.code).toBe(2);
    expect(cert.stderr).toContain('--tls-cert and --tls-key go together');
    const none = await h.parley(['team', 'status'], dir);
    expect(none.stdout).toContain('certificate: none yet');
    expect(none.stdout).toMatch(/^sharing: no/m);
  });
});
