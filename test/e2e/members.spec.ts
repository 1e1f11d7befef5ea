/**
 * Issue 20 end to end: the owner invites an agent on Members, the agent joins through the link
 * in their own browser, works within an agent's rights, and is signed out the moment the owner
 * deactivates them.
 */
import { expect, MEMBER_PASSWORD, test, waitForLiveUpdates } from './fixtures.ts';

/** Screens only an admin opens: hidden from an agent's sidebar, refused when opened by address. */
const ADMIN_SCREENS = [
  'settings/workspace',
  'settings/keys',
  'settings/channel',
  'settings/members',
  'settings/audit',
  'wallet',
  'playground',
] as const;

test('the owner invites an agent who joins through the link, works within an agent’s rights, and is signed out at once when deactivated', async ({
  page,
  context,
  server,
  newContext,
}) => {
  // The owner, on Members: only themselves so far, their role not editable.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/#/settings/members');
  await waitForLiveUpdates(page);
  const members = page.getByTestId('members-table').getByTestId('member-row');
  await expect(members).toHaveCount(1);
  await expect(members.getByTestId('member-name')).toHaveText('Owner');
  await expect(members.getByTestId('member-owner-fixed')).toBeVisible();
  await expect(page.getByTestId('invites-empty')).toBeVisible();

  // Invite Ann as an agent; email is not set up, so the link is copied from the screen.
  await page.getByTestId('invite-open').click();
  const dialog = page.getByTestId('invite-dialog');
  await dialog.getByTestId('invite-email').fill('ann@example.com');
  await dialog.getByTestId('invite-name').fill('Ann Lee');
  await expect(dialog.getByTestId('invite-role-agent')).toBeChecked();
  await dialog.getByTestId('invite-submit').click();
  const created = page.getByTestId('invite-created-dialog');
  await expect(created.getByTestId('invite-emailed')).toContainText('Email is not set up');
  await created.getByTestId('invite-copy').click();
  await expect(created.getByTestId('invite-copy')).toHaveText('Copied');
  const inviteUrl = await page.evaluate(() => navigator.clipboard.readText());
  expect(inviteUrl).toMatch(/^http:\/\/p\d+\.localhost:\d+\/join#token=\S+$/);
  expect(inviteUrl.startsWith(`${server.url}/join#token=`)).toBe(true);
  await expect(created.getByTestId('invite-url')).toHaveText(inviteUrl);
  // A loopback link opens only on this computer: the dialog says so and where to share the desk.
  await expect(created.getByTestId('invite-local-only')).toContainText(
    'This link opens only on this computer',
  );
  await expect(
    created
      .getByTestId('invite-local-only')
      .getByRole('link', { name: 'Share this desk on my network' }),
  ).toHaveAttribute('href', '#/settings/team');
  // The link runs inline in the sentence (a flex item would be blockified into a column).
  expect(
    await created
      .getByTestId('invite-local-only')
      .getByRole('link')
      .evaluate((el) => getComputedStyle(el).display),
  ).toBe('inline');
  await created.getByTestId('invite-done').click();
  await expect(page.getByTestId('invites-table').getByTestId('invite-row')).toContainText(
    'ann@example.com',
  );

  // Ann opens the link in her own browser: who invited her to what, then her name and password.
  const ann = await (await newContext()).newPage();
  await ann.goto(inviteUrl);
  const join = ann.getByTestId('join');
  await expect(join.getByTestId('join-preview')).toContainText('ann@example.com');
  await expect(join.getByTestId('join-preview')).toContainText('Owner');
  await expect(join.getByTestId('join-role')).toHaveText('Agent');
  await expect(join.getByTestId('join-name')).toHaveValue('Ann Lee');
  await join.getByTestId('join-password').fill(MEMBER_PASSWORD);
  await join.getByTestId('join-password-confirm').fill(MEMBER_PASSWORD);
  await join.getByTestId('join-submit').click();

  // She is signed in as herself, an agent; the invite link left the address bar.
  await expect(ann.getByTestId('current-member')).toHaveText('Ann Lee');
  await expect(ann.getByTestId('current-role')).toHaveText('Agent');
  await expect(ann).toHaveURL(`${server.url}/#/inbox`);
  await waitForLiveUpdates(ann);

  // The owner sees her among the members, able to sign in; the invite is used up.
  await page.reload();
  const annRow = members.filter({ hasText: 'Ann Lee' });
  await expect(annRow.getByTestId('member-role')).toHaveText('Agent');
  await expect(annRow.getByTestId('member-status')).toHaveText('Active');
  await expect(page.getByTestId('invites-empty')).toBeVisible();

  // An agent's sidebar has no admin screens; opened by address, each says what it needs.
  await expect(ann.getByTestId('nav-inbox')).toBeVisible();
  await expect(ann.getByTestId('nav-settings-account')).toBeVisible();
  for (const route of ADMIN_SCREENS) {
    await expect(ann.getByTestId(`nav-${route.replace('/', '-')}`)).toHaveCount(0);
    await ann.goto(`/#/${route}`);
    await expect(ann.getByTestId('screen-forbidden'), route).toBeVisible();
    await expect(ann.getByTestId('screen-forbidden'), route).toContainText('You need the');
  }

  // What the business builds stays readable, its writing controls disabled, saying why.
  await ann.goto('/#/templates');
  await expect(ann.getByTestId('screen-templates')).toBeVisible();
  await expect(ann.getByTestId('read-only-note')).toContainText(
    'You can read templates here but not change them.',
  );
  await expect(ann.getByTestId('new-template')).toBeDisabled();
  await expect(ann.getByTestId('new-template')).toHaveAttribute('title', /may not do this/);
  await ann.goto('/#/campaigns');
  await expect(ann.getByTestId('screen-campaigns')).toBeVisible();
  await expect(ann.getByTestId('read-only-note')).toContainText(
    'You can read campaigns here but not change them.',
  );
  await expect(ann.getByTestId('campaign-new')).toBeDisabled();
  // Contacts are hers to work with, not to carry away.
  await ann.goto('/#/contacts');
  await expect(ann.getByTestId('contacts-export')).toBeDisabled();
  await expect(ann.getByTestId('contacts-export')).toHaveAttribute('title', /may not do this/);
  await ann.goto('/#/inbox');
  await waitForLiveUpdates(ann);

  // The owner deactivates her: her open page shows the sign-in form within a second.
  // The table scrolls sideways to bring the row's menu button into view; a row menu closes on
  // any scroll, so let that scroll happen before the click opens it.
  const annMenu = annRow.getByTestId('member-menu');
  await annMenu.scrollIntoViewIfNeeded();
  await annMenu.click();
  await page.getByTestId('member-deactivate').click();
  const confirm = page.getByTestId('member-active-dialog');
  await expect(confirm).toContainText('signed out everywhere at once');
  const [deactivated] = await Promise.all([
    page.waitForResponse(
      (response) =>
        response.request().method() === 'PATCH' && /\/members\/[^/]+$/.test(response.url()),
    ),
    confirm.getByTestId('confirm-member-active').click(),
  ]);
  expect(deactivated.status()).toBe(200);
  await expect(ann.getByTestId('sign-in')).toBeVisible({ timeout: 1000 });
  await expect(ann.getByTestId('sign-in')).toContainText('Your session has ended');
  await expect(annRow.getByTestId('member-status')).toHaveText('Deactivated');

  // Her password no longer signs her in.
  await ann.getByTestId('sign-in-email').fill('ann@example.com');
  await ann.getByTestId('sign-in-password').fill(MEMBER_PASSWORD);
  await ann.getByTestId('sign-in-submit').click();
  await expect(ann.getByTestId('sign-in-error')).toHaveText('The email or password is not right.');
});
