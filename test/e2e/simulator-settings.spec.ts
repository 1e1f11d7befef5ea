/**
 * Settings → Simulator (issue 24 item 4, design.md §8): the simulated provider's pace, latencies
 * and review delay changed on their screen, checked by the shared schema, saved, and in force —
 * a campaign launched after is paced by the new throughput. Live mode says where they are.
 */
import type { APIRequestContext } from '@playwright/test';
import { audit } from './axe-audit.ts';
import { seedCampaignAudience } from './campaign-seed.ts';
import { apiPost, createApiKey, expect, joinAs, test, waitForLiveUpdates } from './fixtures.ts';

/** What an agent is told once above the form (shared `refusal`, as the core's 403 says it). */
const READ_ONLY =
  'You can read the simulator’s settings here but not change them. Your role (agent) may not do this: ask an admin of the workspace.';

async function simulatorSettings(request: APIRequestContext, key: string) {
  const response = await request.get('/api/simulator/settings', {
    headers: { 'X-API-Key': key },
  });
  expect(response.status()).toBe(200);
  return (await response.json()) as Record<string, number | null>;
}

test('simulator settings are checked by the shared rule, saved, in force for a campaign, and reset to the defaults', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-simulator');
  await page.goto('/#/inbox');
  await waitForLiveUpdates(page);
  await page.getByTestId('nav-settings-simulator').click();
  await expect(page).toHaveURL(/#\/settings\/simulator$/);
  const screen = page.getByTestId('screen-simulator');
  await expect(screen.getByRole('heading', { level: 1 })).toHaveText('Simulator');

  // The defaults, each with its unit.
  const throughput = screen.getByTestId('sim-throughputMps');
  const tier = screen.getByTestId('sim-messagingTier');
  await expect(throughput).toHaveValue('80');
  await expect(tier).toHaveValue('2000');
  await expect(screen.getByTestId('sim-reviewDelayMs')).toHaveValue('2000');
  await expect(screen.getByTestId('sim-approvalWaitMs-hint')).toContainText('Now 10 min.');
  await expect(
    screen.getByRole('textbox', { name: 'Throughput (messages a second)' }),
  ).toBeVisible();
  await expect(screen.getByRole('textbox', { name: 'Delivery latency (ms)' })).toHaveValue('800');
  expect(await tier.locator('option').allInnerTexts()).toEqual([
    '250 recipients a day',
    '2,000 recipients a day',
    '10,000 recipients a day',
    '100,000 recipients a day',
    'Unlimited',
  ]);
  const save = screen.getByTestId('sim-save');
  const state = screen.getByTestId('sim-save-state');
  await expect(save).toBeDisabled();
  // Nothing saved yet on this visit: the settings are in force, not "Saved".
  await expect(state).toHaveText('These settings are in force.');

  // Out of the schema's bounds: said under the field in its unit, focused, nothing sent.
  await throughput.fill('2000');
  await screen.getByTestId('sim-deliveryLatencyMs').fill('1.5');
  await expect(state).toHaveText('Unsaved changes.');
  await save.click();
  await expect(screen.getByTestId('sim-throughputMps-error')).toHaveText(
    'At most 1,000 messages a second.',
  );
  await expect(throughput).toHaveAttribute('aria-invalid', 'true');
  await expect(throughput).toBeFocused();
  await expect(screen.getByTestId('sim-deliveryLatencyMs-error')).toHaveText(
    'A whole number, without decimals.',
  );
  await throughput.fill('0');
  await save.click();
  await expect(screen.getByTestId('sim-throughputMps-error')).toHaveText(
    'At least 1 message a second.',
  );
  expect((await simulatorSettings(request, key)).throughputMps).toBe(80);

  // One message a second, the smallest tier, quick receipts: saved and in force at once.
  await throughput.fill('1');
  await tier.selectOption({ label: '250 recipients a day' });
  await screen.getByTestId('sim-deliveryLatencyMs').fill('100');
  await expect(screen.getByTestId('sim-deliveryLatencyMs-hint')).toContainText('Now 100 ms.');
  await save.click();
  await expect(page.getByTestId('toast-success')).toContainText('Saved the simulator settings');
  await expect(state).toHaveText('Saved: these settings are in force.');
  await expect(save).toBeDisabled();
  expect(await simulatorSettings(request, key)).toMatchObject({
    throughputMps: 1,
    messagingTier: 250,
    deliveryLatencyMs: 100,
    reviewDelayMs: 2000,
  });
  await page.reload();
  await expect(throughput).toHaveValue('1');
  await expect(tier).toHaveValue('250');

  // In force: a campaign to 20 customers goes out at the account's pace of one a second.
  const groupId = await seedCampaignAudience(request, key, { recipients: 20, settings: {} });
  const campaign = await apiPost(request, key, '/campaigns', {
    name: 'Paced sale',
    templateName: 'spring_sale',
    variables: { '1': '{{contact.name}}', '2': 'SLOW' },
    target: { groupId },
  });
  await apiPost(request, key, '/campaigns/launch', { id: campaign.id });
  await page.goto(`/#/campaigns/${campaign.id as string}`);
  await expect(page.getByTestId('campaign-blocked')).toContainText("account's pace");

  // Reset to defaults: filled in, said so, saved.
  await page.goto('/#/settings/simulator');
  await screen.getByTestId('sim-reset').click();
  await expect(throughput).toHaveValue('80');
  await expect(tier).toHaveValue('2000');
  await expect(screen.getByTestId('sim-deliveryLatencyMs')).toHaveValue('800');
  await expect(state).toHaveText('Defaults filled in: save to put them in force.');
  await expect(screen.getByTestId('sim-reset')).toBeDisabled();
  await save.click();
  await expect(state).toHaveText('Saved: these settings are in force.');
  expect(await simulatorSettings(request, key)).toMatchObject({
    throughputMps: 80,
    messagingTier: 2000,
    deliveryLatencyMs: 800,
  });

  // Live mode: the screen says where the simulator's settings are changed, and takes you there.
  await page.getByTestId('mode-live').click();
  await expect(screen.getByTestId('sim-live-mode')).toContainText('changed in test mode');
  await expect(screen.getByTestId('sim-form')).toHaveCount(0);
  await screen.getByTestId('sim-switch-test').click();
  await expect(page.getByTestId('mode-test')).toHaveAttribute('aria-pressed', 'true');
  await expect(throughput).toHaveValue('80');

  // Each save is in the audit trail (the screen's two, and the campaign seed's own PUT).
  await page.goto('/#/settings/audit');
  await expect(
    page
      .getByTestId('audit-row')
      .filter({ hasText: 'Changed settings' })
      .filter({
        hasText: /simulator/i,
      }),
  ).toHaveCount(3);
});

