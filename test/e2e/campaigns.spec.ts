import type { APIRequestContext } from '@playwright/test';
import { funnelHolds, type FunnelCounts } from '../../shared/campaign-rules.ts';
import { customerPhone, seedCampaignAudience } from './campaign-seed.ts';
import { audit } from './axe-audit.ts';
import { apiPost, createApiKey, expect, signInLink, test, waitForLiveUpdates } from './fixtures.ts';

const RECIPIENTS = 120;
const phoneOf = customerPhone;

/**
 * An approved template, a group of RECIPIENTS contacts, and a channel slow enough to pause.
 * Returns the group's id.
 */
async function seed(request: APIRequestContext, key: string): Promise<string> {
  // 20 messages a second: the campaign takes a few seconds, long enough to pause it.
  return seedCampaignAudience(request, key, {
    recipients: RECIPIENTS,
    settings: { throughputMps: 20, deliveryLatencyMs: 50, readLatencyMs: 100 },
  });
}

/** A draft of the spring sale called `name` to the group, with `code`; its id. */
async function draftSpringSale(
  request: APIRequestContext,
  key: string,
  groupId: string,
  name: string,
  code: string,
): Promise<string> {
  const campaign = await apiPost(request, key, '/campaigns', {
    name,
    templateName: 'spring_sale',
    variables: { '1': '{{contact.name}}', '2': code },
    target: { groupId },
  });
  return campaign.id as string;
}

/** `seed`, with the channel at full speed; the audience group's id. */
async function seedFast(request: APIRequestContext, key: string): Promise<string> {
  const groupId = await seed(request, key);
  await request.put('/api/simulator/settings', {
    headers: { 'X-API-Key': key },
    data: { throughputMps: 1000 },
  });
  return groupId;
}

