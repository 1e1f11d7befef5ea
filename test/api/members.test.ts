import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import {
  makeCore,
  manualClock,
  seedCampaign,
  sessionTokenOf,
  signIn,
  tempDir,
} from '../helpers.ts';

/**
 * Members and roles (design.md §6): invites, sign-in, role and grant changes, what an API key
 * may not do, and who a request acts as.
 */
let t: TestCore;
afterEach(async () => t?.close());

const DAY = 24 * 3600_000;
const PASSWORD = 'a long enough secret';
/** The owner, through the desktop window. */
const owner = { session: 'test' } as const;

const me = (cookie: string) => t.request('GET', '/api/me', { cookie });
const invite = (body: Record<string, unknown>) =>
  t.request('POST', '/members/invites', { ...owner, body });
const tokenOf = (inviteUrl: string) => inviteUrl.split('#token=')[1]!;
const preview = (token: string) => t.request('POST', '/invites/preview', { body: { token } });
const accept = (token: string, name = 'New Member', password = PASSWORD) =>
  t.request('POST', '/invites/accept', { body: { token, name, password } });
const patchMember = (
  id: string,
  body: Record<string, unknown>,
  auth: { cookie?: string; session?: 'test' } = owner,
) => t.request('PATCH', `/members/${id}`, { ...auth, body });

/** An inbound message from a customer: their conversation's id. */
async function conversation(key: string, phone = '+4915112000001'): Promise<string> {
  const res = await t.request('POST', '/api/simulator/inbound', {
    key,
    body: { phone, message: 'hello?' },
  });
  expect(res.status).toBeLessThan(300);
  const list = await t.request('GET', '/conversations', { key });
  return list.body.data.find((c: { contact: { phone: string } }) => c.contact.phone === phone).id;
}

