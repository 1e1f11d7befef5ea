import { seedGroup, setSimulator } from './campaign-seed.ts';
import { audit } from './axe-audit.ts';
import { apiPost, createApiKey, expect, signedInAuditPage, test } from './fixtures.ts';

/** Every label the page's canvases drew at their latest paint: text, centre x, width, y. */
interface Drawn {
  text: string;
  x: number;
  y: number;
  width: number;
  align: string;
}

test.use({ viewport: { width: 1024, height: 700 } });

test('the activity chart’s time labels never overlap at 1024 px, and the owner previews the unsubscribe page without unsubscribing anyone', async ({
  page,
  request,
  server,
  browser,
}) => {
  // What uPlot writes on its canvas, per canvas, since its latest clear.
  await page.addInitScript(() => {
    const logs = new WeakMap<HTMLCanvasElement, Drawn[]>();
    const all = new Set<HTMLCanvasElement>();
    const proto = CanvasRenderingContext2D.prototype;
    const clear = proto.clearRect;
    proto.clearRect = function (...args: Parameters<typeof clear>) {
      logs.set(this.canvas, []);
      all.add(this.canvas);
      return clear.apply(this, args);
    };
    const fill = proto.fillText;
    proto.fillText = function (text: string, x: number, y: number, maxWidth?: number) {
      const log = logs.get(this.canvas) ?? [];
      logs.set(this.canvas, log);
      all.add(this.canvas);
      log.push({ text, x, y, width: this.measureText(text).width, align: this.textAlign });
      return maxWidth === undefined
        ? fill.call(this, text, x, y)
        : fill.call(this, text, x, y, maxWidth);
    };
    (window as unknown as { drawnLabels: () => Drawn[][] }).drawnLabels = () =>
      [...all].filter((c) => c.isConnected).map((c) => logs.get(c) ?? []);
  });

  const key = await createApiKey(server, 'test', 'e2e-email-journey');
  const groupId = await seedGroup(request, key, 'Readers', 3, (i) => `reader${i + 1}@example.com`);
  await setSimulator(request, key, {
    emailRatePerSecond: 100,
    deliveryLatencyMs: 20,
    readLatencyMs: 40,
  });
  const campaign = await apiPost(request, key, '/v1/email/campaigns', {
    name: 'Spring news',
    subject: 'Hi {{contact.name}}',
    fromName: 'Acme Shop',
    fromEmail: 'news@example.com',
    html: '<p>Hello</p>',
    audience: { groupId },
  });
  const id = campaign.id as string;
  await apiPost(request, key, `/v1/email/campaigns/${id}/launch`, {});

  // A campaign whose activity spans 40 one-second buckets (the journey's 20 s one ran its labels
  // into each other): the timeline is answered here, so the span does not race the clock.
  const start = Date.parse('2026-11-26T15:33:00Z');
  await page.route(`**/v1/email/campaigns/${id}/timeline`, (route) =>
    route.fulfill({
      json: {
        bucketSeconds: 1,
        data: Array.from({ length: 40 }, (_, i) => ({
          at: new Date(start + i * 1000).toISOString(),
          sent: i < 2 ? 17 : 0,
          opened: i >= 2 && i < 4 ? 17 : 0,
          clicked: i === 39 ? 1 : 0,
        })),
      },
    }),
  );

  await page.goto(`/#/email/${id}`);
  const chart = page.getByTestId('email-activity-chart');
  await expect(chart.locator('canvas')).toBeVisible();
  await expect(page.getByTestId('email-activity-readout')).toContainText('34 sent');

  const timeLabels = async () => {
    const drawn = await page.evaluate(() =>
      (window as unknown as { drawnLabels: () => Drawn[][] }).drawnLabels(),
    );
    // The chart's canvas: the one that drew clock times.
    const labels = drawn.find((log) => log.some((d) => /\d:\d\d/.test(d.text))) ?? [];
    const ys = labels.filter((d) => /\d:\d\d/.test(d.text)).map((d) => d.y);
    const row = Math.max(...ys);
    return labels
      .filter((d) => /\d:\d\d/.test(d.text) && d.y === row)
      .map((d) => {
        const left =
          d.align === 'center' ? d.x - d.width / 2 : d.align === 'right' ? d.x - d.width : d.x;
        return { text: d.text, left, right: left + d.width };
      })
      .sort((a, b) => a.left - b.left);
  };
  const ratio = await page.evaluate(() => window.devicePixelRatio);
  const checkLabels = async () => {
    const boxes = await timeLabels();
    expect(boxes.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < boxes.length; i++) {
      // Clear room between neighbours (canvas pixels: CSS pixels × the device ratio).
      expect(
        boxes[i]!.left - boxes[i - 1]!.right,
        `${boxes[i - 1]!.text} | ${boxes[i]!.text}`,
      ).toBeGreaterThanOrEqual(8 * ratio);
    }
    return boxes;
  };
  await expect.poll(async () => (await timeLabels()).length).toBeGreaterThanOrEqual(3);
  const at1024 = await checkLabels();
  await chart.screenshot({ path: test.info().outputPath('chart-1024.png') });

  // Narrower still (the chart's card shrinks with the window): fewer ticks, still apart.
  await page.setViewportSize({ width: 800, height: 700 });
  await expect.poll(async () => (await timeLabels()).length).toBeLessThanOrEqual(at1024.length);
  await checkLabels();
  await page.setViewportSize({ width: 1024, height: 700 });

  // The unsubscribe page, as a recipient sees it, from the campaign's page.
  const before = (await (
    await request.get(`/v1/email/campaigns/${id}`, { headers: { 'X-API-Key': key } })
  ).json()) as { counts: { unsubscribed: number } };
  await page.getByTestId('email-unsubscribe-preview-open').click();
  const dialog = page.getByTestId('email-unsubscribe-preview');
  await expect(dialog).toBeVisible();
  const frame = page.frameLocator('[data-testid="email-unsubscribe-preview-frame"]');
  await expect(frame.getByRole('heading', { level: 1 })).toHaveText(
    'Unsubscribe from Acme Shop emails?',
  );
  await expect(frame.getByText('Preview', { exact: true })).toBeVisible();
  await expect(frame.getByText(/reader\d@example\.com/)).toBeVisible();
  // Branded: the page's own stylesheet applies (the sender's mark is a round badge).
  await expect
    .poll(() => frame.locator('.mark').evaluate((e) => getComputedStyle(e).borderRadius))
    .toBe('50%');
  // Its button does nothing.
  await frame.getByRole('button', { name: 'Unsubscribe' }).click();
  await expect(frame.getByRole('heading', { level: 1 })).toHaveText(
    'Unsubscribe from Acme Shop emails?',
  );
  // The other states.
  await dialog.getByLabel('Unsubscribed').check();
  await expect(frame.getByRole('heading', { level: 1 })).toHaveText('You are unsubscribed');
  await expect(frame.getByRole('button', { name: 'Resubscribe' })).toBeVisible();
  await dialog.getByLabel('Subscribed again').check();
  await expect(frame.getByRole('heading', { level: 1 })).toHaveText('You are subscribed again');
  await page.screenshot({ path: test.info().outputPath('unsubscribe-preview-1024.png') });
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('email-unsubscribe-preview-open')).toBeFocused();

  const after = (await (
    await request.get(`/v1/email/campaigns/${id}`, { headers: { 'X-API-Key': key } })
  ).json()) as { counts: { unsubscribed: number } };
  expect(after.counts.unsubscribed).toBe(before.counts.unsubscribed);
  expect(after.counts.unsubscribed).toBe(0);

  // axe (injected as a script: a context that bypasses the CSP) on the dialog.
  const a11y = await signedInAuditPage(browser, server);
  await a11y.goto(`/#/email/${id}`);
  await a11y.getByTestId('email-unsubscribe-preview-open').click();
  await expect(
    a11y
      .frameLocator('[data-testid="email-unsubscribe-preview-frame"]')
      .getByRole('heading', { level: 1 }),
  ).toBeVisible();
  expect(await audit(a11y, 'unsubscribe preview dialog')).toEqual([]);
  await a11y.context().close();
});
