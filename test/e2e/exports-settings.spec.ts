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
import { apiPost, createApiKey, expect, test } from './fixtures.ts';

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