describe('invites', () => {
  it('an invite makes a member who is signed in at once; its link works once', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const created = await invite({
      email: 'Ana@Example.com',
      name: 'Ana',
      role: 'agent',
      rights: ['campaigns'],
    });
    expect(created.status).toBe(201);
    expect(created.body.inviteUrl).toMatch(/\/join#token=[A-Za-z0-9]{43}$/);
    expect(created.body.expiresAt).toBe(new Date(clock.now() + 7 * DAY).toISOString());
    expect(created.body.emailed).toBe(false);
    expect(created.body.invite).toMatchObject({
      email: 'ana@example.com',
      name: 'Ana',
      role: 'agent',
      rights: ['campaigns'],
      invitedBy: 'Owner',
    });
    const pending = await t.request('GET', '/members/invites', owner);
    expect(pending.body.data.map((i: { id: string }) => i.id)).toEqual([created.body.invite.id]);
    const token = tokenOf(created.body.inviteUrl);

    const shown = await preview(token);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({
      workspace: 'Default',
      email: 'ana@example.com',
      name: 'Ana',
      role: 'agent',
      invitedBy: 'Owner',
      expiresAt: created.body.expiresAt,
    });

    // A weak password is refused, and does not spend the invite.
    for (const weak of ['eleven char', 'password1234']) {
      const res = await accept(token, 'Ana', weak);
      expect(res.status, weak).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'password' });
    }

    const joined = await accept(token, 'Ana Lima');
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({
      name: 'Ana Lima',
      email: 'ana@example.com',
      role: 'agent',
      rights: ['campaigns'],
      active: true,
      canSignIn: true,
    });
    const setCookie = String(joined.headers['set-cookie']);
    expect(setCookie).toMatch(/^parley_session=[A-Za-z0-9]{43}; /);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    const who = await me(sessionTokenOf(joined)!);
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({
      auth: 'session',
      role: 'agent',
      grants: ['campaigns'],
      member: {
        id: joined.body.id,
        name: 'Ana Lima',
        email: 'ana@example.com',
        role: 'agent',
        canSignIn: true,
      },
    });
    expect(who.body.rights).toContain('campaigns.write');
    expect(who.body.rights).not.toContain('members');
    expect(who.body.sessionId).toMatch(/^ses_/);

    // One use.
    const twice = await accept(token, 'Mallory');
    expect(twice.status).toBe(404);
    expect(twice.body.error.message).toMatch(/used already/);
    expect((await preview(token)).status).toBe(404);
    expect((await t.request('GET', '/members/invites', owner)).body.data).toEqual([]);
    const list = await t.request('GET', '/members', owner);
    expect(list.body.data.map((m: { name: string; role: string }) => [m.name, m.role])).toEqual([
      ['Owner', 'owner'],
      ['Ana Lima', 'agent'],
    ]);
    // A made-up token is no invite.
    expect((await preview('A'.repeat(43))).status).toBe(404);
  });

  it('expires after 7 days; can be withdrawn; a new invite to the address replaces the old', async () => {
    const clock = manualClock();
    t = await makeCore({ clock });
    const bo = await invite({ email: 'bo@example.com', name: 'Bo', role: 'agent' });
    clock.advance(7 * DAY - 1);
    expect((await preview(tokenOf(bo.body.inviteUrl))).status).toBe(200);
    clock.advance(1);
    const expired = await preview(tokenOf(bo.body.inviteUrl));
    expect(expired.status).toBe(404);
    expect(expired.body.error.message).toMatch(/expired/);
    expect((await accept(tokenOf(bo.body.inviteUrl))).status).toBe(404);
    expect((await t.request('GET', '/members/invites', owner)).body.data).toEqual([]);

    const cy = await invite({ email: 'cy@example.com', name: 'Cy', role: 'admin' });
    const revoke = () => t.request('DELETE', `/members/invites/${cy.body.invite.id}`, owner);
    expect((await revoke()).status).toBe(204);
    const withdrawn = await preview(tokenOf(cy.body.inviteUrl));
    expect(withdrawn.status).toBe(404);
    expect(withdrawn.body.error.message).toMatch(/withdrawn/);
    expect((await accept(tokenOf(cy.body.inviteUrl))).status).toBe(404);
    expect((await revoke()).status).toBe(409);
    expect((await t.request('DELETE', '/members/invites/inv_nope', owner)).status).toBe(404);

    const first = await invite({ email: 'dee@example.com', name: 'Dee', role: 'agent' });
    const second = await invite({ email: 'DEE@example.com', name: 'Dee', role: 'admin' });
    expect((await preview(tokenOf(first.body.inviteUrl))).body.error.message).toMatch(/withdrawn/);
    const pending = (await t.request('GET', '/members/invites', owner)).body.data;
    expect(pending.map((i: { id: string }) => i.id)).toEqual([second.body.invite.id]);
    const joined = await accept(tokenOf(second.body.inviteUrl), 'Dee');
    expect(joined.status).toBe(201);
    expect(joined.body.role).toBe('admin');

    // An active member who signs in already is not invited again.
    const again = await invite({ email: 'dee@example.com', name: 'Dee', role: 'agent' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_state', param: 'email' });
  });

  it('an agent added without sign-in accepts an invite to their address and keeps their id and work', async () => {
    t = await makeCore();
    const key = t.key('test');
    const added = await t.request('POST', '/agents', {
      ...owner,
      body: { name: 'Eve', email: 'eve@example.com' },
    });
    expect(added.status).toBe(201);
    const eve = added.body.id as string;
    const conv = await conversation(key);
    const assigned = await t.request('PATCH', `/conversations/${conv}`, {
      key,
      body: { assignee: eve },
    });
    expect(assigned.status).toBe(200);
    const before = (await t.request('GET', '/members', owner)).body.data;
    expect(before.find((m: { id: string }) => m.id === eve)).toMatchObject({ canSignIn: false });
    // No password yet: no sign-in.
    expect(
      (
        await t.request('POST', '/login', {
          body: { email: 'eve@example.com', password: PASSWORD },
        })
      ).status,
    ).toBe(401);

    const sent = await invite({ email: 'eve@example.com', name: 'Eve', role: 'agent' });
    expect(sent.status).toBe(201);
    const joined = await accept(tokenOf(sent.body.inviteUrl), 'Eve Adams');
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({ id: eve, name: 'Eve Adams', canSignIn: true });
    const cookie = sessionTokenOf(joined)!;
    expect((await me(cookie)).body.member.id).toBe(eve);
    // Her assignment is hers still: "mine" finds it.
    const mine = await t.request('GET', '/conversations?assignee=me', { cookie });
    expect(mine.body.data.map((c: { id: string }) => c.id)).toEqual([conv]);
    const agents = (await t.request('GET', '/agents', { key })).body.data;
    expect(agents.filter((a: { email: string }) => a.email === 'eve@example.com')).toEqual([
      expect.objectContaining({ id: eve, name: 'Eve Adams', active: true }),
    ]);
    // And she signs in with her password from now on.
    expect(await signIn(t, 'eve@example.com', PASSWORD)).toMatch(/^[A-Za-z0-9]{43}$/);
  });
  it('an invite never turns into the owner’s account, even when the owner took its address later', async () => {
    t = await makeCore();
    const ada = await t.member({ name: 'Ada', role: 'admin' });
    const sent = await t.request('POST', '/members/invites', {
      cookie: ada.cookie,
      body: { email: 'boss@example.com', name: 'Boss', role: 'agent' },
    });
    expect(sent.status).toBe(201);
    const took = await t.request('PATCH', '/api/me', {
      ...owner,
      body: { email: 'boss@example.com' },
    });
    expect(took.status).toBe(200);
    // Whoever holds the link (the admin who made it, too) does not set the owner's password.
    const res = await accept(tokenOf(sent.body.inviteUrl), 'Boss');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');
    expect(res.headers['set-cookie']).toBeUndefined();
    const who = await t.request('GET', '/api/me', owner);
    expect(who.status).toBe(200);
    expect(who.body.member).toMatchObject({ role: 'owner', canSignIn: false });
    const login = await t.request('POST', '/login', {
      body: { email: 'boss@example.com', password: PASSWORD },
    });
    expect(login.status).toBe(401);
  });
});

