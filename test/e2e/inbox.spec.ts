import {
  createApiKey,
  expect,
  test,
  type ParleyServer,
  simulateInbound,
  waitForLiveUpdates,
} from './fixtures.ts';

const PHONE = '+14155552671';
const LATE_PHONE = '+14155552672';

async function testKey(server: ParleyServer): Promise<string> {
  return createApiKey(server, 'test', 'e2e-inbox');
}

test('first run: the owner is signed in and works a conversation live from arrival to resolved and reopened', async ({
  page,
  request,
  server,
}) => {
  const key = await testKey(server);
  // A brisk simulated channel, so the ticks below move on quickly.
  const settings = await request.put('/api/simulator/settings', {
    headers: { 'X-API-Key': key },
    data: { deliveryLatencyMs: 50, readLatencyMs: 100 },
  });
  expect(settings.status(), await settings.text()).toBe(200);
  await page.goto('/');
  await expect(page).toHaveURL(/#\/inbox$/);
  await waitForLiveUpdates(page);

  // The top bar says who is answering: the signed-in member, here the workspace's owner.
  await expect(page.getByTestId('current-member')).toHaveText('Owner');
  await expect(page.getByTestId('current-role')).toHaveText('Owner');
  await expect(page.getByTestId('inbox-empty')).toContainText('No conversations yet');

  // A customer writes in: the conversation appears within a second, unread, with a notice.
  await simulateInbound(request, key, { phone: PHONE, message: 'Hi, where is my order?' });
  const row = page.getByTestId('conversation-row').filter({ hasText: PHONE });
  await expect(row).toBeVisible({ timeout: 1000 });
  await expect(row.getByTestId('conversation-preview')).toHaveText('Hi, where is my order?');
  await expect(row.getByTestId('unread-badge')).toHaveText('1');
  await expect(page.getByTestId('status-count-open')).toHaveText('1');
  await expect(page).toHaveTitle('(1) Parley');
  const notice = page.getByTestId('toast-info').filter({ hasText: `New message from ${PHONE}` });
  await notice.getByTestId('toast-action').click();

  // Opening it shows the thread and marks it read.
  const thread = page.getByTestId('thread');
  await expect(thread.getByTestId('thread-title')).toHaveText(PHONE);
  await expect(thread.getByTestId('message')).toHaveCount(1);
  await expect(thread.getByTestId('day-separator')).toHaveText('Today');
  await expect(row.getByTestId('unread-badge')).toHaveCount(0);
  await expect(page).toHaveTitle('Parley');
  await expect(page.getByTestId('contact-panel').getByTestId('panel-phone')).toHaveText(PHONE);

  // Inside the 24 h window the composer takes free text; Enter sends.
  const composer = page.getByTestId('reply-composer');
  await expect(composer).toHaveAttribute('data-kind', 'text');
  await expect(composer.getByTestId('service-window')).toHaveAttribute('data-open', 'true');
  await page.keyboard.press('r');
  await expect(composer.getByTestId('reply-text')).toBeFocused();
  await page.keyboard.type('Happy to help! Let me check.');
  await page.keyboard.press('Enter');
  const reply = thread.getByTestId('message').filter({ hasText: 'Happy to help! Let me check.' });
  await expect(reply).toHaveAttribute('data-direction', 'outbound');
  await expect(reply.getByTestId('message-sender')).toHaveText('Owner');
  // The simulated channel moves the ticks on; they follow the event stream.
  await expect(reply.getByTestId('message-status')).toHaveAttribute('data-status', 'read');
  await expect(row.getByTestId('conversation-preview')).toContainText('You: Happy to help!');

  // A private note: styled apart, never ticked.
  await composer.getByTestId('composer-mode-note').click();
  await composer.getByTestId('reply-text').fill('Order #4471 is in the warehouse.');
  await composer.getByTestId('reply-text').press('Enter');
  const note = thread.getByTestId('message').filter({ hasText: 'Order #4471' });
  await expect(note).toHaveAttribute('data-direction', 'note');
  await expect(note).toContainText('Private note');
  await expect(note.getByTestId('message-status')).toHaveCount(0);

  // Esc leaves the text box; `a` assigns to me.
  await page.keyboard.press('Escape');
  await page.keyboard.press('a');
  await expect(thread.getByTestId('assignee-name')).toHaveText('Owner');
  await expect(row.getByTestId('conversation-assignee')).toBeVisible();

  // A label, added from the header.
  await thread.getByTestId('add-label').click();
  await thread.getByTestId('label-input').fill('vip');
  await thread.getByTestId('label-input').press('Enter');
  await expect(thread.getByTestId('thread-label')).toHaveText(['vip']);
  await expect(row.getByTestId('conversation-label')).toHaveText(['vip']);

  // `e` resolves: it leaves the Open tab, the counts follow, the header says so.
  await page.keyboard.press('e');
  await expect(thread.getByTestId('thread-status')).toHaveText('Resolved');
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('status-count-open')).toHaveText('0');
  await expect(page.getByTestId('status-count-resolved')).toHaveText('1');

  // The customer writes again: the conversation reopens live, message and all.
  await simulateInbound(request, key, { phone: PHONE, message: 'Any news?' });
  await expect(thread.getByTestId('thread-status')).toHaveText('Open', { timeout: 1000 });
  await expect(thread.getByTestId('message').filter({ hasText: 'Any news?' })).toBeVisible();
  await expect(row).toBeVisible();
  await expect(page.getByTestId('status-count-open')).toHaveText('1');
  await expect(page.getByTestId('status-count-resolved')).toHaveText('0');
  // Assignment and labels survived the round trip.
  await expect(row.getByTestId('conversation-label')).toHaveText(['vip']);
});