test('a campaign is created for a group, launched, paused, resumed and followed live to the end', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-campaigns');
  await seed(request, key);

  // The screen explains what campaigns are for before there is one.
  await page.goto('/#/campaigns');
  await expect(page.getByTestId('mode-test')).toHaveAttribute('aria-pressed', 'true');
  await waitForLiveUpdates(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Campaigns');
  await expect(page.getByTestId('campaigns-empty')).toContainText('approved template');
  await page.getByTestId('campaigns-create-first').click();

  // The wizard: template, variables with a contact field, the group; the count and the preview
  // come from the core for a sample recipient.
  const wizard = page.getByTestId('campaign-wizard');
  await wizard.getByLabel('Name').fill('Spring sale');
  await wizard.getByTestId('campaign-template').selectOption({ label: 'spring_sale · en' });
  // An empty variable's placeholder reads as a hint ("e.g. …", italic), not as a value.
  const firstVar = wizard.getByTestId('campaign-var-1');
  await expect(firstVar).toHaveValue('');
  await expect(firstVar).toHaveAttribute('placeholder', 'e.g. {{contact.firstName}}');
  await expect(wizard.getByTestId('campaign-var-2')).toHaveAttribute('placeholder', /^e\.g\. /);
  expect(await firstVar.evaluate((el) => getComputedStyle(el, '::placeholder').fontStyle)).toBe(
    'italic',
  );
  await firstVar.fill('{{contact.nmae}}');
  await wizard
    .getByTestId('campaign-group')
    .selectOption({ label: `Spring list (${RECIPIENTS} contacts)` });
  await wizard.getByTestId('campaign-launch').click();
  await expect(wizard.getByTestId('campaign-variables-1-error')).toContainText(
    'Unknown placeholder {{contact.nmae}}',
  );
  await wizard.getByTestId('campaign-var-1').fill('{{contact.name}}');
  await wizard.getByTestId('campaign-var-2').fill('SPRING20');
  await expect(wizard.getByTestId('campaign-audience-count')).toHaveText(
    `${RECIPIENTS} recipients (one per phone number).`,
  );
  await expect(wizard.getByTestId('campaign-missing-warning')).toHaveCount(0);
  await expect(wizard.getByTestId('campaign-preview').getByTestId('preview-body')).toHaveText(
    'Hi Customer 001, take 20% off with SPRING20.',
  );

  await wizard.getByTestId('campaign-launch').click();
  const launch = page.getByTestId('campaign-launch-dialog');
  await expect(launch).toContainText(`${RECIPIENTS} recipients`);
  await launch.getByTestId('campaign-launch-confirm').click();

  // Its page: sending, then paused on request while messages are still going out.
  const detail = page.getByTestId('campaign-detail');
  await expect(detail.getByTestId('campaign-title')).toHaveText('Spring sale');
  await expect(detail.getByTestId('campaign-template-name')).toHaveText('spring_sale');
  const status = detail.getByTestId('campaign-status');
  await expect(status).toHaveText('Sending');
  await detail.getByTestId('campaign-pause').click();
  await page.getByTestId('campaign-pause-dialog').getByTestId('campaign-pause-confirm').click();
  await expect(status).toHaveText('Paused');
  await expect(detail.getByTestId('campaign-paused-notice')).toContainText('Paused.');
  const bar = detail.getByRole('progressbar', { name: 'Progress of Spring sale' });
  const pausedAt = Number(await bar.getAttribute('aria-valuenow'));
  expect(pausedAt).toBeLessThan(100);

  const campaignId = await detail.getAttribute('data-campaign-id');
  const progressOf = async (): Promise<FunnelCounts & { status: string }> => {
    const response = await request.get(`/campaigns/${campaignId}/progress`, {
      headers: { 'X-API-Key': key },
    });
    expect(response.status()).toBe(200);
    return (await response.json()) as FunnelCounts & { status: string };
  };
  expect((await progressOf()).status).toBe('paused');

  // The recipients table follows by itself from here on: no loading state, its scroll kept.
  const recipientsScroll = detail.getByTestId('recipients-scroll');
  await expect(detail.getByTestId('recipient-row').first()).toBeVisible();
  await recipientsScroll.evaluate((scroller) => {
    scroller.scrollTop = 200;
    const card = scroller.closest('.campaign-recipients')!;
    const flashed = (): boolean =>
      Boolean(
        card.querySelector('.toolbar-meta')?.textContent?.includes('Loading') ||
        card.querySelector('[data-testid="recipients-empty"]'),
      );
    const w = window as unknown as { recipientsFlashed: boolean };
    w.recipientsFlashed = false;
    new MutationObserver(() => {
      if (flashed()) w.recipientsFlashed = true;
    }).observe(card, { subtree: true, childList: true, characterData: true });
  });
  const scrolledTo = await recipientsScroll.evaluate((scroller) => scroller.scrollTop);
  expect(scrolledTo).toBeGreaterThan(0);

  // Resumed, it runs to the end; the bar and the funnel follow the event stream.
  await detail.getByTestId('campaign-resume').click();
  await page.getByTestId('campaign-resume-dialog').getByTestId('campaign-resume-confirm').click();
  await expect(status).toHaveText('Sending');
  await expect(bar).toHaveAttribute('aria-valuenow', '100', { timeout: 20_000 });
  await expect(status).toHaveText('Completed');
  // The "is sending" notice does not outlive the sending: the page seen to finish says so.
  await expect(page.getByTestId('toast-success').filter({ hasText: 'is sending' })).toHaveCount(0);
  await expect(page.getByTestId('toast-success')).toContainText(
    '“Spring sale” has finished sending.',
  );
  await expect(detail.getByTestId('campaign-done')).toHaveText(
    `${RECIPIENTS} of ${RECIPIENTS} done · 100%`,
  );

  // Receipts keep arriving after the last send; the funnel ends where the API does.
  await expect.poll(async () => (await progressOf()).read, { timeout: 15_000 }).toBe(RECIPIENTS);
  const final = await progressOf();
  expect(funnelHolds(final)).toBe(true);
  expect(final).toMatchObject({ sent: RECIPIENTS, delivered: RECIPIENTS, failed: 0, skipped: 0 });
  for (const step of ['sent', 'delivered', 'read', 'failed', 'skipped', 'pending'] as const) {
    await expect(detail.getByTestId(`funnel-${step}`)).toHaveAttribute(
      'data-value',
      String(final[step]),
    );
  }

  // The send-rate chart is drawn on a canvas (the page's CSP is checked by the fixture).
  await expect(detail.getByTestId('send-rate-chart').locator('canvas').first()).toBeVisible();
  await expect(detail.getByTestId('send-rate-readout')).toContainText(`${RECIPIENTS} sent`);

  // The recipients table followed the campaign without a refresh: every row shown is read, the
  // table never showed "Loading…" and kept its scroll.
  const shownRows = detail.getByTestId('recipient-row');
  await expect
    .poll(async () => {
      const statuses = await shownRows.evaluateAll((rows) =>
        rows.map((row) => row.getAttribute('data-status')),
      );
      return statuses.length > 0 && statuses.every((status) => status === 'read');
    })
    .toBe(true);
  expect(
    await page.evaluate(
      () => (window as unknown as { recipientsFlashed: boolean }).recipientsFlashed,
    ),
  ).toBe(false);
  expect(await recipientsScroll.evaluate((scroller) => scroller.scrollTop)).toBe(scrolledTo);

  // The recipients, by status.
  await detail.getByTestId('recipient-filter-read').click();
  await expect(detail.getByTestId('recipient-row').first()).toHaveAttribute('data-status', 'read');
  await detail.getByTestId('recipient-filter-failed').click();
  await expect(detail.getByTestId('recipients-empty')).toHaveText('No failed recipients.');

  // The list shows it completed with its numbers.
  await page.getByTestId('nav-campaigns').click();
  const row = page.getByTestId('campaign-row').filter({ hasText: 'Spring sale' });
  await expect(row.getByTestId('campaign-status')).toHaveText('Completed');
  await expect(row.getByTestId('campaign-sent')).toHaveText(String(RECIPIENTS));

  // In the inbox, the contact's panel lists the campaign and how it went for them.
  await apiPost(request, key, '/api/simulator/inbound', { phone: phoneOf(0), message: 'Thanks!' });
  await page.getByTestId('nav-inbox').click();
  await page.getByTestId('conversation-row').filter({ hasText: 'Customer 001' }).click();
  const panelCampaign = page
    .getByTestId('contact-panel')
    .getByTestId('contact-campaign')
    .filter({ hasText: 'Spring sale' });
  await expect(panelCampaign.getByTestId('recipient-status')).toHaveText('Read');
});

