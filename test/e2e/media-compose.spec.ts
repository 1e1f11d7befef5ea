/**
 * Media in the composers and players (issue 22), in Chromium against `parley serve`: a voice
 * note says how long it is before it is played (in the thread, the inbox preview and the
 * contacts drawer); the contacts drawer quotes a message like the inbox (the reply carries
 * `replyToMessageId` and shows the quote; axe clean with the quote above the composer); an
 * upload shows its real progress (the network slowed through the DevTools protocol) and Cancel
 * stops it, nothing sent.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { audit } from './axe-audit.ts';
import {
  apiPost,
  createApiKey,
  expect,
  signInLink,
  simulateInbound,
  test,
  waitForLiveUpdates,
} from './fixtures.ts';

const PHONE = '+14155552694';

interface ApiMessage {
  id: string;
  direction: string;
  type: string;
  text: string;
  media: { durationMs?: number | null; voice: boolean } | null;
  context: { messageId: string | null } | null;
}

/** The contact's messages, newest first, as a script reads them. */
async function messagesOf(request: APIRequestContext, key: string): Promise<ApiMessage[]> {
  const answer = await request.get(`/messages?phone=${encodeURIComponent(PHONE)}`, {
    headers: { 'X-API-Key': key },
  });
  expect(answer.status()).toBe(200);
  return ((await answer.json()) as { data: ApiMessage[] }).data;
}

/** Contacts → the contact's Messages drawer. */
async function openDrawer(page: Page) {
  await page.goto('/#/contacts');
  await waitForLiveUpdates(page);
  await page
    .getByTestId('contact-row')
    .filter({ hasText: PHONE })
    .getByTestId('open-messages')
    .click();
  return page.getByTestId('messages-drawer');
}

test('a voice note says how long it is before it is played: in the thread, the inbox preview and the drawer', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  await simulateInbound(request, key, { phone: PHONE, message: 'Listen to this.' });
  await apiPost(request, key, '/api/simulator/inbound', {
    phone: PHONE,
    media: { type: 'audio' },
  });
  // The bundled sample plays 2.0 s: the core measures it once the file is fetched.
  await expect
    .poll(async () => (await messagesOf(request, key))[0]?.media?.durationMs, { timeout: 15_000 })
    .toBeGreaterThan(1900);

  await page.goto('/#/inbox');
  await waitForLiveUpdates(page);
  const row = page.getByTestId('conversation-row').filter({ hasText: PHONE });
  await expect(row).toContainText('🎤 Voice note 0:02');
  await row.click();
  const voice = page
    .getByTestId('thread-messages')
    .getByTestId('message')
    .filter({
      has: page.getByTestId('media-audio'),
    });
  // The length shows beside the player, which has loaded nothing yet (the core said it).
  await expect(voice.getByTestId('media-duration')).toHaveText('0:02');
  await expect(voice.getByRole('group', { name: /^Voice note from .*, 2 seconds$/ })).toBeVisible();
  await expect(voice.getByTestId('media-audio')).toHaveAttribute('preload', 'none');

  // A message whose length the core does not know (durationMs null, as before it measured
  // them): the player reads it from the file's metadata, so it still shows before playing.
  await page.route(
    (url) => url.pathname === '/messages',
    async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace(/"durationMs":\d+/g, '"durationMs":null');
      await route.fulfill({ response, body });
    },
  );
  const drawer = await openDrawer(page);
  await expect(drawer.getByTestId('media-audio')).toHaveAttribute('preload', 'metadata');
  await expect(drawer.getByTestId('media-duration')).toHaveText('0:02');
  await expect(
    drawer.getByRole('group', { name: /^Voice note from .*, 2 seconds$/ }),
  ).toBeVisible();
});

test('the contacts drawer quotes a message: the reply carries replyToMessageId and shows the quote; axe clean with the quote above the composer', async ({
  page,
  request,
  server,
  browser,
}) => {
  const key = await createApiKey(server, 'test');
  await simulateInbound(request, key, { phone: PHONE, message: 'Is the parcel insured?' });
  await simulateInbound(request, key, { phone: PHONE, message: 'It was a gift.' });
  const [, question] = await messagesOf(request, key);
  expect(question?.text).toBe('Is the parcel insured?');

  const drawer = await openDrawer(page);
  const asked = drawer
    .getByTestId('message')
    .filter({ hasText: 'Is the parcel insured?', hasNot: page.getByTestId('quoted-message') });
  await asked.hover();
  await asked.getByTestId('reply-button').click();
  const quote = drawer.getByTestId('quote-preview');
  await expect(quote).toContainText('Replying to');
  await expect(quote.getByTestId('quote-preview-text')).toHaveText('Is the parcel insured?');
  await expect(quote).toHaveAttribute('data-active', 'true');
  // The agent types the answer right below it.
  await expect(drawer.getByTestId('compose-text')).toBeFocused();

  // In the Template tab the quote waits, saying why; back in Free text it goes with the reply.
  await drawer.getByTestId('compose-mode-template').click();
  await expect(quote).toHaveAttribute('data-active', 'false');
  await expect(quote.getByTestId('quote-preview-reason')).toContainText('can’t quote');
  await drawer.getByTestId('compose-mode-text').click();
  await expect(quote).toHaveAttribute('data-active', 'true');

  await drawer.getByTestId('compose-text').fill('Yes, up to 500 EUR.');
  await page.keyboard.press('Enter');
  await expect(quote).toHaveCount(0);
  const answer = drawer.getByTestId('message').filter({ hasText: 'Yes, up to 500 EUR.' });
  await expect(answer.getByTestId('quoted-message')).toContainText('Is the parcel insured?');
  await expect(answer.getByTestId('quoted-message')).toHaveAttribute(
    'data-quoted-id',
    question!.id,
  );
  const [sent] = await messagesOf(request, key);
  expect(sent).toMatchObject({
    direction: 'outbound',
    type: 'text',
    text: 'Yes, up to 500 EUR.',
    context: { messageId: question!.id },
  });

  // ✕ drops a quote: the next text goes without one.
  await asked.hover();
  await asked.getByTestId('reply-button').click();
  await drawer.getByTestId('quote-dismiss').click();
  await expect(quote).toHaveCount(0);
  await expect(drawer.getByTestId('compose-text')).toBeFocused();

  // axe on the drawer with a quote above its composer (a context without CSP: axe is a script).
  const context = await browser.newContext({ bypassCSP: true });
  const login = await context.request.get(await signInLink(server), { maxRedirects: 0 });
  expect(login.status()).toBe(303);
  const axePage = await context.newPage();
  const axeDrawer = await openDrawer(axePage);
  const again = axeDrawer
    .getByTestId('message')
    .filter({ hasText: 'Is the parcel insured?', hasNot: axePage.getByTestId('quoted-message') });
  await again.hover();
  await again.getByTestId('reply-button').click();
  await expect(axeDrawer.getByTestId('quote-preview')).toBeVisible();
  const found = await audit(axePage, 'contacts drawer, quote above the composer');
  expect(found, found.join('\n')).toEqual([]);
  await axeDrawer.getByTestId('compose-mode-template').click();
  await expect(axeDrawer.getByTestId('quote-preview-reason')).toBeVisible();
  const waiting = await audit(axePage, 'contacts drawer, quote waiting (template)');
  expect(waiting, waiting.join('\n')).toEqual([]);
  await context.close();
});

