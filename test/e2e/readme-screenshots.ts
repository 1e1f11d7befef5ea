/**
 * The README's screenshots (assets/inbox-1366.png, assets/inbox-1024.png, assets/campaign-1366.png). Not part of the
 * test run (it rewrites tracked files): `npm run screenshots` takes them again.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { apiPost, createApiKey, expect, test } from './fixtures.ts';
import { seedInbox } from './inbox-seed.ts';

const ASSETS = fileURLToPath(new URL('../../assets/', import.meta.url));
const SMALL = { width: 1024, height: 700 };

test('screenshots of the inbox at 1366×850 and 1024×700 for the README', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-screens');
  await page.setViewportSize({ width: 1366, height: 850 });
  await seedInbox(page, request, key);
  await page.getByTestId('conversation-row').filter({ hasText: 'Maya Fischer' }).click();
  await expect(page.getByTestId('thread-title')).toHaveText('Maya Fischer');
  await mkdir(ASSETS, { recursive: true });
  // Wait for the thread's messages, so the picture is never a loading state.
  await expect(
    page.getByTestId('thread-messages').getByText('the lid is cracked', { exact: false }),
  ).toBeVisible();
  await page.screenshot({ path: `${ASSETS}inbox-1366.png` });

  await page.setViewportSize(SMALL);
  await expect(page.getByTestId('contact-panel')).toHaveCount(0);
  await page.screenshot({ path: `${ASSETS}inbox-1024.png` });
});

test('a screenshot of a campaign under way for the README', async ({ page, request, server }) => {
  const key = await createApiKey(server, 'test', 'e2e-campaign-screen');
  const created = (await apiPost(request, key, '/api/templates', {
    name: 'spring_sale',
    category: 'MARKETING',
    language: 'en',
    components: [{ type: 'BODY', text: 'Hi {{1}}, take 20% off with {{2}}.' }],
  })) as { template: { id: string } };
  await apiPost(request, key, `/api/simulator/templates/${created.template.id}/review`, {
    decision: 'approve',
  });
  const ids: string[] = [];
  for (let start = 0; start < 180; start += 30) {
    const batch = await Promise.all(
      Array.from({ length: 30 }, (_, j) =>
        apiPost(request, key, '/api/contacts', {
          phone: `+1415556${String(1000 + start + j)}`,
          name: `Customer ${start + j + 1}`,
        }),
      ),
    );
    ids.push(...batch.map((c) => c.id as string));
  }
  const group = await apiPost(request, key, '/api/contacts/groups', {
    name: 'Spring list',
    contactIds: ids,
  });
  await request.put('/api/simulator/settings', {
    headers: { 'X-API-Key': key },
    data: { throughputMps: 12 },
  });
  const campaign = await apiPost(request, key, '/campaigns', {
    name: 'Spring sale',
    templateName: 'spring_sale',
    variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
    target: { groupId: group.id },
  });
  await page.setViewportSize({ width: 1366, height: 850 });
  await page.goto(`/#/campaigns/${campaign.id as string}`);
  await apiPost(request, key, '/campaigns/launch', { id: campaign.id });
  // Half way: the bar, the funnel and several seconds of the chart.
  await expect
    .poll(async () => Number(await page.getByRole('progressbar').getAttribute('aria-valuenow')), {
      timeout: 30_000,
    })
    .toBeGreaterThanOrEqual(50);
  await mkdir(ASSETS, { recursive: true });
  await page.screenshot({ path: `${ASSETS}campaign-1366.png` });
});