test('outside the 24 h window the composer offers approved templates, with a preview', async ({
  page,
  request,
  server,
}) => {
  const key = await testKey(server);
  const headers = { 'X-API-Key': key };
  const created = await request.post('/api/templates', {
    headers,
    data: {
      name: 'order_followup',
      category: 'UTILITY',
      language: 'en',
      components: [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' }],
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  const { template } = (await created.json()) as { template: { id: string } };
  const reviewed = await request.post(`/api/simulator/templates/${template.id}/review`, {
    headers,
    data: { decision: 'approve' },
  });
  expect(reviewed.status(), await reviewed.text()).toBe(200);
  await simulateInbound(request, key, {
    phone: LATE_PHONE,
    message: 'Is this still on sale?',
    receivedAt: new Date(Date.now() - 25 * 3600e3).toISOString(),
  });

  await page.goto('/#/inbox');
  await waitForLiveUpdates(page);
  await page.getByTestId('conversation-row').filter({ hasText: LATE_PHONE }).click();

  const composer = page.getByTestId('reply-composer');
  await expect(composer).toHaveAttribute('data-kind', 'template');
  await expect(composer.getByTestId('service-window')).toHaveAttribute('data-open', 'false');
  await expect(composer.getByTestId('window-closed-note')).toContainText(
    'The customer hasn’t written in 24 h — send a template.',
  );
  await expect(composer.getByTestId('reply-text')).toHaveCount(0);

  const picker = composer.getByTestId('template-picker');
  await picker.getByTestId('reply-template-select').selectOption({ label: 'order_followup · en' });
  await picker.getByTestId('reply-var-1').fill('Sam');
  await picker.getByTestId('reply-var-2').fill('B-12');
  await expect(picker.getByTestId('reply-template-preview').getByTestId('preview-body')).toHaveText(
    'Hi Sam, your order B-12 has shipped.',
  );
  await picker.getByTestId('send-template').click();
  const sent = page
    .getByTestId('thread')
    .getByTestId('message')
    .filter({ hasText: 'Hi Sam, your order B-12 has shipped.' });
  await expect(sent).toHaveAttribute('data-direction', 'outbound');
  await expect(sent).toContainText('order_followup');
  await expect(page.getByTestId('contact-panel').getByTestId('recent-templates')).toContainText(
    'order_followup',
  );

  // Notes stay possible outside the window.
  await composer.getByTestId('composer-mode-note').click();
  await expect(composer).toHaveAttribute('data-kind', 'note');
  await composer.getByTestId('reply-text').fill('Offered the follow-up template.');
  await composer.getByTestId('reply-send').click();
  await expect(
    page.getByTestId('thread').getByTestId('message').filter({ hasText: 'Offered the follow-up' }),
  ).toHaveAttribute('data-direction', 'note');

  // `?` lists the shortcuts.
  await page.keyboard.press('Escape');
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcuts-dialog')).toContainText('Assign to me');
});
