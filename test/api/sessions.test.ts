import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock, sessionTokenOf, signIn } from '../helpers.ts';
import { openStream } from '../sse.ts';

/**
 * Members' sessions (design.md §6 "Passwords and sessions"): a fresh random id at every
 * sign-in, stored only hashed, ended by idle time, age, sign-out, revoke, deactivation or a
 * password change — the member's event streams with it; sign-in throttled per account and
 * per client address.
 */
let t: TestCore;
afterEach(async () => t?.close());

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const TOKEN = /^[A-Za-z0-9]{43}$/;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const me = (cookie: string) => t.request('GET', '/api/me', { cookie });
const login = (email: string, password: string, opts: { remoteAddress?: string } = {}) =>
  t.request('POST', '/login', { body: { email, password }, ...opts });
const sessionsOf = async (cookie: string, memberId?: string) => {
  const res = await t.request('GET', `/sessions${memberId ? `?memberId=${memberId}` : ''}`, {
    cookie,
  });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; memberId: string; current: boolean; expiresAt: string }[];
};
const currentId = async (cookie: string) => (await sessionsOf(cookie)).find((s) => s.current)!.id;

describe('sign-in sessions', () => {
  it('a sign-in always issues a new id: a cookie sent before it is never adopted', async () => {
    t = await makeCore();
    const ana = await t.member({ name: 'Ana' });
    const planted = 'A'.repeat(43);
    const fixation = { cookie: `parley_session=${planted}` };

    const first = await t.request('POST', '/login', {
      headers: fixation,
      body: { email: ana.email, password: ana.password },
    });
    expect(first.status).toBe(204);
    const one = sessionTokenOf(first)!;
    expect(one).toMatch(TOKEN);
    expect(one).not.toBe(planted);
    expect((await me(planted)).status).toBe(401);

    // Signed in already and signing in again: another id, the first stays its own session.
    const second = await t.request('POST', '/login', {
      cookie: one,
      body: { email: ana.email, password: ana.password },
    });
    const two = sessionTokenOf(second)!;
    expect(two).toMatch(TOKEN);
    expect(new Set([planted, ana.cookie, one, two]).size).toBe(4);
    for (const c of [ana.cookie, one, two]) expect((await me(c)).status).toBe(200);

    // The invite's sign-in and the two sign-ins: three sessions, the asker's marked current.
    const list = await sessionsOf(two);
    expect(list).toHaveLength(3);
    expect(new Set(list.map((s) => s.id)).size).toBe(3);
    expect(list.every((s) => s.memberId === ana.id && /^ses_/.test(s.id))).toBe(true);
    expect(list.filter((s) => s.current).map((s) => s.id)).toEqual([
      (await me(two)).body.sessionId,
    ]);

    // The same holds for an invite's acceptance and the one-click link.
    const invite = await t.request('POST', '/members/invites', {
      session: 'test',
      body: { email: 'bo@example.com', name: 'Bo', role: 'agent' },
    });
    const accepted = await t.request('POST', '/invites/accept', {
      headers: fixation,
      body: {
        token: invite.body.inviteUrl.split('#token=')[1],
        name: 'Bo',
        password: 'a long enough secret',
      },
    });
    expect(accepted.status).toBe(201);
    expect(sessionTokenOf(accepted)).not.toBe(planted);
    const link = new URL(t.core.loginUrl('http://127.0.0.1:4780')!).searchParams.get('token');
    const linked = await t.request('GET', `/login?token=${link}`, { headers: fixation });
    expect(linked.status).toBe(303);
    expect(sessionTokenOf(linked)).not.toBe(planted);
    expect((await me(planted)).status).toBe(401);
  });

  it('keeps no sign-in secret in the store: sessions, links and invites only as SHA-256', async () => {
    t = await makeCore();
    const ana = await t.member({ name: 'Ana' });
    const again = await signIn(t, ana.email, ana.password);
    const link = new URL(t.core.loginUrl('http://127.0.0.1:4780')!).searchParams.get('token')!;
    const invite = await t.request('POST', '/members/invites', {
      session: 'test',
      body: { email: 'bo@example.com', name: 'Bo', role: 'agent' },
    });
    const inviteToken = invite.body.inviteUrl.split('#token=')[1] as string;
    const { db } = t.core;
    const hashes = db.prepare('SELECT token_hash FROM sessions').pluck().all() as string[];
    expect(hashes.sort()).toEqual([sha256(ana.cookie), sha256(again)].sort());
    expect(db.prepare('SELECT token_hash FROM login_links').pluck().all()).toEqual([sha256(link)]);
    expect(db.prepare('SELECT token_hash FROM invites').pluck().all()).toContain(
      sha256(inviteToken),
    );
    // Nowhere in the database's files, in any column or page.
    const secrets = { session: ana.cookie, again, link, inviteToken, password: ana.password };
    for (const file of ['parley.db', 'parley.db-wal']) {
      const bytes = fs.readFileSync(path.join(t.dataDir, file));
      for (const [name, secret] of Object.entries(secrets)) {
        expect([file, name, bytes.includes(secret)]).toEqual([file, name, false]);
      }
    }
  });

  it('ends after 12 hours idle; each use moves the idle deadline', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const ana = await t.member({ name: 'Ana' });
    const id = await currentId(ana.cookie);
    clock.advance(12 * HOUR - 60_000);
    expect((await me(ana.cookie)).status).toBe(200);
    clock.advance(12 * HOUR - 1);
    expect((await me(ana.cookie)).status).toBe(200);
    clock.advance(12 * HOUR);
    expect((await me(ana.cookie)).status).toBe(401);
    const row = t.core.db.prepare('SELECT ended_at, end_reason FROM sessions WHERE id = ?').get(id);
    expect(row).toEqual({ ended_at: clock.now(), end_reason: 'expired' });
    // Not brought back by a later request either.
    expect((await me(ana.cookie)).status).toBe(401);
  });

  it('ends 30 days after sign-in even when used every 11 hours', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const ana = await t.member({ name: 'Ana' });
    const signedIn = clock.now();
    let uses = 0;
    while (clock.now() + 11 * HOUR < signedIn + 30 * DAY) {
      clock.advance(11 * HOUR);
      expect((await me(ana.cookie)).status, `after ${clock.now() - signedIn} ms`).toBe(200);
      uses++;
    }
    expect(uses).toBe(65);
    // The idle deadline is later than the absolute one now: the list says when it really ends.
    const [session] = await sessionsOf(ana.cookie);
    expect(session!.expiresAt).toBe(new Date(signedIn + 30 * DAY).toISOString());
    clock.set(signedIn + 30 * DAY);
    expect((await me(ana.cookie)).status).toBe(401);
  });

  it('POST /logout ends the session and clears the cookie', async () => {
    t = await makeCore();
    const ana = await t.member({ name: 'Ana' });
    const other = await signIn(t, ana.email, ana.password);
    const out = await t.request('POST', '/logout', { cookie: ana.cookie });
    expect(out.status).toBe(204);
    const cleared = String(out.headers['set-cookie']);
    expect(cleared).toMatch(/^parley_session=; /);
    expect(cleared).toContain('; Max-Age=0');
    expect(cleared).toContain('; HttpOnly');
    expect(cleared).toContain('; SameSite=Strict');
    expect((await me(ana.cookie)).status).toBe(401);
    expect((await t.request('POST', '/logout', { cookie: ana.cookie })).status).toBe(401);
    // Only that session: the member's other one is still signed in.
    expect((await me(other)).status).toBe(200);
  });

  it('DELETE /sessions/:id ends your own at once; an admin ends another’s; an agent cannot', async () => {
    t = await makeCore();
    const ana = await t.member({ name: 'Ana' });
    const phone = await signIn(t, ana.email, ana.password);
    const bob = await t.member({ name: 'Bob' });
    const ada = await t.member({ name: 'Ada', role: 'admin' });

    const phoneId = await currentId(phone);
    expect((await t.request('DELETE', `/sessions/${phoneId}`, { cookie: ana.cookie })).status).toBe(
      204,
    );
    expect((await me(phone)).status).toBe(401);
    expect((await me(ana.cookie)).status).toBe(200);
    expect((await sessionsOf(ana.cookie)).map((s) => s.id)).not.toContain(phoneId);
    // Gone is gone: a second revoke finds nothing.
    expect((await t.request('DELETE', `/sessions/${phoneId}`, { cookie: ana.cookie })).status).toBe(
      404,
    );

    // Another member's: an agent neither lists nor ends them.
    const bobId = await currentId(bob.cookie);
    const listed = await t.request('GET', `/sessions?memberId=${bob.id}`, { cookie: ana.cookie });
    expect(listed.status).toBe(403);
    expect(listed.body.error.details).toEqual({ requires: 'members' });
    const refused = await t.request('DELETE', `/sessions/${bobId}`, { cookie: ana.cookie });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({ requires: 'members' });
    expect((await me(bob.cookie)).status).toBe(200);

    // An admin does both; the revoked session answers 401 on its very next request.
    expect((await sessionsOf(ada.cookie, bob.id)).map((s) => [s.id, s.current])).toEqual([
      [bobId, false],
    ]);
    expect((await t.request('DELETE', `/sessions/${bobId}`, { cookie: ada.cookie })).status).toBe(
      204,
    );
    expect((await me(bob.cookie)).status).toBe(401);

    // Ending one's own current session clears its cookie, as signing out does.
    const own = await t.request('DELETE', `/sessions/${await currentId(ana.cookie)}`, {
      cookie: ana.cookie,
    });
    expect(own.status).toBe(204);
    expect(String(own.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await me(ana.cookie)).status).toBe(401);
  });
});

