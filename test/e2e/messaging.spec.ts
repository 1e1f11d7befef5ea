import { createApiKey, expect, test, waitForLiveUpdates } from './fixtures.ts';

const PHONE = '+14155552671';

test('creates a template with a live preview, sees it approved live, sends it from the API playground and watches the ticks', async ({
  page,
  server,
}) => {
  await page.goto('/#/templates');
  await expect(page.getByRole('heading', { name: 'Templates' })).toBeVisible();
  await waitForLiveUpdates(page);
  await expect(page.getByTestId('templates-empty')).toContainText('No templates yet');

  // (a) Create it in the editor; the preview follows the typing, sample values included.
  await page.getByTestId('new-template').click();
  const editor = page.getByTestId('template-editor');
  await expect(editor).toBeVisible();
  await editor.getByTestId('template-name').fill('order_shipped');
  await editor.getByTestId('template-body').fill('Hello {{1}}, your order {{2}} has shipped.');
  const preview = editor.getByTestId('template-preview');
  await expect(preview.getByTestId('preview-body')).toHaveText(
    'Hello {{1}}, your order {{2}} has shipped.',
  );
  await editor.getByTestId('template-sample-1').fill('Ann');
  await editor.getByTestId('template-sample-2').fill('A-1');
  await expect(preview.getByTestId('preview-body')).toHaveText(
    'Hello Ann, your order A-1 has shipped.',
  );
  await editor.getByTestId('template-footer').fill('Parley demo store');
  await expect(preview.getByTestId('preview-footer')).toHaveText('Parley demo store');
  await editor.getByTestId('add-button-QUICK_REPLY').click();
  await editor.getByTestId('button-0-text').fill('Track my order');
  await expect(preview.getByTestId('preview-button')).toHaveText('Track my order');
  await expect(editor.getByTestId('field-error')).toHaveCount(0);
  await editor.getByTestId('template-submit').click();

  const row = page.getByTestId('template-row').filter({ hasText: 'order_shipped' });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('template-status')).toHaveText('Pending');
  // The simulated provider reviews test templates after 2 s; the row follows the event stream.
  await expect(row.getByTestId('template-status')).toHaveText('Approved', { timeout: 10_000 });

  // (b) The API playground, with a test key made by the CLI, as a developer would.
  const key = await createApiKey(server, 'test');
  await page.getByTestId('nav-playground').click();
  await expect(page.getByRole('heading', { name: 'API playground' })).toBeVisible();
  await page.getByTestId('playground-key').fill(key);
  await expect(page.getByTestId('playground-key-env')).toHaveText('Test');
  await expect(page.getByTestId('live-key-warning')).toHaveCount(0);

  await page.getByTestId('endpoint-POST /api/send').click();
  await expect(page.getByTestId('playground-endpoint')).toHaveText('/api/send');
  const body = page.getByTestId('playground-body');
  // Prefilled from the request schema: required fields with placeholders, plus the variables map.
  expect(JSON.parse(await body.inputValue())).toEqual({
    phone: PHONE,
    templateName: '',
    variables: {},
  });
  await body.fill('{"phone": "+1415555');
  await expect(page.getByTestId('json-state')).toHaveText('Invalid JSON');
  await expect(page.getByTestId('playground-send')).toBeDisabled();
  await body.fill(
    JSON.stringify({
      phone: PHONE,
      templateName: 'order_shipped',
      variables: { '1': 'Ann', '2': 'A-1' },
    }),
  );
  await expect(page.getByTestId('json-state')).toHaveText('Valid JSON');

  const sent = page.waitForRequest((r) => r.url().endsWith('/api/send') && r.method() === 'POST');
  await page.getByTestId('playground-send').click();
  // Exactly like a script: the key and nothing of the desktop session.
  const headers = (await sent).headers();
  expect(headers['x-api-key']).toBe(key);
  expect(headers['x-parley-session']).toBeUndefined();
  expect(headers['x-parley-environment']).toBeUndefined();

  const response = page.getByTestId('playground-response');
  await expect(response.getByTestId('response-status')).toHaveText(/^200\b/);
  await expect(response.getByTestId('request-env')).toHaveText('Test');
  await expect(response.getByTestId('response-body')).toContainText('"success": true');
  await expect(response.getByTestId('response-body')).toContainText(/"channelMessageId": "\S+"/);
  await expect(page.getByTestId('history-item')).toHaveCount(1);
  await expect(page.getByTestId('history-item').first()).toContainText('/api/send');
  await expect(page.getByTestId('history-item').first()).toContainText('200');
  // The key is never kept in the history or anywhere else on the page.
  await expect(page.getByTestId('playground-history')).not.toContainText(key);

  // "Copy as curl" gives the same request for a terminal: real base URL, the key, the body.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('copy-curl').click();
  await expect(
    page.getByTestId('toast-success').filter({ hasText: 'curl command copied' }),
  ).toBeVisible();
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl).toContain(`curl -X POST '${server.url}/api/send'`);
  expect(curl).toContain(`-H 'X-API-Key: ${key}'`);
  expect(curl).toContain(`-H 'Content-Type: application/json'`);
  expect(curl).toContain(
    `-d '{"phone":"${PHONE}","templateName":"order_shipped","variables":{"1":"Ann","2":"A-1"}}'`,
  );

  // (c) The contact the send created: its thread, with ticks that move without a reload.
  await page.getByTestId('nav-contacts').click();
  const contact = page.getByTestId('contact-row').filter({ hasText: PHONE });
  await contact.getByTestId('open-messages').click();
  const drawer = page.getByTestId('messages-drawer');
  await expect(drawer).toBeVisible();
  const messages = drawer.getByTestId('message');
  await expect(messages).toHaveCount(1);
  await expect(messages.first()).toContainText('Hello Ann, your order A-1 has shipped.');
  await expect(messages.first().getByTestId('message-status')).toHaveAttribute(
    'data-status',
    /^(delivered|read)$/,
  );
  await expect(drawer.getByTestId('service-window')).toHaveAttribute('data-open', 'false');

  // Send again from the drawer and watch the new message's ticks advance live.
  await drawer.getByTestId('compose-template').selectOption({ label: 'order_shipped · en' });
  await drawer.getByTestId('compose-var-1').fill('Ben');
  await drawer.getByTestId('compose-var-2').fill('B-2');
  await expect(drawer.getByTestId('compose-preview')).toContainText(
    'Hello Ben, your order B-2 has shipped.',
  );
  await drawer.getByTestId('send-template').click();
  await expect(messages).toHaveCount(2);
  const second = messages.filter({ hasText: 'your order B-2' });
  await expect(second.getByTestId('message-status')).toHaveAttribute('data-status', 'delivered');
  await expect(second.getByTestId('message-status')).toHaveAttribute('data-status', 'read');

  // Test mode: the contact "replies", which opens the 24-hour window for free text.
  await drawer.getByTestId('simulate-inbound-text').fill('Thanks! When will it arrive?');
  await drawer.getByTestId('simulate-inbound-send').click();
  const inbound = messages.filter({ hasText: 'When will it arrive?' });
  await expect(inbound).toHaveAttribute('data-direction', 'inbound');
  await expect(drawer.getByTestId('service-window')).toHaveAttribute('data-open', 'true');
  await drawer.getByTestId('compose-mode-text').click();
  await drawer.getByTestId('compose-text').fill('Tomorrow before noon.');
  await drawer.getByTestId('send-text').click();
  await expect(messages.filter({ hasText: 'Tomorrow before noon.' })).toHaveAttribute(
    'data-direction',
    'outbound',
  );
});

