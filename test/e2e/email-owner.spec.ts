import path from 'node:path';
import Database from 'better-sqlite3';
import { seedGroup, setSimulator } from './campaign-seed.ts';
import { audit } from './axe-audit.ts';
import { apiPost, createApiKey, expect, signInLink, test, waitForLiveUpdates } from './fixtures.ts';

/**
 * Email on the owner's desk (issue 24 items 4 and 5), in Chromium: a body written in Markdown and
 * previewed, a test filled from a chosen contact, a launch, "simulate a click" from the
 * recipients table and the per-link report it moves, and the branded unsubscribe page with
 * Resubscribe (no script, the page's CSP kept), each screen axe-clean.
 */

const MARKDOWN = `# Hello {{contact.firstName}}

Our [spring sale](https://example.com/spring) is **on**.

<b>not markup</b>`;

/** The email's tokens are unguessable and only in the email itself: read from the data dir. */
function unsubscribePath(dataDir: string, campaignId: string, address: string): string {
  const db = new Database(path.join(dataDir, 'parley.db'), { readonly: true });
  try {
    const row = db
      .prepare('SELECT token FROM email_messages WHERE campaign_id = ? AND to_address = ?')
      .get(campaignId, address) as { token: string };
    return `/e/u/${row.token}`;
  } finally {
    db.close();
  }
}

