import { apiPost, createApiKey, expect, test } from './fixtures.ts';

const PHONE = '+14155552681';

test('a canned reply made on its screen is inserted with / in the composer, filled for the contact, and sent', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-canned');

  // The screen starts by explaining what canned replies are.
  await page.goto('/');
  await page.getByTestId('nav-canned-replies').click();
  const screen = page.getByTestId('screen-canned-replies');
  await expect(screen.getByRole('heading', { level: 1 })).toHaveText('Canned replies');
  await expect(screen.getByTestId('canned-empty')).toContainText('type /');
  await screen.getByTestId('canned-create-first').click();

  // The editor checks placeholders with the core's rule and previews them for a sample contact.
  const dialog = page.getByTestId('canned-dialog');
  await dialog.getByLabel('Shortcut').fill('thanks');
  await dialog.getByLabel('Text').fill('Hi {{contact.nmae}}');
  await dialog.getByTestId('canned-save').click();
  await expect(dialog.getByTestId('canned-text-error')).toContainText(
    'Unknown placeholder {{contact.nmae}}',
  );
  await dialog
    .getByLabel('Text')
    .fill(
      'Hi {{contact.name}}, order {{contact.attributes.order}} ships today. We will email {{contact.email}}.',
    );
  await expect(dialog.getByTestId('canned-preview')).toHaveText(
    'Hi Ada Lovelace, order A-1042 ships today. We will email ada@example.com.',
  );
  await dialog.getByTestId('canned-save').click();
  await expect(dialog).toBeHidden();
  const row = screen.getByTestId('canned-row').filter({ hasText: '/thanks' });
  await expect(row).toBeVisible();

  // A second one, through the API: the picker filters as the shortcut is typed.
  await apiPost(request, key, '/canned-replies', {
    shortcut: 'hours',
    text: 'We are open 9–17, Monday to Friday.',
  });
  await expect(page.getByTestId('nav-canned-replies')).toHaveAttribute('aria-current', 'page');
  await screen.getByTestId('canned-search').fill('order');
  await expect(screen.getByTestId('canned-row')).toHaveCount(1);

  // A customer without an email writes in.
  await apiPost(request, key, '/api/contacts', {
    phone: PHONE,
    name: 'Grace Hopper',
    attributes: { order: 'B-77' },
  });
  await apiPost(request, key, '/api/simulator/inbound', { phone: PHONE, message: 'Where is it?' });
  await page.getByTestId('nav-inbox').click();
  await page.getByTestId('conversation-row').filter({ hasText: 'Grace Hopper' }).click();
  const composer = page.getByTestId('reply-composer');
  const input = composer.getByTestId('reply-text');
  await input.click();

  // `/` opens the picker with both; typing narrows it; Escape closes it and keeps the text.
  await page.keyboard.type('/');
  const picker = composer.getByTestId('canned-picker');
  await expect(picker.getByRole('option')).toHaveText([/\/hours/, /\/thanks/]);
  await page.keyboard.type('th');
  await expect(picker.getByRole('option')).toHaveCount(1);
  await expect(input).toHaveAttribute(
    'aria-activedescendant',
    (await picker.getByRole('option').getAttribute('id'))!,
  );
  await page.keyboard.press('Escape');
  await expect(picker).toBeHidden();
  await expect(input).toHaveValue('/th');
  await expect(input).toBeFocused();

  // It stays closed for that `/`; a new `/` opens it again. Arrows move, Enter inserts with
  // the contact's details filled in.
  await page.keyboard.press('Backspace');
  await expect(picker).toBeHidden();
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('/');
  await expect(picker.getByRole('option')).toHaveCount(2);
  await page.keyboard.press('ArrowDown');
  await expect(picker.getByRole('option', { selected: true })).toContainText('/thanks');
  await page.keyboard.press('Enter');
  await expect(picker).toBeHidden();
  await expect(input).toHaveValue(
    'Hi Grace Hopper, order B-77 ships today. We will email {{contact.email}}.',
  );

  // The missing email stays, selected and explained; it cannot be sent until it is replaced.
  await expect(composer.getByTestId('reply-unfilled')).toContainText('{{contact.email}}');
  await page.keyboard.type('grace@example.com');
  await expect(composer.getByTestId('reply-unfilled')).toBeHidden();
  await page.keyboard.press('Enter');

  const sent = 'Hi Grace Hopper, order B-77 ships today. We will email grace@example.com.';
  const message = page.getByTestId('thread').getByTestId('message').filter({ hasText: sent });
  await expect(message).toHaveAttribute('data-direction', 'outbound');
  await expect(input).toHaveValue('');
});

test('a canned reply is edited and deleted on its screen', async ({ page, request, server }) => {
  const key = await createApiKey(server, 'test', 'e2e-canned');
  await apiPost(request, key, '/canned-replies', {
    shortcut: 'bye',
    text: 'Bye {{contact.name}}!',
  });
  await page.goto('/#/canned-replies');
  const screen = page.getByTestId('screen-canned-replies');
  const row = screen.getByTestId('canned-row').filter({ hasText: '/bye' });
  await row.getByTestId('canned-edit').click();
  const dialog = page.getByTestId('canned-dialog');
  await expect(dialog.getByLabel('Shortcut')).toHaveValue('bye');
  await dialog.getByLabel('Text').fill('Goodbye {{contact.name}}!');
  await dialog.getByTestId('canned-save').click();
  await expect(row.getByTestId('canned-row-text')).toHaveText('Goodbye {{contact.name}}!');

  await row.getByTestId('canned-delete').click();
  await page.getByTestId('canned-delete-confirm').click();
  await expect(screen.getByTestId('canned-empty')).toBeVisible();
});