test('checks template rules while typing, puts API errors on their field, and shows a rejection reason live', async ({
  page,
}) => {
  await page.goto('/#/templates');
  await waitForLiveUpdates(page);
  await page.getByTestId('new-template').click();
  const editor = page.getByTestId('template-editor');

  // Client-side rules, as the user types.
  await editor.getByTestId('template-name').fill('Spring Offer');
  await expect(editor.getByTestId('tpl-name-error')).toContainText('lowercase');
  await editor.getByTestId('template-name').fill('spring_offer');
  await expect(editor.getByTestId('tpl-name-error')).toHaveCount(0);
  await editor.getByTestId('template-body').fill('Hi {{1}}, see {{3}}');
  await expect(editor.getByTestId('tpl-body-error')).toContainText('{{2}} is missing');
  // "Add variable" fills the gap rather than adding {{4}}, then follows the last one.
  const addVariable = editor.getByTestId('add-variable');
  await expect(addVariable).toHaveText('Add variable {{2}}');
  await addVariable.click();
  await expect(editor.getByTestId('template-body')).toHaveValue('Hi {{1}}, see {{3}}{{2}}');
  await expect(editor.getByTestId('tpl-body-error')).toHaveCount(0);
  await expect(addVariable).toHaveText('Add variable {{4}}');
  await editor.getByTestId('template-footer').fill('Code {{1}}');
  await expect(editor.getByTestId('tpl-footer-error')).toContainText('cannot contain variables');
  await editor.getByTestId('template-footer').fill('');
  await editor.getByTestId('add-button-QUICK_REPLY').click();
  await editor.getByTestId('button-0-text').fill('This label is far too long to fit');
  await expect(editor.getByTestId('field-error')).toContainText('limit is 25');
  await editor.getByTestId('button-0-text').fill('Tell me more');
  await expect(editor.getByTestId('add-button-COPY_CODE')).toBeDisabled();

  // A policy break passes the form but not the (simulated) provider's review.
  await editor
    .getByTestId('template-body')
    .fill('Hi {{1}}, double your chips at our casino tonight!');
  await expect(editor.getByTestId('tpl-body-error')).toHaveCount(0);
  await editor.getByTestId('template-sample-1').fill('Ann');
  await editor.getByTestId('template-submit').click();
  const row = page.getByTestId('template-row').filter({ hasText: 'spring_offer' });
  await expect(row.getByTestId('template-status')).toHaveText('Pending');
  await expect(row.getByTestId('template-status')).toHaveText('Rejected', { timeout: 10_000 });
  await expect(row.getByTestId('template-rejection')).toContainText('casino');

  // The API's `error.param` lands on its field: a second template with the same name.
  await page.getByTestId('new-template').click();
  await editor.getByTestId('template-name').fill('spring_offer');
  await editor.getByTestId('template-body').fill('Our spring range is in.');
  await editor.getByTestId('template-submit').click();
  await expect(editor.getByTestId('tpl-name-error')).toContainText('exists already');
  await expect(editor.getByTestId('template-name')).toBeFocused();
  await editor.getByRole('button', { name: 'Cancel' }).click();

  // Edit the rejected one: it goes back to review, and is approved live this time.
  await row.getByTestId('edit-template').click();
  await expect(editor.getByTestId('template-name')).toBeDisabled();
  await editor.getByTestId('template-body').fill('Hi {{1}}, our spring range is in store now.');
  await editor.getByTestId('template-submit').click();
  await expect(row.getByTestId('template-status')).toHaveText(/^(Pending|Approved)$/);
  await expect(row.getByTestId('template-status')).toHaveText('Approved', { timeout: 10_000 });

  // Test mode: play the provider's part from the row menu.
  await row.getByTestId('template-menu').click();
  await page.getByTestId('simulate-review').click();
  const review = page.getByTestId('review-dialog');
  await review.getByTestId('review-pause').check();
  await review.getByTestId('confirm-review').click();
  await expect(review).toBeHidden();
  await expect(row.getByTestId('template-status')).toHaveText('Paused');

  await page.getByTestId('template-filter-APPROVED').click();
  await expect(page.getByTestId('templates-empty')).toContainText('No approved templates');
  await page.getByTestId('template-filter-ALL').click();

  // Deleting asks first.
  await row.getByTestId('template-menu').click();
  await page.getByTestId('delete-template').click();
  const confirm = page.getByTestId('delete-template-dialog');
  await expect(confirm).toContainText('Delete “spring_offer”?');
  await confirm.getByTestId('confirm-delete-template').click();
  await expect(row).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('templates-empty')).toContainText('No templates yet');
});

