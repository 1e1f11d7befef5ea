import { fileURLToPath } from 'node:url';
import { expect, test } from './fixtures.ts';

const fixture = (name: string) =>
  fileURLToPath(new URL(`../fixtures/contacts/${name}`, import.meta.url));

test('imports an Outlook export through the column-mapping step, with a changed mapping', async ({
  page,
}) => {
  await page.goto('/#/contacts');
  await expect(page.getByTestId('contacts-empty')).toContainText('No contacts yet');

  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByTestId('import-dialog');
  await dialog.getByTestId('import-file').setInputFiles(fixture('outlook.csv'));

  // The mapping step: the columns were matched by their names.
  const mapping = dialog.getByTestId('import-mapping');
  await expect(mapping).toBeVisible();
  const phone = mapping.getByLabel('Phone (required)');
  await expect(phone).toHaveValue('Mobile Phone');
  await expect(mapping.getByLabel(/^First name/)).toHaveValue('First Name');
  await expect(mapping.getByLabel('Middle name')).toHaveValue('Middle Name');
  await expect(mapping.getByLabel('Last name')).toHaveValue('Last Name');
  await expect(mapping.getByLabel('Email')).toHaveValue('E-mail Address');
  await expect(mapping.getByLabel(/^Labels/)).toHaveValue('Categories');
  await expect(dialog.getByTestId('import-detected')).toContainText('comma-separated, UTF-8');
  const rows = dialog.getByTestId('import-preview-row');
  await expect(rows.first()).toContainText('+447911123456');
  await expect(rows.first()).toContainText('Grace Hopper');
  await expect(rows.nth(1)).toContainText('Hans Peter Müller');
  await expect(dialog.getByTestId('import-check')).toHaveText(
    '3 rows: 3 will be imported, 0 have a problem.',
  );

  // Import the business numbers instead of the mobiles, and leave the middle names out.
  await phone.selectOption('Business Phone');
  await mapping.getByLabel('Middle name').selectOption('');
  await expect(rows.first()).toContainText('+12125550199');
  await expect(rows.nth(1)).toContainText('Hans Müller');
  await expect(dialog.getByTestId('import-check')).toHaveText(
    '3 rows: 3 will be imported, 0 have a problem.',
  );

  // At 1024×700 the mapping makes the body scroll; the Import button stays in the footer, in
  // view, outside the scrolling part.
  await page.setViewportSize({ width: 1024, height: 700 });
  const importButton = dialog.getByTestId('import-start');
  await expect(importButton).toBeInViewport({ ratio: 1 });
  expect(await importButton.evaluate((button) => !!button.closest('.dialog-footer'))).toBe(true);
  const body = dialog.locator('.dialog-body');
  expect(await body.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
  await body.evaluate((el) => el.scrollTo(0, 0));
  await expect(importButton).toBeInViewport({ ratio: 1 });

  await importButton.click();
  await expect(dialog.getByTestId('import-summary')).toHaveText(
    'Import finished: 3 created, 0 updated, 0 failed.',
  );
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();

  const list = page.getByTestId('contact-row');
  await expect(list).toHaveCount(3);
  await expect(list.filter({ hasText: '+12125550199' })).toContainText('Grace Hopper');
  await expect(list.filter({ hasText: '+493012345678' })).toContainText('Hans Müller');
  await expect(list.filter({ hasText: '+447911123456' })).toHaveCount(0);
});

test('imports Excel “Unicode Text” (UTF-16) and lets the user pick the phone column when none is named so', async ({
  page,
}) => {
  await page.goto('/#/contacts');
  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByTestId('import-dialog');

  await dialog.getByTestId('import-file').setInputFiles({
    name: 'crm.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('Kunde,Rufnummer\nAda,+4915112345678\n'),
  });
  const mapping = dialog.getByTestId('import-mapping');
  await expect(dialog.getByTestId('import-mapping-problem')).toContainText(
    'no phone column found; the columns are "Kunde", "Rufnummer"',
  );
  await expect(dialog.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();
  await mapping.getByLabel('Phone (required)').selectOption('Rufnummer');
  await mapping.getByLabel('Full name', { exact: true }).selectOption('Kunde');
  await expect(dialog.getByTestId('import-preview-row').first()).toContainText('+4915112345678');
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(dialog.getByTestId('import-summary')).toHaveText(
    'Import finished: 1 created, 0 updated, 0 failed.',
  );
  await dialog.getByTestId('import-again').click();

  await dialog.getByTestId('import-file').setInputFiles(fixture('excel-unicode-text.txt'));
  await expect(dialog.getByTestId('import-detected')).toContainText('tab-separated, UTF-16LE');
  await expect(dialog.getByTestId('import-preview-row').nth(1)).toContainText('+4915112345678');
  await expect(dialog.getByTestId('import-check')).toContainText(
    '3 rows: 2 will be imported, 1 have a problem (first: line 4',
  );
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(dialog.getByTestId('import-summary')).toHaveText(
    'Import finished: 1 created, 1 updated, 1 failed.',
  );
  await expect(dialog.getByTestId('import-errors')).toContainText('unknown country code +999');
});
