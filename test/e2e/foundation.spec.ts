import { normalizePhone } from '../../shared/phone.ts';
import { expect, test } from './fixtures.ts';

const KEY_PATTERN = /^svc_test_[A-Za-z0-9]{40}$/;

test('creates an API key, shows it once, lists it and revokes it', async ({ page, request }) => {
  await page.goto('/#/settings/keys');
  await expect(page.getByTestId('test-mode-banner')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();

  await page.getByLabel('Key name').fill('CI key');
  await expect(page.getByTestId('key-environment')).toHaveValue('test');
  await page.getByRole('button', { name: 'Create key' }).click();

  const reveal = page.getByTestId('key-reveal');
  await expect(reveal).toBeVisible();
  await expect(reveal).toContainText('will not be shown again');
  const key = ((await reveal.getByTestId('created-key').textContent()) ?? '').trim();
  expect(key).toMatch(KEY_PATTERN);
  await reveal.getByRole('button', { name: 'Done' }).click();
  await expect(reveal).toBeHidden();
  // Shown once: the full key is nowhere on the page any more.
  await expect(page.getByText(key)).toHaveCount(0);

  const row = page.getByTestId('key-row').filter({ hasText: 'CI key' });
  await expect(row).toHaveCount(1);
  const prefix = ((await row.getByTestId('key-prefix').textContent()) ?? '').replace('…', '');
  expect(prefix).toMatch(/^svc_test_[A-Za-z0-9]+$/);
  expect(prefix.length).toBeLessThan(key.length);
  expect(key.startsWith(prefix)).toBe(true);
  await expect(row.getByTestId('env-badge')).toHaveText('Test');
  await expect(row.getByTestId('key-last-used')).toHaveText('never');
  await expect(row.getByTestId('key-status')).toHaveText('Active');

  // The key really works against the API until it is revoked.
  const before = await request.get('/api/me', { headers: { 'X-API-Key': key } });
  expect(before.status()).toBe(200);

  await row.getByRole('button', { name: 'Revoke' }).click();
  const confirm = page.getByTestId('revoke-dialog');
  await expect(confirm).toBeVisible();
  await expect(confirm).toContainText('Revoke “CI key”?');
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await expect(confirm).toBeHidden();
  await expect(row.getByTestId('key-status')).toHaveText(/^Revoked \S/);
  await expect(row.getByRole('button', { name: 'Revoke' })).toHaveCount(0);

  const after = await request.get('/api/me', { headers: { 'X-API-Key': key } });
  expect(after.status()).toBe(401);
  expect((await after.json()).error.code).toBe('invalid_api_key');

  // The list comes from the core, not from memory.
  await page.reload();
  await expect(row.getByTestId('key-status')).toHaveText(/^Revoked \S/);
});

/** 300 data rows; two are broken (an invalid phone, a missing phone). */
function contactsCsv(): { csv: string; badLines: number[] } {
  const header = 'phone,name,email,labels,city';
  const rows: string[] = [];
  const badLines: number[] = [];
  for (let i = 0; i < 300; i++) {
    const n = String(i).padStart(3, '0');
    const line = i + 2; // the header is line 1
    if (i === 41) {
      rows.push(`not-a-phone,Broken ${n},broken${n}@example.com,vip,Berlin`);
      badLines.push(line);
    } else if (i === 177) {
      rows.push(`,Nophone ${n},nophone${n}@example.com,,Hamburg`);
      badLines.push(line);
    } else {
      const phone = `+4915112345${n}`;
      if (normalizePhone(phone) !== phone) throw new Error(`test data: ${phone} is not valid`);
      rows.push(`${phone},Person ${n},person${n}@example.com,customer;batch-${i % 3},Munich`);
    }
  }
  return { csv: [header, ...rows].join('\n') + '\n', badLines };
}

test('imports a CSV with progress, reports bad rows, and lists contacts virtualised', async ({
  page,
}) => {
  const { csv, badLines } = contactsCsv();
  await page.goto('/#/contacts');
  await expect(page.getByTestId('contacts-empty')).toContainText('No contacts yet');

  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByTestId('import-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByTestId('import-file').setInputFiles({
    name: 'contacts.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();

  await expect(dialog.getByTestId('import-summary')).toHaveText(
    'Import finished: 298 created, 0 updated, 2 failed.',
  );
  await expect(dialog.getByTestId('import-created')).toHaveText('298');
  await expect(dialog.getByTestId('import-failed')).toHaveText('2');
  await expect(dialog.getByTestId('import-error-line')).toHaveText(badLines.map(String));
  await expect(dialog.getByRole('progressbar')).toHaveAttribute('value', '1');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();

  const rows = page.getByTestId('contact-row');
  await expect(rows.first()).toBeVisible();
  await expect(rows.first()).toContainText('+4915112345299'); // newest first
  await expect(rows.first()).toContainText('customer');

  // Scrolling to the end pages through every contact while the DOM keeps only a window of rows.
  const scroller = page.getByTestId('contacts-scroll');
  const count = page.getByTestId('contacts-count');
  const oldest = rows.filter({ hasText: '+4915112345000' });
  // The total is known from the first page, before any scrolling.
  await expect(count).toHaveText('298 contacts');
  await expect(async () => {
    await scroller.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect(oldest).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(count).toHaveText('298 contacts');
  const domRows = await rows.count();
  expect(domRows).toBeGreaterThan(0);
  expect(domRows).toBeLessThan(100);

  await page.getByTestId('contacts-search').fill('Person 123');
  await expect(count).toHaveText('1 contact');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('+4915112345123');
  await expect(rows.first()).toContainText('person123@example.com');

  await page.getByTestId('contacts-search').fill('');
  await page.getByTestId('contacts-label-filter').fill('batch-1');
  await expect(count).toHaveText(/^(100 shown · scroll for more|100 contacts)$/);
  await expect(rows.first()).toContainText('batch-1');
});

test('tops up the wallet and shows the balance and the ledger entry', async ({ page }) => {
  await page.goto('/#/wallet');
  await expect(page.getByTestId('wallet-balance')).toHaveText('$0.00');
  await expect(page.getByTestId('wallet-test-note')).toContainText('never touch the wallet');

  await page.getByLabel('Amount (USD)').fill('twenty');
  await page.getByRole('button', { name: 'Top up' }).click();
  await expect(page.getByTestId('topup-amount-error')).toBeVisible();

  await page.getByLabel('Amount (USD)').fill('25.00');
  await page.getByRole('button', { name: 'Top up' }).click();
  await expect(page.getByTestId('wallet-balance')).toHaveText('$25.00');
  await expect(page.getByTestId('topup-amount-error')).toHaveCount(0);

  const entry = page.getByTestId('ledger-row');
  await expect(entry).toHaveCount(1);
  await expect(entry.first()).toContainText('Top-up');
  await expect(entry.first().getByTestId('ledger-amount')).toHaveText('+$25.00');
  await expect(entry.first()).toContainText('$25.00');

  // The balance is the core's, not the page's.
  await page.reload();
  await expect(page.getByTestId('wallet-balance')).toHaveText('$25.00');
  await expect(page.getByTestId('ledger-row')).toHaveCount(1);
});
