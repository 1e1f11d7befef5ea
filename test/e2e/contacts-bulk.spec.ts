/**
 * Contacts already here become a campaign's audience without importing them again: tick them in
 * the Contacts list, then add them to a group (new or existing) or give them a label. At a
 * 1024×700 laptop, by mouse and keyboard, axe-clean.
 */
import type { APIRequestContext } from '@playwright/test';
import { audit } from './axe-audit.ts';
import { apiPost, createApiKey, expect, signInLink, test } from './fixtures.ts';

async function apiGet(
  request: APIRequestContext,
  key: string,
  path: string,
): Promise<Record<string, unknown>> {
  const response = await request.get(path, { headers: { 'X-API-Key': key } });
  expect(response.status()).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

test('ticked contacts are added to a new group, to an existing one, and labelled', async ({
  browser,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-contacts-bulk');
  const names = ['Ana Demo', 'Ben Demo', 'Cleo Demo', 'Dan Demo', 'Eva Demo'];
  for (const [i, name] of names.entries()) {
    await apiPost(request, key, '/api/contacts', {
      phone: `+1415555320${i}`,
      name,
      // Ana's own label stays when the bulk label is added.
      labels: i === 0 ? ['vip'] : [],
    });
  }
  const vip = await apiPost(request, key, '/api/contacts/groups', { name: 'Regulars' });

  // axe is injected as a script, which the app's CSP refuses: this context bypasses it.
  const context = await browser.newContext({
    bypassCSP: true,
    baseURL: server.url,
    viewport: { width: 1024, height: 700 },
  });
  expect((await context.request.get(await signInLink(server), { maxRedirects: 0 })).status()).toBe(
    303,
  );
  const page = await context.newPage();

  await page.goto('/#/contacts');
  const rows = page.getByTestId('contact-row');
  await expect(rows).toHaveCount(5);
  const bar = page.getByTestId('contacts-bulk-bar');
  await expect(bar).toHaveCount(0);

  // Tick by mouse, and one by keyboard (Space on its checkbox): the row's dialog does not open.
  await page.getByRole('checkbox', { name: 'Select Ana Demo' }).check();
  await page.getByRole('checkbox', { name: 'Select Ben Demo' }).check();
  await page.getByRole('checkbox', { name: 'Select Cleo Demo' }).focus();
  await page.keyboard.press('Space');
  await expect(page.getByRole('checkbox', { name: 'Select Cleo Demo' })).toBeChecked();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Bulk actions' })).toBeVisible();
  await expect(page.getByTestId('contacts-bulk-count')).toHaveText('3 contacts selected');
  // The bar is on screen at 1024×700 and the page itself does not scroll.
  const box = (await bar.boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(700);
  expect(await page.evaluate(() => document.scrollingElement!.scrollTop)).toBe(0);
  expect(await audit(page, 'contacts with a selection')).toEqual([]);

  // A new group, made with them in it.
  await bar.getByRole('button', { name: 'Add to group…' }).click();
  const groupDialog = page.getByTestId('contacts-group-dialog');
  await expect(groupDialog).toBeVisible();
  await groupDialog.getByTestId('contacts-group-mode-new').check();
  await groupDialog.getByTestId('contacts-group-submit').click();
  await expect(groupDialog.getByRole('textbox', { name: 'New group’s name' })).toHaveAttribute(
    'aria-invalid',
    'true',
  );
  await groupDialog.getByRole('textbox', { name: 'New group’s name' }).fill('Spring customers');
  expect(await audit(page, 'add to group dialog')).toEqual([]);
  await groupDialog.getByTestId('contacts-group-submit').click();
  await expect(groupDialog).toHaveCount(0);
  await expect(
    page
      .getByTestId('toast-success')
      .filter({ hasText: 'Added 3 contacts to “Spring customers” (3 members).' }),
  ).toBeVisible();
  const groups = (await apiGet(request, key, '/api/contacts/groups')).data as {
    id: string;
    name: string;
    memberCount: number;
  }[];
  const spring = groups.find((g) => g.name === 'Spring customers')!;
  expect(spring.memberCount).toBe(3);
  const inSpring = (await apiGet(request, key, `/api/contacts?group=${spring.id}`)).data as {
    name: string;
  }[];
  expect(inSpring.map((c) => c.name).sort()).toEqual(['Ana Demo', 'Ben Demo', 'Cleo Demo']);

  // The selection stays for the next action: now an existing group.
  await expect(page.getByTestId('contacts-bulk-count')).toHaveText('3 contacts selected');
  await bar.getByRole('button', { name: 'Add to group…' }).click();
  await groupDialog
    .getByTestId('contacts-group-select')
    .selectOption({ label: 'Regulars (0 contacts)' });
  await groupDialog.getByTestId('contacts-group-submit').click();
  await expect(
    page
      .getByTestId('toast-success')
      .filter({ hasText: 'Added 3 contacts to “Regulars” (3 members).' }),
  ).toBeVisible();
  expect((await apiGet(request, key, `/api/contacts/groups/${String(vip.id)}`)).memberCount).toBe(
    3,
  );

  // A label, added to the labels each already has.
  await bar.getByRole('button', { name: 'Add label…' }).click();
  const labelDialog = page.getByTestId('contacts-label-dialog');
  await labelDialog.getByRole('textbox', { name: 'Label' }).fill('sale');
  expect(await audit(page, 'add label dialog')).toEqual([]);
  await labelDialog.getByTestId('contacts-label-submit').click();
  await expect(labelDialog).toHaveCount(0);
  await expect(
    page.getByTestId('toast-success').filter({ hasText: 'Labelled 3 contacts “sale”.' }),
  ).toBeVisible();
  await expect(rows.filter({ hasText: 'Ben Demo' })).toContainText('sale');
  const labelled = (await apiGet(request, key, '/api/contacts?label=sale')).data as {
    name: string;
    labels: string[];
  }[];
  expect(labelled.map((c) => c.name).sort()).toEqual(['Ana Demo', 'Ben Demo', 'Cleo Demo']);
  expect(labelled.find((c) => c.name === 'Ana Demo')!.labels.sort()).toEqual(['sale', 'vip']);

  // Select all ticks every row shown; again clears them; the bar goes.
  await page.getByTestId('contacts-select-all').check();
  await expect(page.getByTestId('contacts-bulk-count')).toHaveText('5 contacts selected');
  await page.getByTestId('contacts-select-all').uncheck();
  await expect(bar).toHaveCount(0);
  await context.close();
});
