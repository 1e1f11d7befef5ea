/**
 * Issue 21 end to end: a team desk (`parley serve --team`, on 127.0.0.1 only) and two agents,
 * each in their own Chromium that trusts exactly the desk's key through
 * `--ignore-certificate-errors-spki-list` (README "Working as a team", "In a browser"). They
 * join through their invite links over TLS and work one conversation together: who is viewing,
 * who is typing, a reply that crossed another (the conflict dialog), and a resolve that reaches
 * the other's list live.
 */
import type { APIRequestContext, BrowserContext, Page } from '@playwright/test';
import {
  createApiKey,
  expect,
  MEMBER_PASSWORD,
  simulateInbound,
  test,
  waitForLiveUpdates,
  type MemberInfo,
  type TeamDesk,
} from './fixtures.ts';

test.use({ team: true });

const PHONE = '+14155552671';

/** Another key's SPKI hash (32 bytes of zeros): a pin this desk does not match. */
const OTHER_SPKI = Buffer.alloc(32).toString('base64');

test('Chromium pinned to the desk’s key loads it over TLS with no certificate error; without the pin, or with another, it refuses', async ({
  server,
  pinnedBrowser,
}) => {
  const desk = server.team!;
  expect(desk.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

  const pinned = await pinnedBrowser();
  const page = pinned.pages()[0] ?? (await pinned.newPage());
  const response = await page.goto('/');
  expect(response?.status()).toBe(200);
  expect(new URL(page.url()).origin).toBe(desk.url);
  // The page came over TLS, with the desk's own certificate.
  const security = await response!.securityDetails();
  expect(security?.protocol).toMatch(/^TLS 1\.[23]$/);
  expect(security?.issuer).toBe(security?.subjectName);
  // It is the app, asking for a sign-in (nobody is signed in in this browser).
  await expect(page.getByTestId('sign-in')).toBeVisible();

  for (const spki of [null, OTHER_SPKI]) {
    const unpinned = await pinnedBrowser({ spki });
    const other = unpinned.pages()[0] ?? (await unpinned.newPage());
    await expect(other.goto('/'), `with ${spki ? 'another pin' : 'no pin'}`).rejects.toThrow(
      /net::ERR_CERT_AUTHORITY_INVALID/,
    );
  }
});

/**
 * The owner invites a teammate; the teammate opens the link in their pinned browser and joins. The
 * link names the desk by a LAN address: the test opens the same link on 127.0.0.1 (never a LAN
 * address), after checking that it names the desk's port and carries its fingerprint.
 */
async function joinOverTls(
  owner: APIRequestContext,
  desk: TeamDesk,
  browser: BrowserContext,
  invitee: { name: string; email: string },
): Promise<{ page: Page; member: MemberInfo }> {
  const invited = await owner.post('/members/invites', { data: { ...invitee, role: 'agent' } });
  expect(invited.status(), `POST /members/invites: ${await invited.text()}`).toBe(201);
  const link = new URL(((await invited.json()) as { inviteUrl: string }).inviteUrl);
  expect(link.protocol).toBe('https:');
  expect(link.port).toBe(new URL(desk.url).port);
  expect(link.pathname).toBe('/join');
  expect(new URLSearchParams(link.hash.slice(1)).get('fp')).toBe(desk.fingerprint);

  const page = browser.pages()[0] ?? (await browser.newPage());
  await page.goto(`/join${link.hash}`);
  const join = page.getByTestId('join');
  await expect(join.getByTestId('join-preview')).toContainText(invitee.email);
  await join.getByTestId('join-password').fill(MEMBER_PASSWORD);
  await join.getByTestId('join-password-confirm').fill(MEMBER_PASSWORD);
  await join.getByTestId('join-submit').click();
  await expect(page.getByTestId('current-member')).toHaveText(invitee.name);

  // Signed in over TLS: the session cookie is the `__Host-` one, Secure, for this origin only.
  const cookies = await browser.cookies(desk.url);
  const session = cookies.find((c) => c.name === '__Host-parley_session');
  expect(session, JSON.stringify(cookies.map((c) => c.name))).toBeDefined();
  expect(session).toMatchObject({ secure: true, httpOnly: true, domain: '127.0.0.1', path: '/' });

  const members = await owner.get('/members');
  const { data } = (await members.json()) as { data: MemberInfo[] };
  const member = data.find((m) => m.email === invitee.email);
  expect(member?.active).toBe(true);
  return { page, member: member! };
}

test('two agents on a TLS team desk see each other viewing and typing, a crossed reply asks first, and a resolve reaches the other live', async ({
  server,
  context,
  request,
  pinnedBrowser,
}) => {
  const desk = server.team!;
  // The owner is signed in on this machine's loopback listener (the fixture used the one-click
  // link `serve` printed); the invites are theirs.
  const owner = context.request;
  const ann = await joinOverTls(owner, desk, await pinnedBrowser(), {
    name: 'Ann Lee',
    email: 'ann@example.com',
  });
  const ben = await joinOverTls(owner, desk, await pinnedBrowser(), {
    name: 'Ben Ode',
    email: 'ben@example.com',
  });
  for (const { page } of [ann, ben]) {
    await page.goto('/#/inbox');
    await waitForLiveUpdates(page);
  }

  // A customer writes in: both lists show it live.
  const key = await createApiKey(server, 'test');
  await simulateInbound(request, key, { phone: PHONE, message: 'Hi, is my order on its way?' });
  const rowOf = (page: Page) => page.getByTestId('conversation-row').filter({ hasText: PHONE });
  await expect(rowOf(ann.page)).toBeVisible({ timeout: 5_000 });
  await expect(rowOf(ben.page)).toBeVisible({ timeout: 5_000 });

  // Ann opens it: Ben's list shows her there (an eye on the row, named).
  await rowOf(ann.page).click();
  const annThread = ann.page.getByTestId('thread');
  await expect(annThread.getByTestId('thread-title')).toHaveText(PHONE);
  const annViewing = rowOf(ben.page).getByTestId('conversation-viewing');
  await expect(annViewing).toBeVisible({ timeout: 5_000 });
  await expect(annViewing).toHaveAttribute('title', 'Ann Lee is viewing');

  // Ben opens it too: each sees the other's avatar in the header, and nobody sees themselves.
  await rowOf(ben.page).click();
  const benThread = ben.page.getByTestId('thread');
  await expect(benThread.getByTestId('thread-title')).toHaveText(PHONE);
  await expect(benThread.getByTestId('thread-viewer')).toHaveAttribute(
    'data-member-id',
    ann.member.id,
    { timeout: 5_000 },
  );
  await expect(annThread.getByTestId('thread-viewer')).toHaveAttribute(
    'data-member-id',
    ben.member.id,
    { timeout: 5_000 },
  );
  await expect(benThread.getByTestId('thread-viewer')).toHaveCount(1);
  await expect(annThread.getByTestId('thread-viewer')).toHaveCount(1);

  // Ann types: Ben reads "Ann Lee is typing…" above his composer.
  const annReply = 'Yes! It left our warehouse this morning.';
  const annText = annThread.getByTestId('reply-text');
  await annText.pressSequentially(annReply.slice(0, 12));
  await expect(ben.page.getByTestId('typing-indicator')).toHaveText('Ann Lee is typing…', {
    timeout: 5_000,
  });
  await expect(benThread.getByTestId('thread-viewer')).toHaveAttribute('data-typing', 'true');
  await annText.fill(annReply);

  // Both answer the customer's message at the same moment. Ben's Send leaves first but reaches
  // the desk after Ann's (held on the way, so the crossing is certain): the desk refuses it
  // and Ben's composer shows Ann's reply, asking first.
  const benReply = 'Hello! Your parcel is on the way.';
  await benThread.getByTestId('reply-text').fill(benReply);
  let release!: () => Promise<void>;
  let holding!: (body: Record<string, unknown>) => void;
  const held = new Promise<Record<string, unknown>>((resolve) => (holding = resolve));
  await ben.page.route(
    (url) => /^\/conversations\/[^/]+\/reply$/.test(url.pathname),
    (route) => {
      release = () => route.continue();
      holding(route.request().postDataJSON() as Record<string, unknown>);
    },
    { times: 1 },
  );
  await benThread.getByTestId('reply-text').press('Enter');
  const benBody = await held;
  expect(benBody).toMatchObject({ text: benReply, basedOnMessageId: expect.any(String) });

  await annText.press('Enter');
  const annSent = annThread.getByTestId('message').filter({ hasText: annReply });
  await expect(annSent).toHaveAttribute('data-direction', 'outbound');
  await expect(annSent.getByTestId('message-sender')).toHaveText('Ann Lee');

  await release();
  const conflict = ben.page.getByTestId('conflict-dialog');
  await expect(conflict).toBeVisible();
  await expect(conflict.getByTestId('conflict-message-text')).toHaveText(annReply);
  await expect(conflict).toContainText('Ann Lee');
  // Nothing of Ben's was sent; Ann's reply is in his thread already.
  await expect(benThread.getByTestId('message').filter({ hasText: benReply })).toHaveCount(0);
  await expect(benThread.getByTestId('message').filter({ hasText: annReply })).toHaveCount(1);

  // Ben sends his anyway: each reply is in both threads exactly once.
  await conflict.getByTestId('conflict-send-anyway').click();
  await expect(conflict).toHaveCount(0);
  for (const thread of [annThread, benThread]) {
    await expect(thread.getByTestId('message').filter({ hasText: benReply })).toHaveCount(1);
    await expect(thread.getByTestId('message').filter({ hasText: annReply })).toHaveCount(1);
    await expect(thread.getByTestId('message')).toHaveCount(3);
  }
  await expect(
    benThread.getByTestId('message').filter({ hasText: benReply }).getByTestId('message-sender'),
  ).toHaveText('Ben Ode');
  await expect(benThread.getByTestId('reply-text')).toHaveValue('');

  // Ann resolves it: it leaves Ben's Open list and his header says so, without a reload.
  await annThread.getByTestId('resolve').click();
  await expect(annThread.getByTestId('thread-status')).toHaveText('Resolved');
  await expect(benThread.getByTestId('thread-status')).toHaveText('Resolved', { timeout: 5_000 });
  await expect(rowOf(ben.page)).toHaveCount(0);
  await expect(ben.page.getByTestId('status-count-open')).toHaveText('0');
  await expect(ben.page.getByTestId('status-count-resolved')).toHaveText('1');
});
