/**
 * Settings → Channel against a fake Graph API (a real HTTP peer on 127.0.0.1 that answers like
 * Meta and signs its webhooks): connected through the form, checked, then a customer writes in
 * through a signed webhook and the agent's reply goes out through the Cloud API and is ticked
 * by Meta's status webhooks. Never the internet.
 */
import type { Page } from '@playwright/test';
import { startFakeGraph, type FakeGraph } from '../fake-graph.ts';
import * as meta from '../fixtures/meta/webhooks.ts';
import { audit } from './axe-audit.ts';
import { allowPrivateTargets, expect, signInLink, test, waitForLiveUpdates } from './fixtures.ts';

const CUSTOMER_WA = '14155550123';
const CUSTOMER = `+${CUSTOMER_WA}`;

let fake: FakeGraph | null = null;
test.afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function switchToLive(page: Page): Promise<void> {
  await page.getByTestId('mode-live').click();
  await expect(page.getByTestId('mode-live')).toHaveAttribute('aria-pressed', 'true');
}

/** Settings → Channel in live mode: the fake's credentials typed in, then a passing check. */
async function connectInUi(page: Page, graph: FakeGraph): Promise<void> {
  await allowPrivateTargets(page.request);
  await page.goto('/#/settings/channel');
  await switchToLive(page);
  const form = page.getByTestId('channel-settings-form');
  await form.getByTestId('channel-provider-cloud_api').check();
  await form.getByTestId('channel-phone-number-id').fill(graph.phoneNumberId);
  await form.getByTestId('channel-waba-id').fill(graph.wabaId);
  await form.getByTestId('channel-access-token').fill(graph.accessToken);
  await form.getByTestId('channel-app-secret').fill(graph.appSecret);
  await form.getByTestId('channel-advanced').click();
  await form.getByTestId('channel-graph-base-url').fill(graph.baseUrl);
  await page.getByTestId('channel-check').click();
  await expect(page.getByTestId('channel-check-result')).toHaveAttribute('data-ok', 'true');
}

/** The customer's text arrives as Meta's signed webhook; the agent opens it in the live inbox. */
async function customerWritesIn(
  page: Page,
  graph: FakeGraph,
  webhookUrl: string,
  text: string,
): Promise<void> {
  await page.getByTestId('nav-inbox').click();
  await waitForLiveUpdates(page);
  graph.setWebhookUrl(webhookUrl);
  expect(await graph.post(graph.inboundText({ from: CUSTOMER_WA, name: 'Ann', text }))).toBe(200);
  // The contact takes the WhatsApp profile name Meta sends with the message.
  const row = page.getByTestId('conversation-row').filter({ hasText: 'Ann' });
  await expect(row.getByTestId('conversation-preview')).toHaveText(text);
  await row.click();
  const thread = page.getByTestId('thread');
  await expect(thread.getByTestId('thread-title')).toHaveText('Ann');
  await expect(page.getByTestId('panel-phone')).toHaveText(CUSTOMER);
  await expect(thread.getByTestId('message').filter({ hasText: text })).toHaveAttribute(
    'data-direction',
    'inbound',
  );
}

