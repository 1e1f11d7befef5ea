import type { Page } from '@playwright/test';
import {
  createApiKey,
  expect,
  joinAs,
  test,
  simulateInbound,
  waitForLiveUpdates,
} from './fixtures.ts';

const PHONE = '+14155552671';

async function openConversation(page: Page, phone: string): Promise<void> {
  await page.goto('/#/inbox');
  await waitForLiveUpdates(page);
  await page.getByTestId('conversation-row').filter({ hasText: phone }).click();
  await expect(page.getByTestId('thread').getByTestId('thread-title')).toHaveText(phone);
}

test('chat formatting keeps ids, addresses and arithmetic as written, and copying gives the raw text', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  const plain = 'Order ORD_2026_A for john_doe_99@example.com: 2*3*4 = 24';
  const formatted = '*Thanks* _a lot_, see `ORD_2026_A`';
  await simulateInbound(request, key, { phone: PHONE, message: plain });
  await simulateInbound(request, key, { phone: PHONE, message: formatted });
  await openConversation(page, PHONE);

  const thread = page.getByTestId('thread-messages');
  const first = thread.getByTestId('message').filter({ hasText: 'ORD_2026_A for' });
  await expect(first.getByTestId('message-text')).toHaveText(plain);
  await expect(first.locator('em, strong, s')).toHaveCount(0);
  await expect(first.getByRole('link', { name: 'john_doe_99@example.com' })).toHaveAttribute(
    'href',
    'mailto:john_doe_99@example.com',
  );

  const second = thread.getByTestId('message').filter({ hasText: 'Thanks' });
  await expect(second.getByTestId('message-text')).toHaveText('Thanks a lot, see ORD_2026_A');
  await expect(second.locator('strong')).toHaveText('Thanks');
  await expect(second.locator('em')).toHaveText('a lot');
  await expect(second.locator('code')).toHaveText('ORD_2026_A');

  // The copy button gives the message exactly as written.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await second.hover();
  await second.getByTestId('copy-message').click();
  await expect(
    page.getByTestId('toast-success').filter({ hasText: 'Message copied' }),
  ).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(formatted);

  // So does copying the selected bubble; a part of it copies what is shown.
  const copySelection = (partial: boolean) =>
    second.getByTestId('message-text').evaluate((body, partOnly) => {
      const range = document.createRange();
      if (partOnly) {
        const strong = body.querySelector('strong')!;
        range.selectNodeContents(strong);
      } else {
        range.selectNodeContents(body);
      }
      const selection = window.getSelection()!;
      selection.removeAllRanges();
      selection.addRange(range);
      const data = new DataTransfer();
      body.dispatchEvent(
        new ClipboardEvent('copy', { clipboardData: data, bubbles: true, cancelable: true }),
      );
      return data.getData('text/plain');
    }, partial);
  expect(await copySelection(false)).toBe(formatted);
  expect(await copySelection(true)).toBe('Thanks');
});

test('search inside a thread highlights matches, counts them and jumps, reading older pages', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  // 40 messages a second apart: the thread loads the newest 30, so message 2 is on an older page.
  const start = Date.now() - 3600_000;
  const text = (i: number) =>
    i === 38
      ? 'Refund? Yes, a refund.'
      : [2, 33, 35].includes(i)
        ? `message ${i} about the refund`
        : `message ${i}`;
  for (let i = 0; i < 40; i++) {
    await simulateInbound(request, key, {
      phone: PHONE,
      message: text(i),
      receivedAt: new Date(start + i * 1000).toISOString(),
    });
  }
  await openConversation(page, PHONE);
  const thread = page.getByTestId('thread');
  await expect(thread.getByTestId('message').last()).toContainText('message 39');

  // Ctrl/Cmd+F opens the thread's search, focused.
  await page.keyboard.press('ControlOrMeta+f');
  const input = thread.getByTestId('thread-search-input');
  await expect(input).toBeFocused();
  await input.fill('refund');

  const count = thread.getByTestId('thread-search-count');
  const current = thread.getByTestId('search-match-current');
  // `has` is matched inside each message, so it starts from the page.
  const currentMessage = thread
    .getByTestId('message')
    .filter({ has: page.getByTestId('search-match-current') });
  // The newest match first: the second "refund" of message 38.
  await expect(count).toHaveText('1 of 4');
  await expect(thread.getByTestId('search-match')).toHaveCount(3);
  await expect(current).toHaveText('refund');
  await expect(currentMessage).toContainText('Refund? Yes');

  await input.press('Enter');
  await expect(count).toHaveText('2 of 4');
  await expect(current).toHaveText('Refund');

  await thread.getByTestId('thread-search-older').click();
  await expect(count).toHaveText('3 of 4');
  await expect(currentMessage).toContainText('message 35 about');
  await thread.getByTestId('thread-search-older').click();
  await expect(count).toHaveText('4 of 4');
  await expect(currentMessage).toContainText('message 33 about');

  // Past the oldest loaded match, older pages are read until the next one turns up.
  await thread.getByTestId('thread-search-older').click();
  await expect(count).toHaveText('5 of 5');
  await expect(currentMessage).toContainText('message 2 about');
  await expect(current).toBeInViewport();
  await expect(thread.getByTestId('thread-search-older')).toBeDisabled();

  await thread.getByTestId('thread-search-newer').click();
  await expect(count).toHaveText('4 of 5');
  await expect(currentMessage).toContainText('message 33 about');
  await expect(current).toBeInViewport();

  // Escape closes it and the marks go; the inbox's own shortcuts work again.
  await input.press('Escape');
  await expect(thread.getByTestId('thread-search')).toHaveCount(0);
  await expect(thread.locator('mark')).toHaveCount(0);
});