test('switching to live mode reconnects the stream to live data, and live approvals show when sending opens', async ({
  page,
}) => {
  await page.goto('/#/templates');
  await waitForLiveUpdates(page);
  await page.getByTestId('new-template').click();
  await page.getByTestId('template-name').fill('test_only');
  await page.getByTestId('template-body').fill('Simulated hello.');
  await page.getByTestId('template-submit').click();
  await expect(page.getByTestId('template-row').filter({ hasText: 'test_only' })).toHaveCount(1);

  await page.getByTestId('mode-live').click();
  await expect(page.getByTestId('templates-empty')).toContainText('No templates yet');
  await waitForLiveUpdates(page);

  await page.getByTestId('new-template').click();
  await expect(page.getByTestId('template-editor')).toContainText(
    'about 10 minutes after approval',
  );
  await page.getByTestId('template-name').fill('live_hello');
  await page.getByTestId('template-body').fill('Hello {{1}}, thanks for your order.');
  await page.getByTestId('template-submit').click();
  const row = page.getByTestId('template-row').filter({ hasText: 'live_hello' });
  await expect(row.getByTestId('template-status')).toHaveText('Pending');
  // The provider reviews live templates too; the event arrives on the live stream.
  await expect(row.getByTestId('template-status')).toHaveText('Approved', { timeout: 10_000 });
  // Live templates are sendable only after the post-approval wait (10 minutes by default).
  await expect(row.getByTestId('template-usable-at')).toContainText('Sendable from');
  // Simulated reviews are a test-mode tool.
  await row.getByTestId('template-menu').click();
  await expect(page.getByTestId('simulate-review')).toHaveCount(0);
  await page.keyboard.press('Escape');

  await page.getByTestId('mode-test').click();
  await expect(page.getByTestId('template-row').filter({ hasText: 'test_only' })).toHaveCount(1);
  await expect(page.getByTestId('template-row').filter({ hasText: 'live_hello' })).toHaveCount(0);
});