test('an upload shows its real progress, and Cancel stops it: nothing is sent', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  await simulateInbound(request, key, { phone: PHONE, message: 'Can you send the manual?' });
  await page.goto('/#/inbox');
  await waitForLiveUpdates(page);
  await page.getByTestId('conversation-row').filter({ hasText: PHONE }).click();
  await expect(page.getByTestId('thread').getByTestId('thread-title')).toHaveText(PHONE);

  // The network slowed to 512 KB/s up: a 3 MB PDF takes seconds to go up.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 512 * 1024,
  });
  await page.getByTestId('drop-zone').evaluate((zone) => {
    const pdf = new File(
      [
        new TextEncoder().encode('%PDF-1.4\n'),
        new Uint8Array(3 * 1024 * 1024),
        new TextEncoder().encode('\n%%EOF\n'),
      ],
      'manual.pdf',
      { type: 'application/pdf' },
    );
    const transfer = new DataTransfer();
    transfer.items.add(pdf);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      zone.dispatchEvent(
        new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }),
      );
    }
  });
  await expect(page.getByTestId('attachment-preview')).toHaveAttribute('data-phase', 'ready');
  const aborted = page.waitForEvent(
    'requestfailed',
    (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/media',
  );
  await page.getByTestId('reply-send').click();

  // A real share, between nothing and all of it, as the bar's value and in words.
  const bar = page.getByRole('progressbar', { name: 'Uploading manual.pdf' });
  await expect(bar).toBeVisible();
  await expect
    .poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 8_000 })
    .toBeGreaterThanOrEqual(10);
  const now = Number(await bar.getAttribute('aria-valuenow'));
  expect(now).toBeLessThan(100);
  await expect(bar).toHaveAttribute('aria-valuemin', '0');
  await expect(bar).toHaveAttribute('aria-valuemax', '100');
  await expect(bar).toHaveAttribute('aria-valuetext', / of 3 MB\)$/);
  await expect(page.getByTestId('attachment-percent')).toHaveText(/^\d{1,2}%$/);

  // One Cancel while the file goes up: the card's, not a second one in the tray's header.
  await expect(
    page.getByTestId('attachment-tray').getByRole('button', { name: /Cancel/ }),
  ).toHaveCount(1);
  await expect(page.getByTestId('attachment-cancel')).toHaveCount(0);

  // Cancel on the card aborts the request: the file stays, ready to send, with no error.
  await page.getByRole('button', { name: 'Cancel the upload of manual.pdf' }).click();
  expect((await aborted).failure()?.errorText).toContain('ABORTED');
  await expect(page.getByTestId('attachment-preview')).toHaveAttribute('data-phase', 'ready');
  await expect(bar).toHaveCount(0);
  await expect(page.getByTestId('attachment-error')).toHaveCount(0);
  await expect(page.getByTestId('reply-error')).toHaveCount(0);
  const [newest] = await messagesOf(request, key);
  expect(newest).toMatchObject({ direction: 'inbound', text: 'Can you send the manual?' });

  // At full speed again it goes.
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  await page.getByTestId('reply-send').click();
  await expect(page.getByTestId('attachment-preview')).toHaveCount(0, { timeout: 15_000 });
  await expect(
    page.getByTestId('thread-messages').getByTestId('media-file').filter({ hasText: 'manual.pdf' }),
  ).toBeVisible();

  // The core's refusal comes back through the same error envelope: a page named photo.png
  // (415 after sniffing) is said on its card in plain words.
  await page.getByTestId('attach-input').setInputFiles({
    name: 'photo.png',
    mimeType: 'image/png',
    buffer: Buffer.from('<!doctype html><title>not a photo</title><p>hello</p>'),
  });
  await page.getByTestId('reply-send').click();
  await expect(page.getByTestId('attachment-error')).toContainText(
    'WhatsApp can’t send this file: its contents are',
  );
});