test('an agent reads the simulator settings but may not change them: read-only, told why once', async ({
  context,
  newContext,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-simulator-agent');
  const put = await request.put('/api/simulator/settings', {
    headers: { 'X-API-Key': key },
    data: { throughputMps: 42, messagingTier: 250 },
  });
  expect(put.status(), await put.text()).toBe(200);
  // Abe, an agent the owner invited, in his own browser.
  const abeContext = await newContext();
  await joinAs(context.request, abeContext, { name: 'Abe Agent', email: 'abe@example.com' });
  const page = await abeContext.newPage();
  await page.goto('/#/inbox');
  await waitForLiveUpdates(page);
  await expect(page.getByTestId('current-member')).toHaveText('Abe Agent');
  await page.getByTestId('nav-settings-simulator').click();
  const screen = page.getByTestId('screen-simulator');

  // The saved values, in fields that take focus but not changes, and the reason said once.
  const throughput = screen.getByTestId('sim-throughputMps');
  const tier = screen.getByTestId('sim-messagingTier');
  await expect(throughput).toHaveValue('42');
  await expect(throughput).toHaveAttribute('readonly', '');
  await expect(tier).toHaveValue('250 recipients a day');
  await expect(tier).toHaveAttribute('readonly', '');
  await expect(screen.getByTestId('sim-approvalWaitMs')).toHaveValue('600000');
  await expect(screen.getByTestId('read-only-note')).toHaveText(READ_ONLY);
  await expect(screen.getByTestId('read-only-note')).toHaveCount(1);

  // Typing changes nothing; Save and Reset are disabled, saying why.
  await throughput.focus();
  await page.keyboard.type('9');
  await expect(throughput).toHaveValue('42');
  await page.keyboard.press('Enter');
  const save = screen.getByTestId('sim-save');
  const reset = screen.getByTestId('sim-reset');
  for (const button of [save, reset]) {
    await expect(button).toBeDisabled();
    await expect(button).toHaveAccessibleDescription(/ask an admin of the workspace/);
  }
  await expect(screen.getByTestId('sim-save-state')).toHaveText('These settings are in force.');
  await expect(screen.getByTestId('sim-form-error')).toHaveCount(0);

  // The core says the same to a request of his own, and nothing changed.
  const refused = await abeContext.request.put('/api/simulator/settings', {
    data: { throughputMps: 1 },
  });
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({
    error: { code: 'forbidden', details: { requires: 'simulator.manage' } },
  });
  expect(await simulatorSettings(request, key)).toMatchObject({
    throughputMps: 42,
    messagingTier: 250,
  });
});

test.describe('axe', () => {
  // axe is injected as a script, which the app's CSP refuses: this context bypasses it.
  test.use({ bypassCSP: true });

  test('Settings → Simulator is axe-clean: loaded, with errors, in live mode', async ({ page }) => {
    const found: string[] = [];
    await page.goto('/#/settings/simulator');
    const screen = page.getByTestId('screen-simulator');
    await expect(screen.getByTestId('sim-throughputMps')).toHaveValue('80');
    found.push(...(await audit(page, 'simulator settings')));

    await screen.getByTestId('sim-throughputMps').fill('');
    await screen.getByTestId('sim-seed').fill('-1');
    await screen.getByTestId('sim-save').click();
    await expect(screen.getByTestId('sim-throughputMps-error')).toHaveText('Enter a number.');
    await expect(screen.getByTestId('sim-seed-error')).toHaveText('At least 0.');
    found.push(...(await audit(page, 'simulator settings with errors')));

    await page.getByTestId('mode-live').click();
    await expect(screen.getByTestId('sim-live-mode')).toBeVisible();
    found.push(...(await audit(page, 'simulator settings in live mode')));

    expect(found, found.join('\n')).toEqual([]);
  });

  test('Settings → Simulator read-only for an agent is axe-clean', async ({ context, page }) => {
    // This context accepts the invite: it is then signed in as the agent, not the owner.
    await joinAs(context.request, context, { name: 'Abe Agent', email: 'abe@example.com' });
    await page.goto('/#/settings/simulator');
    const screen = page.getByTestId('screen-simulator');
    await expect(screen.getByTestId('read-only-note')).toHaveText(READ_ONLY);
    await expect(screen.getByTestId('sim-messagingTier')).toHaveValue('2,000 recipients a day');
    const found = await audit(page, 'simulator settings read-only');
    expect(found, found.join('\n')).toEqual([]);
  });
});