test('an owner writes in Markdown, tests with a real contact, simulates a click and sees the link report; the recipient unsubscribes and resubscribes', async ({
  page,
  request,
  server,
  browser,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-email-owner');
  await seedGroup(request, key, 'Owners', 3, (i) => `owner${i + 1}@example.com`);
  await setSimulator(request, key, {
    emailRatePerSecond: 100,
    deliveryLatencyMs: 20,
    readLatencyMs: 40,
  });
  // The contact a test is filled from: not one of the recipients.
  await apiPost(request, key, '/api/contacts', {
    phone: '+14155550177',
    name: 'Zoë Quinn',
    email: 'zoe@example.com',
  });

  await page.goto('/#/email/new');
  await expect(page.getByTestId('mode-test')).toHaveAttribute('aria-pressed', 'true');
  await waitForLiveUpdates(page);
  const editor = page.getByTestId('email-editor');
  await editor.getByTestId('email-name').fill('Spring in Markdown');
  await editor.getByTestId('email-fromName').fill('Acme Shop');
  await editor.getByTestId('email-fromEmail').fill('news@example.com');
  await editor.getByTestId('campaign-group').selectOption({ label: 'Owners (3 contacts)' });
  await editor.getByTestId('email-subject').fill('Hi {{contact.firstName}}');

  // Markdown | HTML: the body written in Markdown, previewed through the same sanitised frame.
  await editor.getByTestId('email-format-markdown').check();
  await expect(editor.getByTestId('email-tab-html')).toHaveText('Markdown');
  await editor.getByTestId('email-markdown').fill(MARKDOWN);
  const preview = page.frameLocator('[data-testid="email-preview-frame"]');
  await expect(preview.locator('h1')).toHaveText('Hello Customer');
  await expect(preview.locator('a')).toHaveText('spring sale');
  await expect(preview.locator('strong')).toHaveText('on');
  // Raw HTML in Markdown is text, never markup.
  await expect(preview.locator('b')).toHaveCount(0);
  await expect(preview.locator('body')).toContainText('<b>not markup</b>');
  await expect(page.getByTestId('email-preview-frame')).toHaveAttribute(
    'sandbox',
    'allow-same-origin',
  );

  // A test filled from a chosen contact, to the address typed.
  await editor.getByTestId('email-test-contact-search').fill('Zoë');
  await editor.getByTestId('email-test-contact-option').filter({ hasText: 'Zoë Quinn' }).click();
  await expect(editor.getByTestId('email-test-contact-chosen')).toContainText('zoe@example.com');
  await editor.getByTestId('email-test-to').fill('me@example.com');
  const testSent = page.waitForResponse(
    (r) => /\/v1\/email\/campaigns\/[^/]+\/test$/.test(r.url()) && r.request().method() === 'POST',
  );
  await editor.getByTestId('email-test-send').click();
  const testAnswer = (await (await testSent).json()) as { to: string; subject: string };
  expect(testAnswer).toMatchObject({ to: 'me@example.com', subject: '[Test] Hi Zoë' });
  await expect(editor.getByTestId('email-test-result')).toHaveAttribute('data-status', 'delivered');

  // Saved as Markdown (the test saved it): a reload opens it as written.
  await expect(page).toHaveURL(/#\/email\/[^/]+\/edit$/);
  const campaignId = /#\/email\/([^/]+)\/edit$/.exec(page.url())![1]!;
  const saved = (await (
    await request.get(`/v1/email/campaigns/${campaignId}`, { headers: { 'X-API-Key': key } })
  ).json()) as { markdown: string | null; html: string };
  expect(saved.markdown).toBe(MARKDOWN);
  expect(saved.html).toContain('<a href="https://example.com/spring">spring sale</a>');
  await page.reload();
  await expect(editor.getByTestId('email-format-markdown')).toBeChecked();
  await expect(editor.getByTestId('email-markdown')).toHaveValue(MARKDOWN);

  // Launched, it completes.
  await editor.getByTestId('email-launch').click();
  await page.getByTestId('email-launch-dialog').getByTestId('email-launch-confirm').click();
  const detail = page.getByTestId('email-detail');
  await expect(detail.getByTestId('email-campaign-status')).toHaveText('Completed', {
    timeout: 20_000,
  });
  await expect(detail.getByTestId('email-links-none')).toBeVisible();

  // "Simulate a click" on one recipient: the row, the funnel and the link report follow.
  await detail.getByTestId('email-recipients-refresh').click();
  const row = detail.getByTestId('email-recipient-row').filter({ hasText: 'owner1@example.com' });
  await expect(row.getByTestId('email-simulate-click')).toBeVisible();
  await row.getByTestId('email-simulate-click').click();
  const link = detail.getByTestId('email-link-row');
  await expect(link).toHaveCount(1);
  await expect(link).toContainText('https://example.com/spring');
  await expect(link.getByTestId('email-link-recipients')).toHaveText('1');
  await expect(link.getByTestId('email-link-clicks')).toHaveText('1');
  await expect(detail.getByTestId('email-funnel-clicked')).toHaveAttribute('data-value', '1');
  await row.getByTestId('email-simulate-click').click();
  await expect(link.getByTestId('email-link-clicks')).toHaveText('2');
  await expect(detail.getByTestId('email-links-summary')).toHaveText('2 clicks by 1 recipient');

  // The recipient's unsubscribe page: branded, no script; unsubscribe, then resubscribe.
  const unsubscribe = unsubscribePath(server.dataDir, campaignId, 'owner2@example.com');
  const recipient = await browser.newPage({ baseURL: server.url, javaScriptEnabled: false });
  const violations: string[] = [];
  recipient.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await recipient.goto(unsubscribe);
  await expect(recipient.getByRole('heading', { level: 1 })).toHaveText(
    'Unsubscribe from Acme Shop emails?',
  );
  await expect(recipient.locator('main')).toContainText('owner2@example.com');
  await expect(recipient.locator('main')).toContainText('the list “Owners”');
  await recipient.getByRole('button', { name: 'Unsubscribe' }).click();
  await expect(recipient.getByRole('heading', { level: 1 })).toHaveText('You are unsubscribed');
  await expect
    .poll(async () => {
      const r = await request.get(`/v1/email/campaigns/${campaignId}`, {
        headers: { 'X-API-Key': key },
      });
      return ((await r.json()) as { counts: { unsubscribed: number } }).counts.unsubscribed;
    })
    .toBe(1);
  await recipient.getByRole('button', { name: 'Resubscribe' }).click();
  await expect(recipient.getByRole('heading', { level: 1 })).toHaveText('You are subscribed again');
  await expect(recipient.getByRole('button', { name: 'Unsubscribe' })).toBeVisible();
  await expect(detail.getByTestId('email-funnel-unsubscribed')).toHaveAttribute('data-value', '0');
  expect(violations).toEqual([]);
  await recipient.close();

  // axe: the editor in Markdown with a chosen contact, the report, and the public page.
  const context = await browser.newContext({ bypassCSP: true, baseURL: server.url });
  expect((await context.request.get(await signInLink(server), { maxRedirects: 0 })).status()).toBe(
    303,
  );
  const a11y = await context.newPage();
  const found: string[] = [];
  await a11y.goto(`/#/email/${campaignId}`);
  await expect(a11y.getByTestId('email-link-row')).toHaveCount(1);
  await expect(a11y.getByTestId('email-recipient-row').first()).toBeVisible();
  found.push(...(await audit(a11y, 'email report with links')));

  const draft = await apiPost(request, key, '/v1/email/campaigns', {
    name: 'Draft in Markdown',
    subject: 'Hello',
    fromEmail: 'news@example.com',
    markdown: MARKDOWN,
    audience: { filter: { labels: ['nobody'] } },
  });
  await a11y.goto(`/#/email/${draft.id as string}/edit`);
  const form = a11y.getByTestId('email-editor');
  await expect(form.getByTestId('email-format-markdown')).toBeChecked();
  await form.getByTestId('email-test-contact-search').fill('Zoë');
  await expect(form.getByTestId('email-test-contact-option')).toHaveCount(1);
  found.push(...(await audit(a11y, 'editor, Markdown, contact search')));
  await form.getByTestId('email-test-contact-option').click();
  found.push(...(await audit(a11y, 'editor, contact chosen')));

  await a11y.goto(unsubscribe);
  found.push(...(await audit(a11y, 'unsubscribe page')));
  await a11y.getByRole('button', { name: 'Unsubscribe' }).click();
  await expect(a11y.getByRole('heading', { level: 1 })).toHaveText('You are unsubscribed');
  found.push(...(await audit(a11y, 'unsubscribed page')));
  expect(found, found.join('\n')).toEqual([]);
  await context.close();
});
