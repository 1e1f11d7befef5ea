/**
 * Exports and workspace settings (issue 24 items 2 and 3, README "Exports", "Workspace
 * settings"): the owner downloads the contacts the list shows (with its filter), a campaign's and
 * an email campaign's recipients, and reads the files as a spreadsheet would; a workspace setting
 * changed on its screen is in force at once.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { parse } from 'csv-parse/sync';
import { seedCampaignAudience, seedGroup, setSimulator } from './campaign-seed.ts';
import { apiPost, createApiKey, expect, parleyCli, test } from './fixtures.ts';

const FORMULA = '=HYPERLINK("http://evil.example","open me")';

/** Clicks an export button and reads the file it saves: its name and its rows as records. */
async function download(page: Page, testId: string) {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId(testId).click(),
  ]);
  const text = await readFile(await file.path(), 'utf8');
  expect(text.startsWith('\uFEFF'), 'UTF-8 with a BOM').toBe(true);
  const [header, ...rows] = parse(text, { bom: true }) as string[][];
  // No cell a spreadsheet would run.
  for (const cell of rows.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  return {
    name: file.suggestedFilename(),
    records: rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!]))),
  };
}

test('the contacts export takes the list’s filter; campaign and email recipients export from their pages', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-exports');
  const contact = (phone: string, name: string, labels: string[], email?: string) =>
    apiPost(request, key, '/api/contacts', {
      phone,
      name,
      labels,
      ...(email ? { email } : {}),
      attributes: { plan: labels.includes('vip') ? 'gold' : 'basic' },
    });
  await contact('+14155550101', 'Ada Lovelace', ['vip'], 'ada@example.com');
  await contact('+14155550102', FORMULA, ['vip']);
  await contact('+14155550103', 'Cy Young', ['news']);

  await page.goto('/#/contacts');
  await expect(page.getByTestId('contact-row')).toHaveCount(3);
  await page.getByTestId('contacts-label-filter').fill('vip');
  await expect(page.getByTestId('contact-row')).toHaveCount(2);
  const contacts = await download(page, 'contacts-export');
  expect(contacts.name).toMatch(/^parley-contacts-\d{4}-\d{2}-\d{2}\.csv$/);
  expect(contacts.records.map((r) => r.name).sort()).toEqual(
    [`'${FORMULA}`, 'Ada Lovelace'].sort(),
  );
  expect(contacts.records.find((r) => r.name === 'Ada Lovelace')).toMatchObject({
    phone: "'+14155550101",
    email: 'ada@example.com',
    labels: 'vip',
    plan: 'gold',
  });

  // A campaign to five customers, sent at full speed, then its recipients.
  const groupId = await seedCampaignAudience(request, key, {
    recipients: 5,
    settings: { throughputMps: 1000, deliveryLatencyMs: 10, readLatencyMs: 10 },
  });
  const campaign = await apiPost(request, key, '/campaigns', {
    name: 'Spring sale',
    templateName: 'spring_sale',
    variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
    target: { groupId },
  });
  await apiPost(request, key, '/campaigns/launch', { id: campaign.id });
  await page.goto(`/#/campaigns/${campaign.id as string}`);
  const detail = page.getByTestId('campaign-detail');
  await expect(detail.getByTestId('campaign-status')).toHaveText('Completed');
  const recipients = await download(page, 'recipients-export');
  expect(recipients.name).toBe(
    `parley-campaign-${campaign.id as string}-recipients-${recipients.name.slice(-14)}`,
  );
  expect(recipients.records.map((r) => r.name)).toEqual([
    'Customer 001',
    'Customer 002',
    'Customer 003',
    'Customer 004',
    'Customer 005',
  ]);
  for (const r of recipients.records) {
    expect(r.status).toMatch(/^(sent|delivered|read)$/);
    expect(r.message_id).toMatch(/^msg_/);
  }

  // An email campaign to three addresses (one bounces), then its recipients, one status only.
  const newsletter = await seedGroup(request, key, 'Newsletter', 3, (i) =>
    i === 1 ? 'customer002@bounce.test' : `customer${i + 1}@example.com`,
  );
  await setSimulator(request, key, { emailRatePerSecond: 1000 });
  const email = await apiPost(request, key, '/v1/email/campaigns', {
    name: 'April news',
    subject: 'Hello {{contact.name}}',
    fromEmail: 'news@example.com',
    html: '<p>Spring is here.</p>',
    audience: { groupId: newsletter },
  });
  await apiPost(request, key, `/v1/email/campaigns/${email.id as string}/launch`, {});
  await page.goto(`/#/email/${email.id as string}`);
  const emailDetail = page.getByTestId('email-detail');
  await expect(emailDetail.getByTestId('email-campaign-status')).toHaveText('Completed');
  const all = await download(page, 'email-recipients-export');
  expect(all.records.map((r) => r.email).sort()).toEqual([
    'customer002@bounce.test',
    'customer1@example.com',
    'customer3@example.com',
  ]);
  await emailDetail.getByTestId('email-recipient-filter-bounced').click();
  await expect(emailDetail.getByTestId('email-recipient-row')).toHaveCount(1);
  const bounced = await download(page, 'email-recipients-export');
  expect(bounced.records).toMatchObject([{ email: 'customer002@bounce.test', status: 'bounced' }]);

  // Each export is in the audit trail.
  await page.goto('/#/settings/audit');
  await expect(page.getByTestId('audit-row').filter({ hasText: 'Exported data' })).toHaveCount(4);
});

