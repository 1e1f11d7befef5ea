import { createApiKey, expect, test } from './fixtures.ts';

const HINT = 'Separate labels with commas or semicolons.';

test('one label rule everywhere: the contact dialog, the CSV help and the list, with the total shown', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-labels');
  for (let i = 0; i < 3; i++) {
    const response = await request.post('/api/contacts', {
      headers: { 'X-API-Key': key },
      data: { phone: `+1415555${2800 + i}`, name: `Customer ${i + 1}` },
    });
    expect(response.status(), await response.text()).toBe(201);
  }
  await page.goto('/#/contacts');
  await expect(page.getByTestId('contacts-count')).toHaveText('3 contacts');

  await page.getByTestId('open-add-contact').click();
  const dialog = page.getByTestId('contact-dialog');
  await expect(dialog).toContainText(HINT);
  await dialog.getByTestId('contact-phone').fill('+14155552899');
  await dialog.getByTestId('contact-name').fill('Dana Wholesale');
  await dialog
    .getByTestId('contact-labels')
    .fill('vip; wholesale, vip, a-label-long-enough-to-need-an-ellipsis-in-the-list');
  await dialog.getByTestId('contact-submit').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('contacts-count')).toHaveText('4 contacts');

  const row = page.getByTestId('contact-row').filter({ hasText: 'Dana Wholesale' });
  const chips = row.locator('.chip');
  await expect(chips).toHaveText([
    'vip',
    'wholesale',
    'a-label-long-enough-to-need-an-ellipsis-in-the-list',
  ]);
  // The long label is cut with an ellipsis inside its cell, its full text in the tooltip.
  const long = chips.nth(2);
  await expect(long).toHaveAttribute(
    'title',
    'a-label-long-enough-to-need-an-ellipsis-in-the-list',
  );
  expect(await long.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  await expect(long).toHaveCSS('text-overflow', 'ellipsis');

  // Reopened, the dialog writes them back in the same rule.
  await row.click();
  await expect(page.getByTestId('contact-labels')).toHaveValue(
    'vip, wholesale, a-label-long-enough-to-need-an-ellipsis-in-the-list',
  );
  await page.keyboard.press('Escape');

  await page.getByTestId('open-import').click();
  await expect(page.getByTestId('import-dialog')).toContainText(HINT.toLowerCase());
});
