/**
 * The list editor as a list is built (issue 24 item 6): which channel takes it, rows pasted from
 * a spreadsheet (a preview first, each wrong line said), a section duplicated, and a list the
 * WhatsApp Cloud API would refuse saved only after a confirm step naming the rule.
 */
import type { Page } from '@playwright/test';
import { audit } from './axe-audit.ts';
import { createApiKey, expect, test, waitForLiveUpdates } from './fixtures.ts';

/** Twelve rows as a spreadsheet copies them (tab-separated), with a header line and one bad row. */
const SHEET = [
  'Title\tDescription\tID',
  ...Array.from({ length: 12 }, (_, i) => `Topic ${i + 1}\tAbout topic ${i + 1}\ttopic-${i + 1}`),
  'A row title far too long for WhatsApp\t\t',
].join('\n');

async function startList(page: Page) {
  await page.goto('/#/interactive-lists/new');
  await waitForLiveUpdates(page);
  const editor = page.getByTestId('list-editor');
  await editor.getByTestId('list-name').fill('Help topics');
  await editor.getByTestId('list-body').fill('What can we help with?');
  await editor.getByTestId('list-buttonText').fill('Choose');
  await editor.getByTestId('list-sections-0-title').fill('Topics');
  return editor;
}

test('rows pasted from a spreadsheet are previewed, the editor says the Cloud API refuses 12 rows, and saving asks first', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-list-builder');
  const editor = await startList(page);

  // As built: both channels take a one-row list.
  const cloud = editor.getByTestId('list-channel-cloud');
  await expect(editor.getByTestId('list-channel-simulated')).toHaveAttribute('data-fits', 'true');
  await expect(cloud).toHaveAttribute('data-fits', 'true');
  await expect(cloud).toContainText('at most 10 rows in all');

  // Paste: the preview says what will be added, where, and which line can't be, with why.
  await editor.getByTestId('list-section-0-paste').click();
  const dialog = page.getByTestId('list-paste-dialog');
  await expect(dialog.getByRole('heading')).toHaveText('Paste rows into section 1');
  await dialog.getByTestId('list-paste-text').fill(SHEET);
  await expect(dialog.getByTestId('list-paste-row')).toHaveCount(12);
  await expect(dialog.getByTestId('list-paste-summary')).toHaveText(
    '12 rows will be added: 10 rows into section 1, 2 rows into a new section 2. The header line is skipped.',
  );
  await expect(dialog.getByTestId('list-paste-error')).toHaveText([
    'Line 14: Row title is at most 24 characters (it has 37)',
  ]);
  await expect(dialog.getByTestId('list-paste-cloud')).toContainText(
    'more than the 10 the WhatsApp Cloud API takes',
  );
  await dialog.getByTestId('list-paste-add').click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('toast-success')).toContainText('Added 12 rows');

  // The blank first row made way; the rest went into a new section after it.
  await expect(editor.getByTestId('list-counts')).toHaveText('2/10 sections · 12 rows');
  await expect(editor.getByTestId('list-sections-0-rows-0-title')).toHaveValue('Topic 1');
  await expect(editor.getByTestId('list-sections-0-rows-9-id')).toHaveValue('topic-10');
  await expect(editor.getByTestId('list-sections-1-title')).toHaveValue('Topics (2)');
  await expect(editor.getByTestId('list-sections-1-rows-1-title')).toHaveValue('Topic 12');

  // The editor says, as built, that the live channel would refuse it.
  await expect(cloud).toHaveAttribute('data-fits', 'false');
  await expect(cloud).toContainText('Refuses this list: it has 12 rows, 2 too many');
  await expect(editor.getByTestId('list-channel-simulated')).toHaveAttribute('data-fits', 'true');

  // Saving asks first and names the rule; Cancel keeps the form as it is.
  const save = editor.getByTestId('list-save');
  await save.click();
  const confirm = page.getByTestId('list-cloud-confirm');
  await expect(confirm.getByTestId('list-cloud-confirm-rule')).toContainText(
    'This list has 12 rows. The WhatsApp Cloud API takes at most 10 rows in a list',
  );
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page).toHaveURL(/#\/interactive-lists\/new$/);

  // Save anyway: saved as built (the simulated channel takes it).
  await save.click();
  await confirm.getByTestId('list-cloud-confirm-save').click();
  await expect(
    page.getByTestId('toast-success').filter({ hasText: 'Saved the list “Help topics”' }),
  ).toBeVisible();
  await expect(page).toHaveURL(/#\/interactive-lists$/);
  const row = page.getByTestId('lists-row').filter({ hasText: 'Help topics' });
  await expect(row.getByTestId('list-size')).toHaveText('2 sections · 12 rows');
  const listId = (await row.getAttribute('data-list-id'))!;
  const read = await request.get(`/interactive-lists/${listId}`, {
    headers: { 'X-API-Key': key },
  });
  expect(read.status()).toBe(200);
  const saved = (await read.json()) as { sections: { title: string; rows: unknown[] }[] };
  expect(saved.sections.map((s) => [s.title, s.rows.length])).toEqual([
    ['Topics', 10],
    ['Topics (2)', 2],
  ]);
});