test('workspace settings change on their screen and are in force at once: the low-balance warning, private targets, assignment, the public URL, business hours', async ({
  page,
  request,
  server,
}) => {
  // $10.00 in the wallet; the default threshold is $5.00.
  await parleyCli(server, ['wallet', 'topup', '--amount', '10.00']);
  await page.goto('/#/inbox');
  await page.getByTestId('mode-live').click();
  await expect(page.getByTestId('mode-live')).toHaveAttribute('aria-pressed', 'true');
  await page.getByTestId('nav-settings-workspace').click();
  const screen = page.getByTestId('screen-workspace');
  await expect(screen.getByRole('heading', { level: 1 })).toHaveText('Workspace');
  await expect(page.getByTestId('low-balance-warning')).toHaveCount(0);

  // A threshold above the balance: the top bar warns at once, on every live screen.
  const threshold = screen.getByTestId('ws-low-balance');
  await expect(threshold).toHaveValue('5.00');
  await threshold.fill('lots');
  await screen.getByTestId('ws-low-balance-save').click();
  await expect(screen.getByTestId('ws-low-balance-error')).toContainText('Enter an amount');
  await threshold.fill('20');
  await screen.getByTestId('ws-low-balance-save').click();
  const warning = page.getByTestId('low-balance-warning');
  await expect(warning).toContainText('Low balance: $10.00');
  await expect(screen.getByTestId('ws-wallet')).toContainText('under the threshold');
  for (const where of ['nav-inbox', 'nav-contacts', 'nav-campaigns', 'nav-wallet']) {
    await page.getByTestId(where).click();
    await expect(warning).toBeVisible();
  }
  // Not in test mode; back in live mode, a top-up clears it.
  await page.getByTestId('mode-test').click();
  await expect(warning).toHaveCount(0);
  await page.getByTestId('mode-live').click();
  await expect(warning).toBeVisible();
  await page.getByTestId('topup-amount').fill('15');
  await page
    .getByTestId('topup-form')
    .getByRole('button', { name: /top up/i })
    .click();
  await expect(warning).toHaveCount(0);

  // Private targets: a loopback webhook is refused until the setting allows it.
  const key = await createApiKey(server, 'test', 'e2e-settings');
  const hook = { url: 'http://127.0.0.1:9/hook', events: ['message.received'] };
  const refused = await request.post('/webhooks', { headers: { 'X-API-Key': key }, data: hook });
  expect(refused.status()).toBe(400);
  await page.goto('/#/settings/workspace');
  await screen.getByTestId('ws-allow-private').click();
  await expect(screen.getByTestId('ws-allow-private')).toBeChecked();
  await expect(page.getByTestId('toast-success').last()).toContainText(
    'Private and loopback targets are allowed',
  );
  await apiPost(request, key, '/webhooks', hook);

  // Assignment is one record with Settings → Team.
  await screen.getByTestId('team-auto-assign').click();
  await expect(screen.getByTestId('team-auto-assign')).toBeChecked();
  await expect(screen.getByTestId('ws-capacity-note')).toContainText('Settings → Team');
  await screen.getByTestId('ws-capacity-note').getByRole('link').click();
  await expect(page.getByTestId('screen-team').getByTestId('team-auto-assign')).toBeChecked();

  // The public URL: email links use it at once.
  await page.goto('/#/settings/workspace');
  const url = screen.getByTestId('ws-public-url');
  await url.fill('desk.acme.example');
  await screen.getByTestId('ws-public-url-save').click();
  await expect(screen.getByTestId('ws-public-url-error')).toContainText('https://');
  await url.fill('https://desk.acme.example/');
  await screen.getByTestId('ws-public-url-save').click();
  await expect(screen.getByTestId('ws-public-url-save')).toBeDisabled();
  const email = await page.request.get('/v1/email/settings');
  expect(((await email.json()) as { effectivePublicUrl: string }).effectivePublicUrl).toBe(
    'https://desk.acme.example',
  );

  // Business hours: a range that closes before it opens is refused on its field; then saved.
  const hours = screen.getByTestId('ws-hours');
  await expect(hours.getByTestId('ws-hours-now')).toContainText(/Open now|Closed now/);
  await hours.getByTestId('ws-hours-timezone').selectOption('Europe/Berlin');
  await hours.getByTestId('ws-hours-sat-add').click();
  await hours.getByTestId('ws-hours-sat-0-to').fill('08:00');
  await hours.getByTestId('ws-hours-save').click();
  await expect(hours.getByTestId('ws-hours-sat-0-to-error')).toContainText('Close after you open');
  await expect(hours.getByTestId('ws-hours-sat-0-to')).toBeFocused();
  await hours.getByTestId('ws-hours-sat-0-to').fill('13:00');
  await hours.getByTestId('ws-hours-fri-0-remove').click();
  await hours.getByTestId('ws-hours-holiday').fill('2026-12-24');
  await hours.getByTestId('ws-hours-holiday-add').click();
  await hours.getByTestId('ws-hours-save').click();
  await expect(hours.getByTestId('ws-hours-save')).toBeDisabled();
  const saved = (await (await page.request.get('/settings/business-hours')).json()) as {
    timeZone: string;
    days: Record<string, unknown[]>;
    holidays: string[];
  };
  expect(saved).toMatchObject({
    timeZone: 'Europe/Berlin',
    days: { sat: [{ from: '09:00', to: '13:00' }], fri: [] },
    holidays: ['2026-12-24'],
  });
  await expect(hours.getByTestId('ws-hours-now')).toContainText('(Europe/Berlin)');

  // Retention is the desk's: shown, with how it is set.
  const retention = screen.getByTestId('ws-retention');
  await expect(retention.getByTestId('ws-retention-row')).toHaveCount(11);
  await expect(retention.locator('[data-kind="events"]')).toContainText('30 days');
  await expect(retention.locator('[data-kind="events"]')).toContainText(
    'PARLEY_RETENTION_EVENTS_DAYS',
  );

  // Every change is in the audit trail (which fields, not their values).
  await page.goto('/#/settings/audit');
  await expect(page.getByTestId('audit-row').filter({ hasText: 'Changed settings' })).toHaveCount(
    5,
  );
});
