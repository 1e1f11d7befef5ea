import { customerPhone, seedCampaignAudience } from './campaign-seed.ts';
import {
  apiPost,
  createApiKey,
  expect,
  simulateInbound,
  test,
  waitForLiveUpdates,
} from './fixtures.ts';

/**
 * The desk's stream takes a campaign as a summary (`GET /events?campaigns=summary`): none of the
 * campaign's per-recipient events reach the page. What the campaign changed on screen is read
 * again on its `campaign.progress` / `campaign.status_updated` (stores/campaign-activity.ts):
 * the open thread shows the campaign's message, and the conversations its sends created join
 * the list, without a reload.
 */
test("a campaign's messages reach the open thread and the inbox list without a reload", async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-campaign-activity');
  const groupId = await seedCampaignAudience(request, key, {
    recipients: 3,
    settings: { throughputMps: 50, deliveryLatencyMs: 50, readLatencyMs: 100 },
  });
  // The first customer wrote before the campaign: their conversation is open on screen.
  await simulateInbound(request, key, { phone: customerPhone(0), message: 'Any offers soon?' });

  await page.goto('/#/inbox');
  await waitForLiveUpdates(page);
  await expect(page.getByTestId('conversation-row')).toHaveCount(1);
  await page.getByTestId('conversation-row').filter({ hasText: 'Customer 001' }).click();
  const thread = page.getByTestId('thread-messages');
  await expect(thread.getByTestId('message').filter({ hasText: 'Any offers soon?' })).toBeVisible();

  const campaign = await apiPost(request, key, '/campaigns', {
    name: 'Spring sale',
    templateName: 'spring_sale',
    variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
    target: { groupId },
  });
  await apiPost(request, key, '/campaigns/launch', { id: campaign.id });

  await expect(
    thread
      .getByTestId('message')
      .filter({ hasText: 'Hi Customer 001, take 20% off with SPRING20.' }),
  ).toBeVisible();
  // The two customers who had no conversation now have one, from the campaign's sends.
  const rows = page.getByTestId('conversation-row');
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: 'Customer 002' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'Customer 003' })).toHaveCount(1);
  // A campaign's message says so: "Campaign" over it in the thread and in the list's preview.
  await expect(
    thread.getByTestId('message').filter({ hasText: 'take 20% off' }).getByTestId('message-sender'),
  ).toHaveText('Campaign');
  await expect(
    rows.filter({ hasText: 'Customer 002' }).getByTestId('conversation-preview'),
  ).toContainText('Campaign: Hi Customer 002');
});
