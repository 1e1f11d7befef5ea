/**
 * The README's screenshots (assets/inbox-1366.png, assets/inbox-1024.png, assets/campaign-1366.png). Not part of the
 * test run (it rewrites tracked files): `npm run screenshots` takes them again.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { seedCampaignAudience } from './campaign-seed.ts';
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
  const groupId = await seedCampaignAudience(request, key, {
    recipients: 180,
    settings: { throughputMps: 12 },
  });
  const campaign = await apiPost(request, key, '/campaigns', {
    name: 'Spring sale',
    templateName: 'spring_sale',
    variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
    target: { groupId },
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
