/**
 * Names (journeys.md journey 1, README "Workspace settings"): the owner renames the workspace and
 * its business account on Settings → Workspace; each name is checked by the core's rule as it is
 * saved, the top bar shows the new ones at once and after a reload, a teammate sees them too, and
 * an agent cannot change them (403).
 */
import { audit } from './axe-audit.ts';
import { expect, joinAs, test } from './fixtures.ts';

test.use({ viewport: { width: 1024, height: 700 } });

test('the owner renames the workspace and its business account; the top bar follows, an agent cannot', async ({
  context,
  newContext,
  page,
}) => {
  await page.goto('/#/settings/workspace');
  const card = page.getByTestId('ws-names');
  const name = card.getByTestId('ws-name');
  const account = card.getByTestId('ws-account-name');
  const save = card.getByTestId('ws-names-save');
  const topName = page.getByTestId('workspace-name');
  const topAccount = page.locator('.topbar .workspace-account');
  await expect(name).toHaveValue('Default');
  await expect(account).toHaveValue('Default business account');
  await expect(topName).toHaveText('Default');
  await expect(topAccount).toHaveText('· Default business account');
  // Nothing changed yet: nothing to save.
  await expect(save).toBeDisabled();

  // An empty name and a too long one are caught before anything is sent, the first focused.
  await name.fill('   ');
  await account.fill('x'.repeat(81));
  await save.click();
  await expect(card.getByTestId('ws-name-error')).toHaveText('Enter the workspace’s name.');
  await expect(card.getByTestId('ws-account-name-error')).toHaveText(
    'At most 80 characters (this one has 81).',
  );
  await expect(name).toBeFocused();
  await expect(topName).toHaveText('Default');

  // Saved (spaces at the ends dropped): the fields, the top bar, a toast.
  await name.fill('  Acme Shop ');
  await account.fill('Acme WhatsApp');
  await save.click();
  await expect(page.getByTestId('toast-success').last()).toContainText('Names saved.');
  await expect(name).toHaveValue('Acme Shop');
  await expect(save).toBeDisabled();
  await expect(topName).toHaveText('Acme Shop');
  await expect(topAccount).toHaveText('· Acme WhatsApp');

  // After a reload, from the core.
  await page.reload();
  await expect(page.getByTestId('workspace-name')).toHaveText('Acme Shop');
  await expect(page.locator('.topbar .workspace-account')).toHaveText('· Acme WhatsApp');
  await expect(page.getByTestId('ws-names').getByTestId('ws-account-name')).toHaveValue(
    'Acme WhatsApp',
  );

  // Abe, an agent, sees the new names in his own browser and cannot change them.
  const abe = await newContext();
  await joinAs(context.request, abe, { name: 'Abe Agent', email: 'abe@example.com' });
  const abePage = await abe.newPage();
  await abePage.goto('/#/inbox');
  await expect(abePage.getByTestId('current-member')).toHaveText('Abe Agent');
  await expect(abePage.getByTestId('workspace-name')).toHaveText('Acme Shop');
  const refused = await abe.request.patch('/api/workspace/settings', {
    data: { name: 'Abe’s shop' },
  });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({
    error: { code: 'forbidden', details: { requires: 'workspace.manage' } },
  });
  // The core names the field a bad name is in.
  const bad = await context.request.patch('/api/workspace/settings', {
    data: { businessAccountName: '' },
  });
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({
    error: { code: 'validation_error', param: 'businessAccountName' },
  });
  await page.reload();
  await expect(page.getByTestId('workspace-name')).toHaveText('Acme Shop');
});

test.describe('axe', () => {
  // axe is injected as a script, which the app's CSP refuses: this context bypasses it.
  test.use({ bypassCSP: true });

  test('the Names card is axe-clean, with errors too', async ({ page }) => {
    await page.goto('/#/settings/workspace');
    const card = page.getByTestId('ws-names');
    await expect(card.getByTestId('ws-name')).toHaveValue('Default');
    const found = await audit(page, 'workspace names');
    await card.getByTestId('ws-name').fill('');
    await card.getByTestId('ws-names-save').click();
    await expect(card.getByTestId('ws-name-error')).toBeVisible();
    found.push(...(await audit(page, 'workspace names with an error')));
    expect(found, found.join('\n')).toEqual([]);
  });
});