test('test mode keeps the simulator; in live mode the Cloud API is connected through the form, checked, and brings customers’ messages in', async ({
  page,
  server,
}) => {
  const graph = await startFakeGraph({ tier: 'TIER_10K', throughputLevel: 'HIGH' });
  fake = graph;
  await allowPrivateTargets(page.request);

  // Test mode: no form, the plain reason why.
  await page.goto('/#/settings/channel');
  await expect(page.getByTestId('mode-test')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Channel');
  await expect(page.getByTestId('channel-test-mode')).toContainText(
    'Test mode always uses the simulated channel. Switch to live to connect WhatsApp.',
  );
  await expect(page.getByTestId('channel-settings-form')).toHaveCount(0);

  // Live mode: simulated until connected.
  await switchToLive(page);
  await waitForLiveUpdates(page);
  const status = page.getByTestId('channel-status');
  await expect(status).toHaveAttribute('data-connected', 'false');
  await expect(status).toContainText('Simulated channel.');
  await expect(page.getByTestId('channel-check')).toBeDisabled();

  // The Cloud API: what is missing is named on its field before anything is sent.
  const form = page.getByTestId('channel-settings-form');
  await form.getByTestId('channel-provider-cloud_api').check();
  await expect(form.getByTestId('channel-access-token-state')).toHaveText('Not set');
  await form.getByTestId('channel-save').click();
  await expect(form.getByTestId('channel-phone-number-id-error')).toContainText(
    'Enter the phone number id',
  );
  await expect(form.getByTestId('channel-phone-number-id')).toBeFocused();
  await expect(form.getByTestId('channel-access-token-error')).toContainText(
    'Paste the access token',
  );

  await form.getByTestId('channel-phone-number-id').fill(graph.phoneNumberId);
  await expect(form.getByTestId('channel-phone-number-id-error')).toHaveCount(0);
  await form.getByTestId('channel-waba-id').fill(graph.wabaId);
  await form.getByTestId('channel-access-token').fill(graph.accessToken);
  await form.getByTestId('channel-app-secret').fill(graph.appSecret);
  await form.getByTestId('channel-advanced').click();
  await form.getByTestId('channel-graph-base-url').fill(graph.baseUrl);

  // The webhook box: this desk's address plus the path, said to need a public https address.
  const callback = form.getByTestId('channel-callback-url');
  await expect(callback).toHaveText(`${server.url}/channel/webhook`);
  await expect(form.getByTestId('channel-callback-warning')).toContainText('https://');
  await form.getByTestId('channel-public-url').fill('https://desk.example.com/');
  await expect(callback).toHaveText('https://desk.example.com/channel/webhook');
  await expect(form.getByTestId('channel-callback-warning')).toHaveCount(0);
  await form.getByTestId('channel-public-url').fill('');
  await expect(callback).toHaveText(`${server.url}/channel/webhook`);
  const verifyToken = (await form.getByTestId('channel-verify-token-value').textContent()) ?? '';
  expect(verifyToken).toMatch(/^[A-Za-z0-9._~-]{8,}$/);

  // "Check connection" saves what is on screen first, then shows Meta's answer and the number.
  await page.getByTestId('channel-check').click();
  const result = page.getByTestId('channel-check-result');
  await expect(result).toHaveAttribute('data-ok', 'true');
  await expect(page.getByTestId('channel-check-message')).toHaveText(
    'Connected: Parley Test Business (+1 555-078-3881), quality GREEN',
  );
  await expect(page.getByTestId('channel-check-time')).not.toBeEmpty();
  await expect(page.getByTestId('channel-number-verified-name')).toHaveText('Parley Test Business');
  await expect(page.getByTestId('channel-number-display-number')).toHaveText('+1 555-078-3881');
  await expect(page.getByTestId('channel-number-quality')).toHaveText('High (green)');
  await expect(page.getByTestId('channel-number-tier')).toHaveText(
    '10,000 business-initiated conversations per 24 h',
  );
  await expect(page.getByTestId('channel-number-throughput')).toHaveText('1,000 messages a second');
  await expect(status).toHaveAttribute('data-connected', 'true');
  await expect(status).toContainText('from +1 555-078-3881');
  // The secrets are saved, never shown: "set", with a way to replace them.
  await expect(form.getByTestId('channel-access-token-state')).toHaveText('Set');
  await expect(form.getByTestId('channel-app-secret-state')).toHaveText('Set');
  await expect(form.getByTestId('channel-access-token')).toHaveCount(0);
  await expect(form.getByTestId('channel-save')).toBeDisabled();
  expect(await page.content()).not.toContain(graph.accessToken);

  // A token Meta refuses is said in Meta's words, styled as failed.
  await form.getByTestId('channel-access-token-replace').click();
  await form.getByTestId('channel-access-token').fill('EAAWrongTokenWrongTokenWrong');
  await page.getByTestId('channel-check').click();
  await expect(result).toHaveAttribute('data-ok', 'false');
  await expect(page.getByTestId('channel-check-message')).toContainText('code 190');
  await expect(page.getByTestId('channel-number')).toHaveCount(0);
  await form.getByTestId('channel-access-token-replace').click();
  await form.getByTestId('channel-access-token').fill(graph.accessToken);
  await page.getByTestId('channel-check').click();
  await expect(result).toHaveAttribute('data-ok', 'true');

  // Meta's verification handshake accepts the verify token the screen shows.
  const url = `${server.url}/channel/webhook`;
  const handshake = await graph.verify(url, verifyToken);
  expect(handshake).toMatchObject({ status: 200, body: handshake.challenge });

  // A reload reads the saved settings back.
  await page.reload();
  await expect(page.getByTestId('channel-check-message')).toHaveText(
    'Connected: Parley Test Business (+1 555-078-3881), quality GREEN',
  );
  await expect(page.getByTestId('channel-phone-number-id')).toHaveValue(graph.phoneNumberId);
  await expect(page.getByTestId('channel-access-token-state')).toHaveText('Set');

  // A customer writes in on WhatsApp: Meta's signed webhook puts it in the live inbox.
  await customerWritesIn(page, graph, url, 'Hi, is my order on its way?');
});

test('in live mode an inbox reply goes out through the Cloud API and Meta’s statuses tick it', async ({
  page,
  server,
}) => {
  const graph = await startFakeGraph({ autoStatuses: { delayMs: 50 } });
  fake = graph;
  await connectInUi(page, graph);
  await customerWritesIn(page, graph, `${server.url}/channel/webhook`, 'Can I change my address?');

  // The reply is free text inside the window (a SERVICE message, free): Meta receives it as
  // a text payload, and its sent → delivered → read webhooks tick it in the thread.
  const composer = page.getByTestId('reply-composer');
  await expect(composer).toHaveAttribute('data-kind', 'text');
  await composer.getByTestId('reply-text').fill('Yes, reply with the new one.');
  await composer.getByTestId('reply-text').press('Enter');
  const reply = page
    .getByTestId('thread')
    .getByTestId('message')
    .filter({ hasText: 'Yes, reply with the new one.' });
  await expect(reply).toHaveAttribute('data-direction', 'outbound');
  await expect
    .poll(() => graph.sent.filter((m) => m.type === 'text').map((m) => m.body))
    .toEqual([
      expect.objectContaining({
        messaging_product: 'whatsapp',
        to: CUSTOMER_WA,
        type: 'text',
        text: expect.objectContaining({ body: 'Yes, reply with the new one.' }),
      }),
    ]);
  await expect(reply.getByTestId('message-status')).toHaveAttribute('data-status', 'read');
});

test('the Channel section passes axe in test mode and in live mode, connected and with errors', async ({
  browser,
  server,
}) => {
  const graph = await startFakeGraph({});
  fake = graph;
  // Channel settings are the admin session's (no API key may aim the core at a host).
  const admin = await browser.newContext();
  expect((await admin.request.get(await signInLink(server), { maxRedirects: 0 })).status()).toBe(
    303,
  );
  await allowPrivateTargets(admin.request);
  const put = await admin.request.put('/api/channel', {
    headers: { 'X-Parley-Environment': 'live' },
    data: {
      provider: 'cloud_api',
      phoneNumberId: graph.phoneNumberId,
      wabaId: graph.wabaId,
      accessToken: graph.accessToken,
      appSecret: graph.appSecret,
      graphBaseUrl: graph.baseUrl,
    },
  });
  expect(put.status(), await put.text()).toBe(200);
  await admin.close();

  // axe is injected as a script, which the app's CSP refuses: this context bypasses it.
  const context = await browser.newContext({ bypassCSP: true });
  expect((await context.request.get(await signInLink(server), { maxRedirects: 0 })).status()).toBe(
    303,
  );
  const page = await context.newPage();
  const found: string[] = [];

  await page.goto('/#/settings/channel');
  await expect(page.getByTestId('channel-test-mode')).toBeVisible();
  found.push(...(await audit(page, 'test mode')));

  await switchToLive(page);
  await expect(page.getByTestId('channel-check-result')).toHaveAttribute('data-ok', 'true');
  await page.getByTestId('channel-advanced').click();
  found.push(...(await audit(page, 'live, connected')));

  // Errors on the fields: a replaced secret left empty, an id that is not digits.
  const form = page.getByTestId('channel-settings-form');
  await form.getByTestId('channel-waba-id').fill('not-digits');
  await form.getByTestId('channel-app-secret-replace').click();
  await form.getByTestId('channel-verify-token-change').click();
  await form.getByTestId('channel-verify-token').fill('short');
  await form.getByTestId('channel-save').click();
  await expect(form.getByTestId('channel-waba-id-error')).toBeVisible();
  await expect(form.getByTestId('channel-app-secret-error')).toBeVisible();
  await expect(form.getByTestId('channel-verify-token-error')).toBeVisible();
  found.push(...(await audit(page, 'live, errors')));

  expect(found, found.join('\n')).toEqual([]);
  await context.close();
});

test('a WhatsApp user with only a username: named by their profile, answered by user id, a reaction on the bubble, an unreadable item listed', async ({
  page,
  server,
}) => {
  const graph = await startFakeGraph({});
  fake = graph;
  await connectInUi(page, graph);
  await page.getByTestId('nav-inbox').click();
  await waitForLiveUpdates(page);
  graph.setWebhookUrl(`${server.url}/channel/webhook`);
  const account = { phoneNumberId: graph.phoneNumberId, wabaId: graph.wabaId };
  const userId = 'US.13491208655302741918';
  const first = meta.text({ fromUserId: userId, body: 'Hi, my parcel is damaged' });
  const status = await graph.post(
    meta.envelope(account, [
      meta.messagesValue(account, {
        contacts: [meta.sender({ userId, name: 'Noor', username: '@noor' })],
        messages: [first],
      }),
      // A change whose message names no sender at all (no from, no contacts): kept as a reject.
      meta.messagesValue(account, {
        messages: [
          { id: meta.wamid(), timestamp: '1733050000', type: 'text', text: { body: '?' } },
        ],
      }),
    ]),
  );
  expect(status).toBe(200);

  const row = page.getByTestId('conversation-row').filter({ hasText: 'Noor' });
  await expect(row.getByTestId('conversation-preview')).toHaveText('Hi, my parcel is damaged');
  await row.click();
  const thread = page.getByTestId('thread');
  await expect(thread.getByTestId('thread-title')).toHaveText('Noor');
  await expect(page.getByTestId('panel-wa-user-id')).toHaveText(userId);

  const composer = page.getByTestId('reply-composer');
  await composer.getByTestId('reply-text').fill('Sorry to hear that, Noor.');
  await composer.getByTestId('reply-text').press('Enter');
  await expect
    .poll(() => graph.sent.filter((m) => m.type === 'text').map((m) => m.body))
    .toEqual([expect.objectContaining({ recipient: userId, type: 'text' })]);

  // The customer reacts to their own message: the emoji shows on that bubble.
  await graph.post(
    meta.envelope(account, [
      meta.messagesValue(account, {
        messages: [
          {
            ...meta.reaction({ from: '', messageId: first.id, emoji: '🙏' }),
            from: undefined,
            from_user_id: userId,
          },
        ],
      }),
    ]),
  );
  const bubble = thread.getByTestId('message').filter({ hasText: 'Hi, my parcel is damaged' });
  await expect(bubble.getByTestId('message-reaction')).toHaveText('🙏');

  // The item that named no sender is listed under Settings → Channel with why and what came.
  await page.goto('/#/settings/channel');
  const rejects = page.getByTestId('channel-rejects');
  await expect(rejects.getByTestId('channel-reject')).toHaveCount(1);
  await expect(rejects.getByTestId('channel-reject-reason')).toContainText('neither a phone');
});