describe('sign-in', () => {
  it('POST /login signs a member in; any failure is one generic 401; a deactivated member cannot', async () => {
    t = await makeCore();
    const ana = await t.member({ name: 'Ana' });
    const ok = await t.request('POST', '/login', {
      body: { email: ana.email.toUpperCase(), password: ana.password },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers['cache-control']).toBe('no-store');
    const cookie = sessionTokenOf(ok)!;
    expect((await me(cookie)).body.member.id).toBe(ana.id);

    const failures = [
      { email: ana.email, password: 'not her password' },
      { email: 'nobody@example.com', password: ana.password },
    ];
    const answers = [];
    for (const body of failures) {
      const res = await t.request('POST', '/login', { body });
      expect(res.status).toBe(401);
      expect(res.headers['set-cookie']).toBeUndefined();
      answers.push(res.body);
    }
    expect(answers[0].error.code).toBe('invalid_credentials');

    expect((await patchMember(ana.id, { active: false })).status).toBe(200);
    const off = await t.request('POST', '/login', {
      body: { email: ana.email, password: ana.password },
    });
    expect(off.status).toBe(401);
    answers.push(off.body);
    // Whatever was wrong, the same answer.
    expect(answers.map((a) => JSON.stringify(a))).toEqual(
      Array(3).fill(JSON.stringify(answers[0])),
    );
    expect((await me(cookie)).status).toBe(401);

    expect((await patchMember(ana.id, { active: true })).status).toBe(200);
    expect(await signIn(t, ana.email, ana.password)).toBeTruthy();
  });

  it('the desktop owner sets an address and a password, then signs in like any member', async () => {
    t = await makeCore();
    const noEmail = await t.request('POST', '/api/me/password', {
      ...owner,
      body: { password: PASSWORD },
    });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body.error.param).toBe('email');
    const named = await t.request('PATCH', '/api/me', {
      ...owner,
      body: { email: 'Owner@Example.com' },
    });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({
      email: 'owner@example.com',
      role: 'owner',
      canSignIn: false,
    });
    const set = await t.request('POST', '/api/me/password', {
      ...owner,
      body: { password: PASSWORD },
    });
    expect(set.status).toBe(204);
    // The desktop window has no session to re-issue.
    expect(set.headers['set-cookie']).toBeUndefined();
    const cookie = await signIn(t, 'owner@example.com', PASSWORD);
    expect((await me(cookie)).body).toMatchObject({ role: 'owner', member: { canSignIn: true } });
    // Set once, the current password is asked for.
    const change = await t.request('POST', '/api/me/password', {
      ...owner,
      body: { password: 'yet another long one' },
    });
    expect(change.status).toBe(401);
  });
});

