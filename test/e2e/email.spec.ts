import type { AddressInfo } from 'node:net';
import type { APIRequestContext } from '@playwright/test';
import { SMTPServer } from 'smtp-server';
import type { EmailCounts } from '../../shared/schemas/email.ts';
import { seedGroup, setSimulator } from './campaign-seed.ts';
import { audit } from './axe-audit.ts';
import {
  allowPrivateTargets,
  apiPost,
  createApiKey,
  expect,
  signInLink,
  test,
  waitForLiveUpdates,
} from './fixtures.ts';

/** Contacts of the "Newsletter" group with an email, and without one. */
const WITH_EMAIL = 60;
const WITHOUT_EMAIL = 4;
/** The simulated transport's magic addresses (README "Email"). */
const BOUNCES = 'customer002@bounce.test';
const NEVER_OPENS = 'customer003@noopen.test';

const emailOf = (i: number): string | undefined => {
  if (i >= WITH_EMAIL) return undefined;
  if (i === 1) return BOUNCES;
  if (i === 2) return NEVER_OPENS;
  return `customer${String(i + 1).padStart(3, '0')}@example.com`;
};

/**
 * A "Newsletter" group of contacts, WITH_EMAIL of them with an address (one bounces, one never
 * opens) and WITHOUT_EMAIL without, and a simulated transport slow enough to pause. Returns the
 * group's id.
 */
async function seed(
  request: APIRequestContext,
  key: string,
  settings: Record<string, number>,
): Promise<string> {
  const groupId = await seedGroup(request, key, 'Newsletter', WITH_EMAIL + WITHOUT_EMAIL, emailOf);
  await setSimulator(request, key, settings);
  return groupId;
}

const HTML = `<h1>Hello {{contact.name}}</h1>
<p style="color: rgb(0, 128, 0)">Our spring collection is here.</p>
<p><a href="https://example.com/spring">See it</a></p>`;

