/**
 * The Webhooks screen (design.md §8, issue 24): an owner adds an endpoint in the UI, sees a
 * delivery fail with the receiver's answer, fixes the receiver and redelivers — and the receiver
 * gets the event signed as the README says. The receiver is the test's own HTTP server on
 * 127.0.0.1, started and stopped here; the workspace must allow private targets for it.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  allowPrivateTargets,
  apiPost,
  createApiKey,
  expect,
  simulateInbound,
  test,
  waitForLiveUpdates,
} from './fixtures.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers `answer` (which the test changes) and keeps what it got. */
async function startReceiver() {
  const state = {
    answer: { status: 500, body: 'Order service unavailable: the database is down' },
    got: [] as Received[],
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      state.got.push({ headers: req.headers, body });
      res.writeHead(state.answer.status, { 'content-type': 'text/plain' }).end(state.answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    state,
    url: `http://127.0.0.1:${port}/hooks/parley`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const PHONE = '+14155550142';

test('an endpoint added in the UI fails on the receiver’s 500; once fixed, Redeliver succeeds with a signed body', async ({
  page,
  server,
}) => {
  const receiver = await startReceiver();
  try {
    await page.goto('/#/webhooks');
    await waitForLiveUpdates(page);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Webhooks');
    await expect(page.getByTestId('webhooks-empty')).toBeVisible();

    // A receiver on this machine is refused until an admin allows private addresses, and the
    // refusal says where.
    await page.getByTestId('webhook-new').click();
    const dialog = page.getByTestId('webhook-dialog');
    await dialog.getByTestId('webhook-url').fill(receiver.url);
    await dialog.getByTestId('webhook-description').fill('Order sync');
    await dialog.getByTestId('webhook-events-some').check();
    await dialog.getByTestId('webhook-save').click();
    await expect(dialog.getByTestId('webhook-events-error')).toHaveText(
      'Choose at least one event, or send all events.',
    );
    await dialog.getByTestId('webhook-event-message-received').check();
    await expect(dialog.getByTestId('webhook-group-message')).toHaveJSProperty(
      'indeterminate',
      true,
    );
    await expect(dialog.getByTestId('webhook-events-error')).toHaveCount(0);
    await dialog.getByTestId('webhook-save').click();
    await expect(dialog.getByTestId('webhook-url-error')).toContainText(
      'a loopback address, which this workspace does not allow; an admin can allow private addresses under Settings → Workspace → Webhooks.',
    );

    await allowPrivateTargets(page.request);
    await dialog.getByTestId('webhook-save').click();
    const secretDialog = page.getByTestId('webhook-secret-dialog');
    await expect(secretDialog).toBeVisible();
    const secret = (await secretDialog.getByTestId('webhook-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    // One paragraph with the URL and header names inline, not columns (those stood 330 px tall).
    const lead = secretDialog.getByTestId('webhook-secret-lead');
    expect(await lead.evaluate((el) => getComputedStyle(el).display)).toBe('block');
    expect(
      await lead
        .locator('code')
        .first()
        .evaluate((el) => getComputedStyle(el).display),
    ).toBe('inline');
    expect((await lead.boundingBox())!.height).toBeLessThan(140);
    await secretDialog.getByTestId('webhook-secret-close').click();
    await expect(secretDialog).toHaveCount(0);

    const row = page.getByTestId('webhook-row');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(receiver.url);
    await expect(row).toContainText('Order sync');
    await expect(row).toContainText('message.received');
    await expect(row.getByTestId('webhook-enabled')).toHaveText('Enabled');
    await expect(row).toContainText('None yet');
    // The secret is shown once: nothing on the page carries it any more.
    await expect(page.locator('body')).not.toContainText(secret);

    await row.getByTestId('webhook-link').click();
    const log = page.getByTestId('webhook-log');
    await expect(log.getByRole('heading', { level: 1 })).toHaveText(receiver.url);
    await expect(log.getByTestId('deliveries-none')).toContainText('No deliveries yet');

    // A customer writes in: the log shows the delivery failing, with the receiver's answer.
    const key = await createApiKey(server, 'test', 'e2e-webhooks');
    await simulateInbound(page.request, key, { phone: PHONE, message: 'Where is my order?' });
    const delivery = log.getByTestId('delivery-row').first();
    await expect(delivery).toHaveAttribute('data-status', 'pending');
    await expect(delivery.getByTestId('delivery-status')).toHaveText('Pending');
    await expect(delivery).toContainText('message.received');
    await expect(delivery.getByTestId('delivery-code')).toHaveText('HTTP 500');
    await expect(delivery.getByTestId('delivery-reason')).toHaveText(
      'The receiver answered HTTP 500.',
    );
    await expect(delivery.getByTestId('delivery-next')).toContainText('Next try');
    // One try so far (two if its first retry, 5–10 s later, beat a slow run of this test).
    await expect(delivery.getByTestId('delivery-attempts')).toHaveText(/^[12]$/);
    // A short answer reads in full; a long one unfolds (the 1024 test below).
    await expect(delivery.getByTestId('delivery-answer')).toHaveText(
      'Order service unavailable: the database is down',
    );
    expect(receiver.state.got).toHaveLength(1);
    const eventId = String(receiver.state.got[0]!.headers['webhook-id']);
    await expect(delivery.getByTestId('delivery-event-id')).toHaveText(eventId);

    // The status chips filter the log.
    await log.getByTestId('delivery-filter-succeeded').click();
    await expect(log.getByTestId('deliveries-none')).toHaveText('No succeeded deliveries.');
    await log.getByTestId('delivery-filter-all').click();
    await expect(log.getByTestId('delivery-row')).toHaveCount(1);

    // The receiver is fixed; Redeliver sends the event now instead of at its next try.
    receiver.state.answer = { status: 200, body: '{"received":true,"order":"A-1042"}' };
    await log.getByTestId('delivery-redeliver').first().click();
    const newest = log.getByTestId('delivery-row').first();
    await expect(newest).toHaveAttribute('data-status', 'succeeded');
    await expect(newest.getByTestId('delivery-code')).toHaveText('HTTP 200');
    await expect(newest.getByTestId('delivery-reason')).toHaveCount(0);
    await newest.getByTestId('delivery-answer').locator('summary').click();
    // A JSON answer reads indented, not as one raw line.
    await expect(newest.getByTestId('delivery-answer-text')).toHaveText(
      '{\n  "received": true,\n  "order": "A-1042"\n}',
    );
    await expect(log.getByTestId('delivery-filter-failed')).toBeVisible();

    // The receiver got the same event, signed as the README says (both schemes).
    const last = receiver.state.got.at(-1)!;
    expect(receiver.state.got.length).toBeGreaterThanOrEqual(2);
    expect(last.body).toBe(receiver.state.got[0]!.body);
    const event = new Webhook(secret).verify(last.body, {
      'webhook-id': String(last.headers['webhook-id']),
      'webhook-timestamp': String(last.headers['webhook-timestamp']),
      'webhook-signature': String(last.headers['webhook-signature']),
    }) as { id: string; type: string; data: { message: { text?: string } } };
    expect(event).toMatchObject({ id: eventId, type: 'message.received' });
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(
      String(last.headers['x-parley-signature']),
    )!;
    expect(createHmac('sha256', secret).update(`${t}.${last.body}`).digest('hex')).toBe(v1);

    // Disabled, it gets no new events and says so; enabled again, it does.
    await log.getByTestId('webhook-disable').click();
    await expect(log.getByTestId('webhook-disabled-note')).toBeVisible();
    await expect(log.getByTestId('webhook-enabled')).toHaveText('Disabled');
    await expect(log.getByTestId('delivery-redeliver').first()).toBeDisabled();
    await log.getByTestId('webhook-enable').click();
    await expect(log.getByTestId('webhook-disabled-note')).toHaveCount(0);

    // The list shows how the last delivery went.
    await log.getByRole('link', { name: '← Webhooks' }).click();
    await expect(row.getByTestId('delivery-status')).toHaveText('Succeeded');
    await expect(row).toContainText('HTTP 200');
  } finally {
    await receiver.stop();
  }
});

test('the delivery log fits a 1024×700 window, and deleting an endpoint asks first', async ({
  page,
  server,
}) => {
  const receiver = await startReceiver();
  try {
    await page.setViewportSize({ width: 1024, height: 700 });
    await allowPrivateTargets(page.request);
    const key = await createApiKey(server, 'test', 'e2e-narrow');
    const { id } = (await apiPost(page.request, key, '/webhooks', {
      url: receiver.url,
      events: ['message.received'],
    })) as { id: string };
    // A long answer: the log keeps its first 1 KiB, folded until asked for.
    receiver.state.answer = {
      status: 503,
      body: `Maintenance until 02:00.\n${'Please try again later. '.repeat(60)}`,
    };
    await simulateInbound(page.request, key, { phone: PHONE, message: 'Hello' });

    await page.goto(`/#/webhooks/${id}`);
    const row = page.getByTestId('delivery-row').first();
    await expect(row.getByTestId('delivery-code')).toHaveText('HTTP 503');
    const answer = row.getByTestId('delivery-answer');
    await expect(answer.locator('summary')).toContainText('Maintenance until 02:00. Please try');
    await expect(answer.getByTestId('delivery-answer-text')).toBeHidden();
    await answer.locator('summary').click();
    await expect(answer.getByTestId('delivery-answer-text')).toBeVisible();
    await expect(answer.getByTestId('delivery-answer-text')).toContainText(
      'Maintenance until 02:00.\nPlease try again later.',
    );
    await expect(answer).toContainText('only its first 1 KiB is kept');
    const kept = (await answer.getByTestId('delivery-answer-text').textContent()) ?? '';
    expect(Buffer.byteLength(kept)).toBe(1024);
    // The row's last cell (Redeliver) can be reached, and the document itself never scrolls.
    const redeliver = row.getByTestId('delivery-redeliver');
    await redeliver.scrollIntoViewIfNeeded();
    await expect(redeliver).toBeInViewport();
    expect(await page.evaluate(() => document.scrollingElement?.scrollTop ?? 0)).toBe(0);

    await page.getByTestId('webhook-delete').click();
    const confirm = page.getByTestId('webhook-delete-dialog');
    await expect(confirm).toContainText(receiver.url);
    await confirm.getByTestId('webhook-delete-confirm').click();
    await expect(page.getByTestId('webhooks-empty')).toBeVisible();
    await expect(page.getByTestId('toast-success')).toContainText('Endpoint deleted.');
  } finally {
    await receiver.stop();
  }
});
