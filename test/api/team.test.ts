import https from 'node:https';
import net from 'node:net';
import type os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import type { Announcement } from '../../main/core/mdns/announcer.ts';
import { pinnedAgent } from '../../main/core/net/pin.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';
import { plainHttp, secureSessionOf, tlsRequest } from '../tls.ts';

/**
 * The team desk (design.md §6 "Serving a team"): TLS only, beside the loopback listener; its
 * certificate's names accepted by the Host guard; the `__Host-` cookie over TLS; invite links
 * that pin the fingerprint; a bucket per member. The LAN here is made up (192.0.2.10, a
 * documentation address): every connection goes to 127.0.0.1, even when the desk binds 0.0.0.0,
 * and no mDNS packet is sent (the announcer is a recorder).
 */
const cores: TestCore[] = [];
afterEach(async () => {
  for (const t of cores.splice(0)) await t.close();
});

const INTERFACES: NodeJS.Dict<os.NetworkInterfaceInfo[]> = {
  lo: [
    {
      address: '127.0.0.1',
      netmask: '255.0.0.0',
      family: 'IPv4',
      mac: '00:00:00:00:00:00',
      internal: true,
      cidr: '127.0.0.1/8',
    },
  ],
  eth0: [
    {
      address: '192.0.2.10',
      netmask: '255.255.255.0',
      family: 'IPv4',
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: '192.0.2.10/24',
    },
    {
      address: '2001:db8::5',
      netmask: 'ffff:ffff:ffff:ffff::',
      family: 'IPv6',
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: '2001:db8::5/64',
      scopeid: 0,
    },
    {
      address: 'fe80::1',
      netmask: 'ffff:ffff:ffff:ffff::',
      family: 'IPv6',
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: 'fe80::1/64',
      scopeid: 2,
    },
  ],
};

async function core(opts: Parameters<typeof makeCore>[0] = {}) {
  const announced: Announcement[] = [];
  let stopped = 0;
  const t = await makeCore({
    team: {
      interfaces: () => INTERFACES,
      hostname: () => 'deskhost',
      announce: async (a) => {
        announced.push(a);
        return { stop: async () => void (stopped += 1) };
      },
    },
    ...opts,
  });
  cores.push(t);
  return { t, announced, stopped: () => stopped };
}

const share = (t: TestCore, body: Record<string, unknown>) =>
  t.request('POST', '/api/team/share', { session: 'test', body });