test('an email campaign is created for a group, launched, paused, resumed and followed live to the end', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-email');
  // 10 emails a second: the campaign takes a few seconds, long enough to pause it.
  await seed(request, key, { emailRatePerSecond: 10, deliveryLatencyMs: 50, readLatencyMs: 100 });
  const headers = { 'X-API-Key': key };

  // The screen explains what email campaigns are for before there is one.
  await page.goto('/#/email');
  await expect(page.getByTestId('mode-test')).toHaveAttribute('aria-pressed', 'true');
  await waitForLiveUpdates(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Email');
  await expect(page.getByTestId('email-empty')).toContainText('unsubscribe link');
  await page.getByTestId('email-create-first').click();

  // The editor: sender, the group (counted live by the core), subject and body.
  const editor = page.getByTestId('email-editor');
  await editor.getByTestId('email-name').fill('Spring news');
  await editor.getByTestId('email-fromName').fill('The Shop');
  await editor.getByTestId('email-fromEmail').fill('news@example.com');
  await editor
    .getByTestId('campaign-group')
    .selectOption({ label: `Newsletter (${WITH_EMAIL + WITHOUT_EMAIL} contacts)` });
  await expect(editor.getByTestId('email-audience-count')).toHaveText(
    `${WITH_EMAIL} recipients · ${WITHOUT_EMAIL} without email · 0 unsubscribed`,
  );

  // Limits hold as the user types.
  await editor.getByTestId('email-subject').fill('x'.repeat(201));
  await expect(editor.getByTestId('email-subject-error')).toContainText('At most 200 characters');
  await editor.getByTestId('email-subject').fill('Spring is here, {{contact.name}}');
  await expect(editor.getByTestId('email-subject-error')).toHaveCount(0);
  await editor.getByTestId('email-html').fill(HTML);

  // The preview is the email filled in for one of the recipients, its inline styles applied,
  // in a frame that runs no script (the page's CSP is checked by the fixture).
  await expect(editor.getByTestId('email-sample')).toContainText('one of the recipients');
  const sample = /Filled in for (Customer \d{3})/.exec(
    (await editor.getByTestId('email-sample').textContent()) ?? '',
  )?.[1];
  expect(sample).toBeTruthy();
  await expect(editor.getByTestId('email-preview-subject')).toHaveText(`Spring is here, ${sample}`);
  const preview = page.frameLocator('[data-testid="email-preview-frame"]');
  await expect(preview.locator('h1')).toHaveText(`Hello ${sample}`);
  await expect(preview.locator('p').first()).toHaveCSS('color', 'rgb(0, 128, 0)');
  await expect(page.getByTestId('email-preview-frame')).toHaveAttribute(
    'sandbox',
    'allow-same-origin',
  );

  // The plain-text tab: empty means made from the HTML.
  await editor.getByTestId('email-tab-text').click();
  await expect(editor.getByTestId('email-preview-text')).toContainText(`Hello ${sample}`);
  await expect(editor.getByTestId('email-preview-text')).toContainText(
    'https://example.com/spring',
  );
  await editor.getByTestId('email-tab-html').click();

  // A test to one address saves the campaign first, then follows the email to its outcome.
  await editor.getByTestId('email-test-to').fill('me@example.com');
  await editor.getByTestId('email-test-send').click();
  await expect(editor.getByTestId('email-test-result')).toContainText('me@example.com');
  await expect(editor.getByTestId('email-test-result')).toHaveAttribute('data-status', 'delivered');
  await expect(page).toHaveURL(/#\/email\/[^/]+\/edit$/);
  await expect(editor.getByRole('heading', { level: 1 })).toHaveText('Edit draft email campaign');

  await editor.getByTestId('email-launch').click();
  const launch = page.getByTestId('email-launch-dialog');
  await expect(launch.getByTestId('email-launch-count')).toHaveText(`${WITH_EMAIL} recipients`);
  await launch.getByTestId('email-launch-confirm').click();

  // Its page: sending, then paused on request while emails are still going out.
  const detail = page.getByTestId('email-detail');
  await expect(detail.getByTestId('email-title')).toHaveText('Spring news');
  const status = detail.getByTestId('email-campaign-status');
  await expect(status).toHaveText('Sending');
  await detail.getByTestId('email-pause').click();
  await page.getByTestId('email-pause-dialog').getByTestId('email-pause-confirm').click();
  await expect(status).toHaveText('Paused');
  await expect(detail.getByTestId('email-paused-notice')).toContainText('Paused.');
  const bar = detail.getByRole('progressbar', { name: 'Progress of Spring news' });
  expect(Number(await bar.getAttribute('aria-valuenow'))).toBeLessThan(100);

  const campaignId = await detail.getAttribute('data-campaign-id');
  const read = async (): Promise<{ status: string; counts: EmailCounts }> => {
    const response = await request.get(`/v1/email/campaigns/${campaignId}`, { headers });
    expect(response.status()).toBe(200);
    return (await response.json()) as { status: string; counts: EmailCounts };
  };
  expect((await read()).status).toBe('paused');

  // Resumed, it runs to the end; the bar and the funnel follow the event stream.
  await detail.getByTestId('email-resume').click();
  await page.getByTestId('email-resume-dialog').getByTestId('email-resume-confirm').click();
  await expect(status).toHaveText('Sending');
  await expect(bar).toHaveAttribute('aria-valuenow', '100', { timeout: 20_000 });
  await expect(status).toHaveText('Completed');
  await expect(detail.getByTestId('email-done')).toHaveText(
    `${WITH_EMAIL} of ${WITH_EMAIL} done · 100%`,
  );

  // Opens keep arriving after the last send; the funnel ends where the API does.
  await expect
    .poll(async () => (await read()).counts.opened, { timeout: 15_000 })
    .toBe(WITH_EMAIL - 2);
  const final = (await read()).counts;
  expect(final).toMatchObject({
    total: WITH_EMAIL,
    pending: 0,
    sent: WITH_EMAIL,
    delivered: WITH_EMAIL - 1,
    bounced: 1,
    failed: 0,
    cancelled: 0,
  });
  const shown = [
    'sent',
    'delivered',
    'opened',
    'clicked',
    'bounced',
    'failed',
    'unsubscribed',
    'cancelled',
    'pending',
  ] as const;
  for (const step of shown) {
    await expect(detail.getByTestId(`email-funnel-${step}`)).toHaveAttribute(
      'data-value',
      String(final[step]),
    );
  }
  await expect(detail.getByTestId('email-opens-note')).toContainText('Opens are an estimate');

  // The activity chart is drawn on a canvas, its totals said beside it.
  await expect(detail.getByTestId('email-activity-chart').locator('canvas').first()).toBeVisible();
  await expect(detail.getByTestId('email-activity-readout')).toContainText(`${WITH_EMAIL} sent`);

  // The recipients, by status.
  await detail.getByTestId('email-recipients-refresh').click();
  await detail.getByTestId('email-recipient-filter-bounced').click();
  const bounced = detail.getByTestId('email-recipient-row');
  await expect(bounced).toHaveCount(1);
  await expect(bounced).toHaveAttribute('data-status', 'bounced');
  await expect(bounced).toContainText(BOUNCES);
  await detail.getByTestId('email-recipient-filter-failed').click();
  await expect(detail.getByTestId('email-recipients-empty')).toHaveText('No failed recipients.');

  // The list shows it completed with its numbers.
  await page.getByTestId('nav-email').click();
  const row = page.getByTestId('email-row').filter({ hasText: 'Spring news' });
  await expect(row.getByTestId('email-campaign-status')).toHaveText('Completed');
  await expect(row.getByTestId('email-row-sent')).toHaveText(String(final.sent));
  await expect(row.getByTestId('email-row-opened')).toHaveText(String(final.opened));
  await expect(row.getByTestId('email-row-bounced')).toHaveText(String(final.bounced));

  // A contact's details say whether they receive email.
  await page.getByTestId('nav-contacts').click();
  await page.getByTestId('contacts-search').fill('Customer 004');
  await page.getByTestId('contact-row').filter({ hasText: 'Customer 004' }).click();
  await expect(page.getByTestId('contact-email-state')).toHaveText('Subscribed to email');
});

/**
 * A real SMTP server on 127.0.0.1 (plain, no STARTTLS) that signs in `news` / `right` and records
 * who it was asked to deliver to.
 */
async function mailServer(): Promise<{ port: number; to: string[]; close: () => Promise<void> }> {
  const to: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 200,
    onAuth(auth, _session, callback) {
      if (auth.username === 'news' && auth.password === 'right') callback(null, { user: 'news' });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        to.push(...session.envelope.rcptTo.map((r) => r.address));
        callback(null, 'Queued as E2E1');
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, to, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('email settings keep the password write-only and check the SMTP server, answering in its words', async ({
  page,
}) => {
  const smtp = await mailServer();
  try {
    await page.goto('/#/email/settings');
    // The server listens on 127.0.0.1: a private target the workspace must allow (README "Email").
    await allowPrivateTargets(page.request);
    const settings = page.getByTestId('email-settings');
    // Test mode always uses the simulated transport, and says so.
    await expect(settings.getByTestId('email-transport')).toHaveAttribute(
      'data-transport',
      'simulated',
    );
    await expect(settings.getByTestId('email-one-click')).toHaveAttribute('data-on', 'false');

    await settings.getByTestId('email-settings-smtp').check();
    await settings.getByTestId('email-settings-smtp-host').fill('127.0.0.1');
    await settings.getByTestId('email-settings-smtp-port').fill(String(smtp.port));
    // 465 vs 587: the port follows the TLS choice only while it is one of the usual two.
    await settings.getByTestId('email-settings-smtp-secure').check();
    await expect(settings.getByTestId('email-settings-smtp-port')).toHaveValue(String(smtp.port));
    await settings.getByTestId('email-settings-smtp-secure').uncheck();
    await settings.getByTestId('email-settings-smtp-user').fill('news');
    await expect(settings.getByTestId('email-settings-smtp-password-state')).toHaveText('Not set');
    await settings.getByTestId('email-settings-smtp-password').fill('wrong');
    await settings.getByTestId('email-settings-publicUrl').fill('https://mail.example.com');
    await settings.getByTestId('email-settings-save').click();

    // Saved: the password is only "set" from now on, and stays so after a reload.
    await expect(settings.getByTestId('email-settings-smtp-password-state')).toHaveText('Set');
    await expect(settings.getByTestId('email-settings-smtp-password')).toHaveCount(0);
    await expect(settings.getByTestId('email-one-click')).toHaveAttribute('data-on', 'true');
    await page.reload();
    await expect(settings.getByTestId('email-settings-smtp-host')).toHaveValue('127.0.0.1');
    await expect(settings.getByTestId('email-settings-smtp-password-state')).toHaveText('Set');

    // The wrong password: classified, with the SMTP server's own refusal quoted.
    await settings.getByTestId('email-check-connection').click();
    const answer = settings.getByTestId('email-check-result');
    await expect(answer).toHaveAttribute('data-ok', 'false');
    await expect(answer).toContainText('The server refused the login');
    await expect(settings.getByTestId('email-check-response')).toContainText(
      'Invalid username or password',
    );

    // Replaced (unsaved changes are saved before the check), it signs in.
    await settings.getByTestId('email-settings-smtp-password-replace').click();
    await settings.getByTestId('email-settings-smtp-password').fill('right');
    await settings.getByTestId('email-check-connection').click();
    await expect(answer).toHaveAttribute('data-ok', 'true');
    await expect(answer).toContainText('Connected and signed in');
    await expect(settings.getByTestId('email-settings-smtp-password-state')).toHaveText('Set');

    // A test message reaches the server.
    await settings.getByTestId('email-settings-check-to').fill('me@example.com');
    await settings.getByTestId('email-send-test-message').click();
    await expect(answer).toContainText('Test message accepted for me@example.com');
    await expect(answer).toHaveAttribute('data-ok', 'true');
    expect(smtp.to).toContain('me@example.com');
  } finally {
    await smtp.close();
  }
});

test('the email screens, their dialogs, the settings and the recipients table pass axe', async ({
  browser,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-email-a11y');
  const groupId = await seed(request, key, { emailRatePerSecond: 1000 });
  const headers = { 'X-API-Key': key };
  const body = {
    subject: 'Hello {{contact.name}}',
    fromEmail: 'news@example.com',
    html: HTML,
    audience: { groupId },
  };
  const sent = await apiPost(request, key, '/v1/email/campaigns', { name: 'Sent', ...body });
  await apiPost(request, key, `/v1/email/campaigns/${sent.id as string}/launch`, {});
  await expect
    .poll(
      async () => {
        const response = await request.get(`/v1/email/campaigns/${sent.id as string}`, {
          headers,
        });
        return ((await response.json()) as { status: string }).status;
      },
      { timeout: 15_000 },
    )
    .toBe('completed');
  const draft = await apiPost(request, key, '/v1/email/campaigns', { name: 'Later', ...body });

  // axe is injected as a script, which the app's CSP refuses: this context bypasses it.
  const context = await browser.newContext({ bypassCSP: true });
  expect((await context.request.get(await signInLink(server), { maxRedirects: 0 })).status()).toBe(
    303,
  );
  const page = await context.newPage();
  const found: string[] = [];

  await page.goto(`/#/email/${sent.id as string}`);
  const detail = page.getByTestId('email-detail');
  await expect(detail.getByTestId('email-campaign-status')).toHaveText('Completed');
  await expect(detail.getByTestId('email-funnel-bounced')).toHaveAttribute('data-value', '1');
  await expect(detail.getByTestId('email-recipient-row').first()).toBeVisible();
  await expect(detail.getByTestId('email-activity-chart').locator('canvas').first()).toBeAttached();
  found.push(...(await audit(page, 'detail')));

  await page.goto('/#/email');
  await expect(page.getByTestId('email-row')).toHaveCount(2);
  found.push(...(await audit(page, 'list')));

  await page.goto(`/#/email/${draft.id as string}`);
  await page.getByTestId('email-cancel').click();
  await expect(page.getByTestId('email-cancel-dialog')).toBeVisible();
  found.push(...(await audit(page, 'cancel dialog')));
  await page.keyboard.press('Escape');

  await page.getByTestId('email-edit').click();
  const editor = page.getByTestId('email-editor');
  await expect(editor.getByTestId('email-audience-count')).toHaveText(
    `${WITH_EMAIL} recipients · ${WITHOUT_EMAIL} without email · 0 unsubscribed`,
  );
  await editor.getByTestId('email-when-later').check();
  await expect(
    page.frameLocator('[data-testid="email-preview-frame"]').locator('h1'),
  ).toBeVisible();
  found.push(...(await audit(page, 'editor')));
  await editor.getByTestId('email-tab-text').click();
  found.push(...(await audit(page, 'editor, plain text')));
  await editor.getByTestId('email-launch').click();
  await expect(page.getByTestId('email-launch-dialog')).toBeVisible();
  found.push(...(await audit(page, 'launch dialog')));
  await page.keyboard.press('Escape');

  await page.goto('/#/email/settings');
  const settings = page.getByTestId('email-settings');
  await expect(settings.getByTestId('email-transport')).toHaveAttribute(
    'data-transport',
    'simulated',
  );
  await settings.getByTestId('email-settings-smtp').check();
  await settings.getByTestId('email-settings-dkim').check();
  found.push(...(await audit(page, 'settings')));

  expect(found, found.join('\n')).toEqual([]);
  await context.close();
});