describe('roles and rights', () => {
  it('PATCH /members/:id changes role, rights and active, never the owner, never yourself out', async () => {
    t = await makeCore();
    const ada = await t.member({ name: 'Ada', role: 'admin' });
    const abe = await t.member({ name: 'Abe' });
    const asAda = { cookie: ada.cookie };

    const promoted = await patchMember(abe.id, { role: 'admin', rights: ['automation'] }, asAda);
    expect(promoted.status).toBe(200);
    // Rights are an agent's: an admin holds them all anyway.
    expect(promoted.body).toMatchObject({ role: 'admin', rights: [] });
    expect((await me(abe.cookie)).body.role).toBe('admin');
    const demoted = await patchMember(abe.id, { role: 'agent', rights: ['automation'] }, asAda);
    expect(demoted.body).toMatchObject({ role: 'agent', rights: ['automation'] });
    // At once, on the session that is open.
    expect((await me(abe.cookie)).body).toMatchObject({ role: 'agent', grants: ['automation'] });

    const ownerId = (await t.request('GET', '/api/me', owner)).body.member.id;
    for (const [body, auth] of [
      [{ role: 'agent' }, asAda],
      [{ active: false }, asAda],
      [{ rights: ['campaigns'] }, owner],
    ] as const) {
      const res = await patchMember(ownerId, body, auth);
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.body.error.code).toBe('invalid_state');
    }
    for (const [body, param] of [
      [{ active: false }, 'active'],
      [{ role: 'agent' }, 'role'],
    ] as const) {
      const res = await patchMember(ada.id, body, asAda);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'invalid_state', param });
    }
    // Your own name is fine.
    expect((await patchMember(ada.id, { name: 'Ada L.' }, asAda)).body.name).toBe('Ada L.');
    // An agent manages nobody.
    const refused = await patchMember(ada.id, { role: 'agent' }, { cookie: abe.cookie });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({ requires: 'members' });
    expect((await patchMember('agt_nobody', { active: false }, asAda)).status).toBe(404);

    const off = await patchMember(abe.id, { active: false }, asAda);
    expect(off.body.active).toBe(false);
    expect((await me(abe.cookie)).status).toBe(401);
    const members = (await t.request('GET', '/members', asAda)).body.data;
    expect(members.find((m: { id: string }) => m.id === abe.id)).toMatchObject({ active: false });
    const agents = (await t.request('GET', '/agents', asAda)).body.data;
    expect(agents.find((a: { id: string }) => a.id === abe.id)).toMatchObject({ active: false });
    // Back on: he signs in again (the ended sessions stay ended).
    expect((await patchMember(abe.id, { active: true }, asAda)).body.active).toBe(true);
    expect((await me(abe.cookie)).status).toBe(401);
    expect(await signIn(t, abe.email, abe.password)).toBeTruthy();
  });

  it('an agent creates campaigns only when granted `campaigns`', async () => {
    const dataDir = tempDir();
    const { groupId } = seedCampaign(dataDir, { contacts: 2 });
    t = await makeCore({ dataDir });
    const bea = await t.member({ name: 'Bea', rights: ['campaigns'] });
    const abe = await t.member({ name: 'Abe' });
    const create = (cookie: string, name: string) =>
      t.request('POST', '/campaigns', {
        cookie,
        body: { name, templateName: 'notice', variables: { '1': 'friend' }, target: { groupId } },
      });
    const granted = await create(bea.cookie, 'Bea’s sale');
    expect(granted.status).toBe(201);
    expect(granted.body.status).toBe('draft');
    const refused = await create(abe.cookie, 'Abe’s sale');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'forbidden',
      details: { requires: 'campaigns.write' },
    });
    expect(refused.body.error.message).toMatch(/grants you/);
    // Reading is every agent's.
    expect((await t.request('GET', '/campaigns', { cookie: abe.cookie })).status).toBe(200);
    // Granted now: it holds on his open session.
    expect((await patchMember(abe.id, { rights: ['campaigns'] })).status).toBe(200);
    expect((await create(abe.cookie, 'Abe’s sale')).status).toBe(201);
  });

  it('an API key never does what only a signed-in administrator does', async () => {
    t = await makeCore();
    const test = t.key('test');
    const live = t.key('live');
    const cases: [string, 'GET' | 'POST' | 'PUT' | 'PATCH', string, string, unknown?][] = [
      [test, 'GET', '/members', 'members'],
      [
        test,
        'POST',
        '/members/invites',
        'members',
        { email: 'x@example.com', name: 'X', role: 'admin' },
      ],
      [test, 'PATCH', '/members/agt_x', 'members', { active: false }],
      [test, 'GET', '/audit', 'audit'],
      [test, 'GET', '/audit/export', 'audit'],
      [live, 'PUT', '/api/channel', 'channel.manage', {}],
      [test, 'PUT', '/v1/email/settings', 'email_settings.manage', {}],
      [live, 'PUT', '/v1/email/settings', 'email_settings.manage', {}],
      [test, 'GET', '/sessions', 'sessions'],
    ];
    for (const [key, method, url, requires, body] of cases) {
      const res = await t.request(method, url, { key, ...(body ? { body } : {}) });
      expect([method, url, res.status]).toEqual([method, url, 403]);
      expect(res.body.error).toMatchObject({ code: 'forbidden', details: { requires } });
    }
  });
});