describe('the team desk', () => {
  it('is off until shared; GET /api/team says so', async () => {
    const { t } = await core();
    const res = await t.request('GET', '/api/team', { session: 'test' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      sharing: false,
      addresses: [],
      fingerprint: null,
      certificate: null,
      announce: false,
      port: null,
    });
  });

  it('shares over TLS only: plain HTTP to its port gets one line saying where the desk is', async () => {
    const { t } = await core();
    const res = await share(t, { enabled: true, host: '0.0.0.0', port: 0 });
    expect(res.status).toBe(200);
    const team = res.body;
    expect(team.sharing).toBe(true);
    expect(team.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(team.spki).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const port = team.port as number;
    // On 0.0.0.0: every LAN address (IPv4 first; no link-local IPv6), then HOST.local.
    expect(team.addresses).toEqual([
      `https://192.0.2.10:${port}`,
      `https://[2001:db8::5]:${port}`,
      `https://deskhost.local:${port}`,
    ]);
    expect(team.certificate.names).toEqual(
      expect.arrayContaining(['deskhost', 'deskhost.local', '192.0.2.10', '2001:db8::5', '::1']),
    );
    const answer = await plainHttp(port);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('Connection: close');
    expect(answer.split('\r\n\r\n')[1]).toBe(
      `This Parley desk speaks HTTPS only: open https://127.0.0.1:${port}/\n`,
    );
    // A name of the desk's is echoed; a stranger's is not.
    expect(await plainHttp(port, `deskhost.local:${port}`)).toContain(
      `open https://deskhost.local:${port}/`,
    );
    expect(await plainHttp(port, 'evil.example')).toContain(`open https://192.0.2.10:${port}/`);
    // Over TLS, with the pinned fingerprint, the same app answers.
    const health = await tlsRequest(port, team.fingerprint, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.json().status).toBe('ok');
  });

  it('signs a member in over TLS with the __Host- cookie, Secure', async () => {
    const { t } = await core();
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    const team = (await share(t, { enabled: true, host: '127.0.0.1', port: 0 })).body;
    const login = await tlsRequest(team.port, team.fingerprint, 'POST', '/login', {
      body: { email: ana.email, password: ana.password },
    });
    expect(login.status).toBe(204);
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(
      /^__Host-parley_session=[A-Za-z0-9]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+; Secure$/,
    );
    const token = secureSessionOf(login);
    const me = await tlsRequest(team.port, team.fingerprint, 'GET', '/api/me', {
      headers: { cookie: `__Host-parley_session=${token}` },
    });
    expect(me.status).toBe(200);
    expect(me.json().member).toMatchObject({ id: ana.id, role: 'agent' });
    // Over TLS only the __Host- name is read.
    const plainName = await tlsRequest(team.port, team.fingerprint, 'GET', '/api/me', {
      headers: { cookie: `parley_session=${token}` },
    });
    expect(plainName.status).toBe(401);
    // Agents do not share the desk; its admins do.
    const denied = await tlsRequest(team.port, team.fingerprint, 'GET', '/api/team', {
      headers: { cookie: `__Host-parley_session=${token}` },
    });
    expect(denied.status).toBe(403);
    expect(denied.json().error.details).toEqual({ requires: 'team' });
  });

  it('accepts the names on its certificate and its addresses as Host, with its port', async () => {
    const { t } = await core();
    const team = (await share(t, { enabled: true, host: '0.0.0.0', port: 0 })).body;
    const { port, fingerprint } = team;
    const status = async (host: string, headers: Record<string, string> = {}) =>
      (await tlsRequest(port, fingerprint, 'GET', '/health', { host, headers })).status;
    for (const host of [
      `deskhost:${port}`,
      `DeskHost.local:${port}`,
      `192.0.2.10:${port}`,
      `[2001:db8::5]:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `p${port}.localhost:${port}`,
    ]) {
      expect(await status(host), host).toBe(200);
    }
    expect(await status(`evil.example:${port}`)).toBe(403);
    expect(await status(`deskhost.local:${port + 1}`)).toBe(403);
    expect(await status('deskhost.local')).toBe(403);
    // The page's origin is https:// and the Host it was loaded from.
    expect(
      await status(`deskhost.local:${port}`, { origin: `https://deskhost.local:${port}` }),
    ).toBe(200);
    expect(
      await status(`deskhost.local:${port}`, { origin: `http://deskhost.local:${port}` }),
    ).toBe(403);
    expect(await status(`deskhost.local:${port}`, { origin: `https://192.0.2.10:${port}` })).toBe(
      403,
    );
    // The loopback listener's guard is as it was: team names are not loopback names.
    const local = await t.request('GET', '/api/team', {
      session: 'test',
      headers: { host: 'deskhost.local' },
    });
    expect(local.status).toBe(403);
  });

  it('invite links point at the shared desk and pin its fingerprint; a solo desk’s do not', async () => {
    const { t } = await core();
    const invite = (email: string) =>
      t.request('POST', '/members/invites', {
        session: 'test',
        headers: { host: '127.0.0.1:4780' },
        body: { email, name: 'Bo', role: 'agent' },
      });
    const solo = await invite('solo@example.com');
    expect(solo.status).toBe(201);
    expect(solo.body.inviteUrl).toMatch(
      /^http:\/\/p4780\.localhost:4780\/join#token=[A-Za-z0-9]{43}$/,
    );
    const team = (await share(t, { enabled: true, host: '0.0.0.0', port: 0 })).body;
    const shared = await invite('team@example.com');
    expect(shared.body.inviteUrl).toMatch(
      new RegExp(
        `^https://192\\.0\\.2\\.10:${team.port}/join#token=[A-Za-z0-9]{43}&fp=sha256:[0-9a-f]{64}$`,
      ),
    );
    expect(shared.body.inviteUrl.endsWith(`&fp=${team.fingerprint}`)).toBe(true);
    // The link works: the invitee accepts it over TLS and is signed in there.
    const token = new URLSearchParams(new URL(shared.body.inviteUrl).hash.slice(1)).get('token');
    const accepted = await tlsRequest(team.port, team.fingerprint, 'POST', '/invites/accept', {
      body: { token, name: 'Bo', password: 'correct horse 42' },
    });
    expect(accepted.status).toBe(201);
    expect(String(accepted.headers['set-cookie'])).toMatch(/^__Host-parley_session=.*; Secure$/);
    await share(t, { enabled: false });
    const after = await invite('after@example.com');
    expect(after.body.inviteUrl).not.toContain('&fp=');
  });

  it('stops sharing on request: the port closes with every connection on it', async () => {
    const { t } = await core();
    const team = (await share(t, { enabled: true, host: '127.0.0.1', port: 0 })).body;
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    const login = await tlsRequest(team.port, team.fingerprint, 'POST', '/login', {
      body: { email: ana.email, password: ana.password },
    });
    const token = secureSessionOf(login);
    // An open event stream over TLS.
    const agent = pinnedAgent(team.fingerprint);
    const closed = new Promise<void>((resolve, reject) => {
      const req = https.get(
        {
          host: '127.0.0.1',
          port: team.port,
          path: '/events',
          agent,
          headers: {
            host: `127.0.0.1:${team.port}`,
            cookie: `__Host-parley_session=${token}`,
            accept: 'text/event-stream',
          },
        },
        (res) => {
          expect(res.statusCode).toBe(200);
          res.resume();
          res.once('data', () => void share(t, { enabled: false }).catch(reject));
          res.on('close', () => resolve());
        },
      );
      req.on('error', () => resolve());
    });
    await closed;
    agent.destroy();
    expect((await t.request('GET', '/api/team', { session: 'test' })).body.sharing).toBe(false);
    await expect(
      new Promise((resolve, reject) => {
        const s = net.connect({ host: '127.0.0.1', port: team.port }, () => resolve(s.destroy()));
        s.on('error', reject);
      }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('renews an ending certificate when sharing starts and says the fingerprint changed', async () => {
    const clock = manualClock();
    const { t } = await core({ clock });
    const first = (await share(t, { enabled: true, host: '127.0.0.1', port: 0 })).body;
    expect(first.certificate.renewedFrom).toBeNull();
    await share(t, { enabled: false });
    clock.set(Date.parse(first.certificate.notAfter) - 20 * 24 * 3600 * 1000);
    const result = await t.core.team.share({ enabled: true, host: '127.0.0.1', port: 0 });
    expect(result.renewed).toEqual({ from: first.fingerprint, to: result.status.fingerprint });
    expect(result.status.certificate?.renewedFrom).toBe(first.fingerprint);
    expect(result.status.spki).toBe(first.spki);
    // The old pin no longer reaches the desk; the new one does.
    await expect(
      tlsRequest(result.status.port!, first.fingerprint, 'GET', '/health'),
    ).rejects.toThrow(/certificate changed/);
    const ok = await tlsRequest(result.status.port!, result.status.fingerprint!, 'GET', '/health');
    expect(ok.status).toBe(200);
  });

  it('announces on the LAN only when asked, with the fingerprint and the workspace', async () => {
    const { t, announced, stopped } = await core();
    const plain = (await share(t, { enabled: true, host: '127.0.0.1', port: 0 })).body;
    expect(plain.announce).toBe(false);
    expect(announced).toEqual([]);
    const on = (await share(t, { enabled: true, announce: true })).body;
    expect(on.announce).toBe(true);
    expect(on.port).toBe(plain.port);
    expect(announced).toEqual([
      {
        name: 'Default on deskhost',
        type: 'parley',
        protocol: 'tcp',
        port: plain.port,
        txt: { fp: plain.fingerprint, name: 'Default' },
      },
    ]);
    expect((await share(t, { enabled: true, announce: false })).body.announce).toBe(false);
    expect(stopped()).toBe(1);
  });

  it('answers 409 when the port is taken, 400 when a certificate of one’s own cannot be read', async () => {
    const { t } = await core();
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const res = await share(t, { enabled: true, host: '127.0.0.1', port });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'invalid_state', param: 'port' });
      expect(res.body.error.message).toContain(`port ${port}`);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
    // A certificate of one's own that cannot be read is the request's mistake, in words.
    const missing = await share(t, {
      enabled: true,
      host: '127.0.0.1',
      port: 0,
      certFile: `${t.dataDir}/nope.pem`,
      keyFile: `${t.dataDir}/nope-key.pem`,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'validation_error', param: 'certFile' });
    expect(missing.body.error.message).toContain('cannot read the certificate');
    expect((await t.request('GET', '/api/team', { session: 'test' })).body.sharing).toBe(false);
    // A desk already shared stays shared as it was when a move fails.
    const shared = (await share(t, { enabled: true, host: '127.0.0.1', port: 0 })).body;
    busy.listen(0, '127.0.0.1');
    await new Promise((resolve) => busy.once('listening', resolve));
    const taken = (busy.address() as net.AddressInfo).port;
    expect((await share(t, { enabled: true, port: taken })).status).toBe(409);
    const still = (await t.request('GET', '/api/team', { session: 'test' })).body;
    expect(still).toMatchObject({
      sharing: true,
      port: shared.port,
      fingerprint: shared.fingerprint,
    });
    await new Promise((resolve) => busy.close(resolve));
  });

  it('limits requests per member, whatever session: another member has a bucket of their own', async () => {
    const clock = manualClock();
    const { t } = await core({ clock, sessionRateLimit: { perSecond: 1, burst: 3 } });
    const ana = await t.member({ name: 'Ana', role: 'agent' });
    const bo = await t.member({ name: 'Bo', role: 'agent' });
    const { signIn } = await import('../helpers.ts');
    const anaLaptop = await signIn(t, ana.email, ana.password);
    const me = (cookie: string) => t.request('GET', '/api/me', { cookie });
    expect((await me(ana.cookie)).status).toBe(200);
    expect((await me(anaLaptop)).status).toBe(200);
    expect((await me(ana.cookie)).status).toBe(200);
    // Ana's fourth request in the second, from her other session: one bucket for her.
    const over = await me(anaLaptop);
    expect(over.status).toBe(429);
    expect(over.headers['ratelimit-policy']).toBe('"session";q=3;w=3');
    expect((await me(bo.cookie)).status).toBe(200);
    clock.advance(1000);
    expect((await me(anaLaptop)).status).toBe(200);
  });
});