test('a template sent from Contacts is the agent’s, and a live template in its wait is shown disabled until it is sendable', async ({
  context,
  newContext,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  const headers = { 'X-API-Key': key };
  // Ann, invited by the owner, works in her own browser.
  const annContext = await newContext();
  await joinAs(context.request, annContext, { name: 'Ann Lee', email: 'ann@example.com' });
  const page = await annContext.newPage();
  const template = {
    category: 'UTILITY',
    language: 'en',
    components: [{ type: 'BODY', text: 'Your order {{1}} is on its way.' }],
  };
  const created = await request.post('/api/templates', {
    headers,
    data: { name: 'order_update', ...template },
  });
  expect(created.status(), await created.text()).toBe(200);
  const { template: testTemplate } = (await created.json()) as { template: { id: string } };
  const approved = await request.post(`/api/simulator/templates/${testTemplate.id}/review`, {
    headers,
    data: { decision: 'approve' },
  });
  expect(approved.status(), await approved.text()).toBe(200);
  await simulateInbound(request, key, { phone: PHONE, message: 'Where is my order?' });

  await page.goto('/#/contacts');
  await waitForLiveUpdates(page);
  await expect(page.getByTestId('current-member')).toHaveText('Ann Lee');
  await page
    .getByTestId('contact-row')
    .filter({ hasText: PHONE })
    .getByTestId('open-messages')
    .click();
  const drawer = page.getByTestId('messages-drawer');
  await drawer.getByTestId('compose-mode-template').click();
  await drawer.getByTestId('compose-template').selectOption({ label: 'order_update · en' });
  await drawer.getByTestId('compose-var-1').fill('A-7');
  await drawer.getByTestId('send-template').click();
  await expect(drawer.getByTestId('message').filter({ hasText: 'A-7' })).toBeVisible();

  // In the inbox the send is labelled with the agent who made it, not "API".
  await page.getByTestId('nav-inbox').click();
  await page.getByTestId('conversation-row').filter({ hasText: PHONE }).click();
  const sent = page.getByTestId('thread').getByTestId('message').filter({ hasText: 'A-7' });
  await expect(sent.getByTestId('message-sender')).toHaveText('Ann Lee');

  // Live: the simulated provider approves at once, then the template waits a few seconds.
  const settings = await request.put('/api/simulator/settings', {
    headers,
    data: { reviewDelayMs: 100, approvalWaitMs: 8000 },
  });
  expect(settings.status(), await settings.text()).toBe(200);
  const liveKey = await createApiKey(server, 'live');
  const liveHeaders = { 'X-API-Key': liveKey };
  const contact = await request.post('/api/contacts', {
    headers: liveHeaders,
    data: { phone: PHONE, name: 'Sam Live' },
  });
  expect(contact.status(), await contact.text()).toBeLessThan(300);
  const live = await request.post('/api/templates', {
    headers: liveHeaders,
    data: { name: 'order_live', ...template },
  });
  expect(live.status(), await live.text()).toBe(200);
  const { template: liveTemplate } = (await live.json()) as { template: { id: string } };
  let usableAt = '';
  await expect
    .poll(async () => {
      const r = await request.get(`/api/templates/${liveTemplate.id}`, { headers: liveHeaders });
      const body = (await r.json()) as { status: string; usableAt: string | null };
      usableAt = body.usableAt ?? '';
      return body.status;
    })
    .toBe('APPROVED');
  expect(Date.parse(usableAt)).toBeGreaterThan(Date.now());

  await page.getByTestId('mode-live').click();
  await page.getByTestId('nav-contacts').click();
  await page
    .getByTestId('contact-row')
    .filter({ hasText: PHONE })
    .getByTestId('open-messages')
    .click();
  await drawer.getByTestId('compose-mode-template').click();
  const option = drawer
    .getByTestId('compose-template')
    .locator('option', { hasText: 'order_live' });
  const localTime = await page.evaluate(
    (iso) =>
      new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(
        new Date(iso),
      ),
    usableAt,
  );
  await expect(option).toHaveText(`order_live · en — sendable from ${localTime}`);
  await expect(option).toBeDisabled();
  // It turns sendable by itself when the wait is over, without a reload.
  await expect(option).toBeEnabled({ timeout: 15_000 });
  await expect(option).toHaveText('order_live · en');
});