describe('who a request acts as', () => {
  it('a session is its member whatever X-Parley-Agent says; a key may name an active member', async () => {
    t = await makeCore();
    const key = t.key('test');
    const conv = await conversation(key);
    const ana = await t.member({ name: 'Ana' });
    const bob = t.agent('Bob');
    const reply = (text: string, auth: { key?: string; cookie?: string }, agent?: string) =>
      t.request('POST', `/conversations/${conv}/reply`, {
        ...auth,
        headers: agent ? { 'x-parley-agent': agent } : {},
        body: { text },
      });

    const own = await reply('from Ana', { cookie: ana.cookie }, bob.id);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ sentBy: 'agent', agentId: ana.id });
    const who = await t.request('GET', '/api/me', {
      cookie: ana.cookie,
      headers: { 'x-parley-agent': bob.id },
    });
    expect(who.body.member.id).toBe(ana.id);

    const forBob = await reply('for Bob', { key }, bob.id);
    expect(forBob.status).toBe(200);
    expect(forBob.body).toMatchObject({ sentBy: 'agent', agentId: bob.id });
    const claimed = await t.request('PATCH', `/conversations/${conv}`, {
      key,
      headers: { 'x-parley-agent': bob.id },
      body: { assignee: 'me' },
    });
    expect(claimed.body.assignee).toBe(bob.id);

    // Deactivated, Bob is named by nobody: refused where "me" is used, ignored elsewhere.
    expect((await patchMember(bob.id, { active: false })).status).toBe(200);
    const stale = { key, headers: { 'x-parley-agent': bob.id } };
    const mine = await t.request('GET', '/conversations?assignee=me', stale);
    expect(mine.status).toBe(400);
    expect(mine.body.error.param).toBe('X-Parley-Agent');
    const signed = await reply('as Bob again', { key }, bob.id);
    expect(signed.status).toBe(400);
    expect(signed.body.error.param).toBe('X-Parley-Agent');
    const claim = await t.request('PATCH', `/conversations/${conv}`, {
      ...stale,
      body: { assignee: 'me' },
    });
    expect(claim.status).toBe(400);
    expect((await t.request('GET', '/conversations', stale)).status).toBe(200);
  });
});