test('the campaign screens, their dialogs and the recipients table pass axe', async ({
  browser,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-campaigns-a11y');
  const groupId = await seedFast(request, key);
  const body = {
    templateName: 'spring_sale',
    variables: { '1': '{{contact.email}}', '2': 'SPRING20' },
    target: { groupId },
  };
  const sent = await apiPost(request, key, '/campaigns', { name: 'No emails', ...body });
  await apiPost(request, key, '/campaigns/launch', { id: sent.id });
  const draft = await apiPost(request, key, '/campaigns', { name: 'Later', ...body });

  // axe is injected as a script, which the app's CSP refuses: this context bypasses it.
  const context = await browser.newContext({ bypassCSP: true });
  expect((await context.request.get(await signInLink(server), { maxRedirects: 0 })).status()).toBe(
    303,
  );
  const page = await context.newPage();
  const found: string[] = [];

  await page.goto(`/#/campaigns/${sent.id as string}`);
  const detail = page.getByTestId('campaign-detail');
  await expect(detail.getByTestId('campaign-status')).toHaveText('Completed');
  // Every recipient missed the field: failed with the error explained under the table.
  await expect(detail.getByTestId('funnel-failed')).toHaveAttribute(
    'data-value',
    String(RECIPIENTS),
  );
  await expect(detail.getByTestId('recipient-error-legend')).toContainText('Missing contact field');
  await expect(detail.getByTestId('send-rate-chart').locator('canvas').first()).toBeAttached();
  found.push(...(await audit(page, 'detail')));

  await page.goto('/#/campaigns');
  await expect(page.getByTestId('campaign-row')).toHaveCount(2);
  found.push(...(await audit(page, 'list')));

  await page.goto(`/#/campaigns/${draft.id as string}`);
  await page.getByTestId('campaign-cancel').click();
  await expect(page.getByTestId('campaign-cancel-dialog')).toBeVisible();
  found.push(...(await audit(page, 'cancel dialog')));
  await page.keyboard.press('Escape');

  await page.getByTestId('campaign-edit').click();
  const wizard = page.getByTestId('campaign-wizard');
  // Exactly the placeholder they lack, and for how many.
  await expect(wizard.getByTestId('campaign-missing-warning')).toContainText(
    `${RECIPIENTS} would fail`,
  );
  await expect(wizard.getByTestId('campaign-missing-warning-item')).toHaveText(
    `{{contact.email}} for ${RECIPIENTS} recipients`,
  );
  await wizard.getByTestId('campaign-when-later').check();
  found.push(...(await audit(page, 'wizard')));
  await wizard.getByTestId('campaign-launch').click();
  await expect(page.getByTestId('campaign-launch-dialog')).toBeVisible();
  found.push(...(await audit(page, 'launch dialog')));

  expect(found, found.join('\n')).toEqual([]);
  await context.close();
});

test('a campaign paused before its scheduled start offers Resume now and Reschedule…', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-campaigns-resume');
  const groupId = await seedFast(request, key);
  const id = await draftSpringSale(request, key, groupId, 'Weekend', 'WEEKEND');
  const hour = 3600_000;
  await apiPost(request, key, '/campaigns/launch', {
    id,
    scheduledFor: new Date(Date.now() + 5 * hour).toISOString(),
  });
  await apiPost(request, key, '/campaigns/pause', { id });
  const read = async () =>
    (await (await request.get(`/campaigns/${id}`, { headers: { 'X-API-Key': key } })).json()) as {
      status: string;
      scheduledFor: string | null;
    };

  await page.goto(`/#/campaigns/${id}`);
  await waitForLiveUpdates(page);
  const detail = page.getByTestId('campaign-detail');
  const status = detail.getByTestId('campaign-status');
  await expect(status).toHaveText('Paused');
  await expect(detail.getByTestId('campaign-resume')).toHaveText('Resume now');
  await expect(detail.getByTestId('campaign-reschedule')).toHaveText('Reschedule…');

  // Reschedule… : another time, in the user's time zone.
  await detail.getByTestId('campaign-reschedule').click();
  const dialog = page.getByTestId('campaign-reschedule-dialog');
  const at = new Date(Date.now() + 30 * hour);
  at.setSeconds(0, 0);
  const pad = (n: number) => String(n).padStart(2, '0');
  const local = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
  await dialog.getByTestId('campaign-reschedule-at').fill(local);
  await dialog.getByTestId('campaign-reschedule-confirm').click();
  await expect(dialog).toHaveCount(0);
  await expect(status).toHaveText('Scheduled');
  expect(await read()).toMatchObject({ status: 'scheduled', scheduledFor: at.toISOString() });

  // Paused again, then Resume now: it sends now, not at the time it was scheduled for.
  await apiPost(request, key, '/campaigns/pause', { id });
  await expect(status).toHaveText('Paused');
  await detail.getByTestId('campaign-resume').click();
  const resume = page.getByTestId('campaign-resume-dialog');
  await expect(resume).toContainText('not at the time it was scheduled for');
  await resume.getByTestId('campaign-resume-confirm').click();
  await expect(status).toHaveText('Completed', { timeout: 20_000 });
  await expect(detail.getByTestId('campaign-reschedule')).toHaveCount(0);
  expect((await read()).scheduledFor).toBeNull();
});