test('a section is duplicated with new row ids; a list within 10 rows saves without asking', async ({
  page,
}) => {
  const editor = await startList(page);
  await editor.getByTestId('list-sections-0-rows-0-title').fill('Track my order');
  await editor.getByTestId('list-sections-0-rows-0-id').fill('track');
  await editor.getByTestId('list-section-0-add-row').click();
  await editor.getByTestId('list-sections-0-rows-1-title').fill('Returns');

  await editor.getByTestId('list-section-0-duplicate').click();
  await expect(editor.getByTestId('list-counts')).toHaveText('2/10 sections · 4 rows');
  await expect(editor.getByTestId('list-sections-1-title')).toHaveValue('Topics (copy)');
  await expect(editor.getByTestId('list-sections-1-rows-0-title')).toHaveValue('Track my order');
  await expect(editor.getByTestId('list-sections-1-rows-0-id')).toHaveValue('track-2');
  await expect(editor.getByTestId('list-sections-1-rows-1-title')).toHaveValue('Returns');
  await expect(editor.getByTestId('list-sections-0-rows-1-id')).toHaveValue('row-1');
  await expect(editor.getByTestId('list-sections-1-rows-1-id')).toHaveValue('row-2');
  // Ids stay unique: nothing blocks saving, and the copy is edited on its own.
  await editor.getByTestId('list-sections-1-title').fill('Delivery');
  await expect(editor.getByTestId('list-sections-0-title')).toHaveValue('Topics');
  await expect(editor.getByTestId('list-channel-cloud')).toHaveAttribute('data-fits', 'true');

  await editor.getByTestId('list-save').click();
  await expect(page.getByTestId('list-cloud-confirm')).toHaveCount(0);
  await expect(page).toHaveURL(/#\/interactive-lists$/);
  await expect(
    page.getByTestId('lists-row').filter({ hasText: 'Help topics' }).getByTestId('list-size'),
  ).toHaveText('2 sections · 4 rows');
});

test.describe('axe', () => {
  // axe is injected as a script, which the app's CSP refuses: this context bypasses it.
  test.use({ bypassCSP: true });

  test('the list editor is axe-clean with the channel note, the paste preview and the confirm step', async ({
    page,
  }) => {
    const found: string[] = [];
    const editor = await startList(page);
    found.push(...(await audit(page, 'list editor')));

    await editor.getByTestId('list-section-0-paste').click();
    const dialog = page.getByTestId('list-paste-dialog');
    await dialog.getByTestId('list-paste-text').fill(SHEET);
    await expect(dialog.getByTestId('list-paste-row')).toHaveCount(12);
    found.push(...(await audit(page, 'paste preview with an error line')));
    await dialog.getByTestId('list-paste-add').click();

    await expect(editor.getByTestId('list-channel-cloud')).toHaveAttribute('data-fits', 'false');
    found.push(...(await audit(page, 'list over the Cloud API limit')));
    await editor.getByTestId('list-save').click();
    await expect(page.getByTestId('list-cloud-confirm')).toBeVisible();
    found.push(...(await audit(page, 'Cloud API confirm')));

    expect(found, found.join('\n')).toEqual([]);
  });
});