describe('ended sessions close their event streams', () => {
  /** The core listening, and a reader of its event stream with a session cookie. */
  async function listening() {
    t = await makeCore();
    const { port } = await t.core.start({ port: 0 });
    return (cookie: string) =>
      openStream(`http://127.0.0.1:${port}/events`, {
        cookie: `parley_session=${cookie}`,
        host: `127.0.0.1:${port}`,
      });
  }

  it('deactivating a member closes every stream of theirs, and only theirs', async () => {
    const stream = await listening();
    const ana = await t.member({ name: 'Ana' });
    const phone = await signIn(t, ana.email, ana.password);
    const bob = await t.member({ name: 'Bob' });
    const closed = vi.spyOn(t.core.services.hub, 'closeSessions');
    const streams = await Promise.all([stream(ana.cookie), stream(phone)]);
    const bobs = await stream(bob.cookie);

    const off = await t.request('PATCH', `/members/${ana.id}`, {
      session: 'test',
      body: { active: false },
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    // Within the test's own deadline (5 s): the server ended both streams.
    await Promise.all(streams.map((s) => s.ended));
    // Ana's two, not Bob's.
    expect(closed.mock.results.map((r) => r.value)).toEqual([2]);
    expect((await me(ana.cookie)).status).toBe(401);
    expect((await me(phone)).status).toBe(401);
    expect((await me(bob.cookie)).status).toBe(200);
    bobs.close();
  }, 5000);

  it('a password change closes the member’s streams and ends their sessions; the asker gets a new one', async () => {
    const stream = await listening();
    const ana = await t.member({ name: 'Ana' });
    const phone = await signIn(t, ana.email, ana.password);
    const streams = await Promise.all([stream(ana.cookie), stream(phone)]);
    const change = (body: Record<string, string>) =>
      t.request('POST', '/api/me/password', { cookie: ana.cookie, body });
    const next = 'another long secret 7';

    // The current password is needed once one is set; the new one must pass the rule.
    const missing = await change({ password: next });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({
      code: 'invalid_credentials',
      param: 'currentPassword',
    });
    const wrong = await change({ currentPassword: 'not the password', password: next });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_credentials');
    const weak = await change({ currentPassword: ana.password, password: 'password1234' });
    expect(weak.status).toBe(400);
    expect(weak.body.error).toMatchObject({ code: 'validation_error', param: 'password' });
    // None of those ended anything.
    expect((await me(phone)).status).toBe(200);

    const changed = await change({ currentPassword: ana.password, password: next });
    expect(changed.status).toBe(204);
    const renewed = sessionTokenOf(changed)!;
    expect(renewed).toMatch(TOKEN);
    expect(renewed).not.toBe(ana.cookie);
    await Promise.all(streams.map((s) => s.ended));
    expect((await me(ana.cookie)).status).toBe(401);
    expect((await me(phone)).status).toBe(401);
    expect((await me(renewed)).status).toBe(200);
    expect((await sessionsOf(renewed)).map((s) => s.current)).toEqual([true]);

    expect((await login(ana.email, ana.password)).status).toBe(401);
    expect((await login(ana.email, next)).status).toBe(204);
  }, 5000);
});

describe('sign-in throttling', () => {
  const tooMany = (res: {
    status: number;
    headers: Record<string, unknown>;
    body: { error: { code: string } };
  }) => {
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    const wait = Number(res.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    return wait;
  };

  it('after 5 failures for an account, even the right password waits (429, Retry-After)', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const ana = await t.member({ name: 'Ana' });
    // From different addresses: it is the account that is throttled.
    for (let i = 1; i <= 5; i++) {
      const res = await login(ana.email, `wrong password ${i}`, { remoteAddress: `10.0.0.${i}` });
      expect(res.status, `failure ${i}`).toBe(401);
      expect(res.body.error.code).toBe('invalid_credentials');
    }
    const wait = tooMany(await login(ana.email, ana.password, { remoteAddress: '10.0.0.6' }));
    // Waiting does not count as failing: still the same wait after it.
    clock.advance(wait * 1000 - 1);
    tooMany(await login(ana.email, ana.password, { remoteAddress: '10.0.0.6' }));
    clock.advance(1);
    const ok = await login(ana.email, ana.password, { remoteAddress: '10.0.0.6' });
    expect(ok.status).toBe(204);
    expect((await me(sessionTokenOf(ok)!)).status).toBe(200);
  });

  it('throttles per client address too, across accounts', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const ana = await t.member({ name: 'Ana' });
    const bob = await t.member({ name: 'Bob' });
    const from = { remoteAddress: '10.0.0.7' };
    // Five accounts guessed at from one address (some exist, some not).
    for (const email of [
      'x1@example.com',
      bob.email,
      'x2@example.com',
      'x3@example.com',
      bob.email,
    ]) {
      expect((await login(email, 'guessing away', from)).status).toBe(401);
    }
    const wait = tooMany(await login(ana.email, ana.password, from));
    // Ana's account has no failure of its own: from elsewhere she signs in.
    expect((await login(ana.email, ana.password, { remoteAddress: '10.0.0.8' })).status).toBe(204);
    clock.advance(wait * 1000);
    expect((await login(ana.email, ana.password, from)).status).toBe(204);
  });
});