test('the recipients table reads nothing once its page is left, while the campaign runs to its end', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-campaigns-left');
  // It runs for a few seconds, sending progress all along.
  const groupId = await seed(request, key);
  const id = await draftSpringSale(request, key, groupId, 'Left behind', 'SPRING20');
  // Launched (its recipients fixed) and held while its page is opened.
  await apiPost(request, key, '/campaigns/launch', { id });
  await apiPost(request, key, '/campaigns/pause', { id });

  let recipientReads = 0;
  page.on('request', (r) => {
    if (r.method() === 'GET' && r.url().includes(`/campaigns/${id}/recipients`)) recipientReads++;
  });

  await page.goto(`/#/campaigns/${id}`);
  await waitForLiveUpdates(page);
  const detail = page.getByTestId('campaign-detail');
  await expect(detail.getByTestId('campaign-status')).toHaveText('Paused');
  await expect(detail.getByTestId('recipient-row').first()).toBeVisible();
  expect(recipientReads).toBeGreaterThan(0);

  // Off to the inbox; the campaign is resumed and runs to its end there.
  await page.getByTestId('nav-inbox').click();
  await expect(detail).toHaveCount(0);
  recipientReads = 0;
  await apiPost(request, key, '/campaigns/launch', { id });
  await expect
    .poll(
      async () => {
        const response = await request.get(`/campaigns/${id}/progress`, {
          headers: { 'X-API-Key': key },
        });
        const p = (await response.json()) as { status: string; read: number };
        return `${p.status} ${p.read}`;
      },
      { timeout: 30_000 },
    )
    .toBe(`completed ${RECIPIENTS}`);
  // One event stream carries everything in the order written: once this later message's notice
  // shows, the renderer has seen the campaign's progress, its end and its last receipts.
  await apiPost(request, key, '/api/simulator/inbound', {
    phone: '+14155559999',
    message: 'After the campaign',
  });
  await expect(
    page.getByTestId('toast-info').filter({ hasText: 'After the campaign' }),
  ).toBeVisible();
  expect(recipientReads).toBe(0);

  // Back on its page, the table is read afresh and shows the campaign as it ended.
  await page.goto(`/#/campaigns/${id}`);
  await expect(page.getByTestId('campaign-status')).toHaveText('Completed');
  await expect
    .poll(async () =>
      (
        await page
          .getByTestId('recipient-row')
          .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-status')))
      ).every((status) => status === 'read'),
    )
    .toBe(true);
  await expect(page.getByTestId('recipient-row').first()).toBeVisible();
  expect(recipientReads).toBeGreaterThan(0);
});
