import type { APIRequestContext } from '@playwright/test';
import {
  apiPost,
  createApiKey,
  expect,
  simulateInbound,
  test,
  waitForLiveUpdates,
} from './fixtures.ts';
import { approvedTemplate } from './workflow-seed.ts';

const PHONE = '+14155557001';

/** An approved template with one variable and the customer (the signed-in owner works the inbox). */
async function seed(request: APIRequestContext, key: string): Promise<void> {
  await approvedTemplate(request, key, {
    name: 'cart_reminder',
    category: 'MARKETING',
    body: 'Hi {{1}}, you left something in your cart. Still keen?',
  });
  await apiPost(request, key, '/api/contacts', { phone: PHONE, name: 'Dana Cart' });
}

test('a workflow is built in the UI, started by an event, resumed by a reply and followed live', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-workflows');
  await seed(request, key);

  await page.goto('/#/workflows');
  await waitForLiveUpdates(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Workflows');
  await expect(page.getByTestId('workflows-empty')).toContainText('POST /api/events');
  await page.getByTestId('workflows-create-first').click();

  const builder = page.getByTestId('workflow-builder');
  const panel = builder.getByTestId('wf-panel');
  const canvas = builder.getByTestId('wf-canvas');
  await builder.getByTestId('wf-name').fill('Cart follow-up');
  await canvas.locator('[data-testid="wf-node"][data-kind="trigger"]').click();
  await panel.getByTestId('wf-trigger-type-event').check();
  await panel.getByTestId('wf-trigger-event').fill('cart.abandoned');
  /** A step of `type` on the edge the "+" named `edge` sits on. */
  const addStep = async (edge: string | RegExp, type: string) => {
    await canvas.getByRole('button', { name: edge }).click();
    await panel.getByTestId(`wf-add-${type}`).click();
  };
  const plusOn = (label: string) =>
    canvas.getByTestId('wf-edge').filter({ hasText: label }).getByTestId('wf-edge-add');

  // 1: the approved template, its variable filled from the contact.
  await addStep('Add a step after the trigger', 'send_template');
  await panel.getByTestId('wf-steps-0-templateName').selectOption({ label: 'cart_reminder · en' });
  await panel.getByTestId('wf-steps-0-variables-1').fill('{{contact.nmae}}');
  await expect(panel.getByTestId('wf-steps-0-variables-1-error')).toContainText(
    '{{contact.nmae}} is not a contact field',
  );
  await panel.getByTestId('wf-steps-0-variables-1').fill('{{contact.name}}');
  await expect(panel.getByTestId('wf-steps-0-variables-1-error')).toHaveCount(0);

  // 2: wait for the reply, at most an hour; a zero duration is a problem on the step's node.
  await addStep(/^Add a step after Step 1 · Send a template/, 'wait_for_reply');
  await panel.getByTestId('wf-steps-1-timeout').fill('0');
  await expect(panel.getByTestId('wf-steps-1-timeout-error')).toContainText('Say how long');
  const waitNode = canvas.locator('[data-testid="wf-node"][data-step-type="wait_for_reply"]');
  await expect(waitNode.getByTestId('wf-node-badge')).toHaveText(/1/);
  await expect(builder.getByTestId('wf-problems')).toContainText('1 problem');
  await panel.getByTestId('wf-steps-1-timeout').fill('1');
  await panel.getByTestId('wf-steps-1-timeout-unit').selectOption('H');
  await expect(panel.getByTestId('wf-steps-1-timeout-error')).toHaveCount(0);
  await expect(waitNode.getByTestId('wf-node-badge')).toHaveCount(0);

  // 3: branch on the reply; until its condition leads somewhere, its node says so.
  await plusOn('Replied').click();
  await panel.getByTestId('wf-add-branch').click();
  await expect(panel.getByTestId('wf-steps-2-conditions-0-if-value')).toHaveValue('{{reply.text}}');
  await panel.getByTestId('wf-steps-2-conditions-0-if-op').selectOption('contains');
  await panel.getByTestId('wf-steps-2-conditions-0-if-equals').fill('yes');
  await expect(panel.getByTestId('wf-steps-2-conditions-0-goto-error')).toHaveText(
    'Choose the step to go to when this holds',
  );

  // 4: label the conversation, on the condition's path.
  await plusOn('The reply contains “yes”').click();
  await panel.getByTestId('wf-add-update_conversation').click();
  await panel.getByTestId('wf-steps-3-addLabels').fill('interested');
  await panel.getByTestId('wf-steps-3-addLabels').press('Enter');
  await expect(panel.getByTestId('wf-steps-3-addLabels-chips')).toHaveText('interested');

  // The branch's paths are the canvas's edges: the condition to step 4, otherwise the end.
  const updateNode = canvas.locator(
    '[data-testid="wf-node"][data-step-type="update_conversation"]',
  );
  await expect(updateNode).toContainText('Label interested');
  await expect(
    canvas.getByRole('button', {
      name: 'Add a step after Step 3 · Branch: if … otherwise … (The reply contains “yes”), before Step 4 · Update the conversation',
    }),
  ).toHaveCount(1);
  await expect(
    canvas.getByRole('button', {
      name: 'Add a step after Step 3 · Branch: if … otherwise … (Otherwise)',
    }),
  ).toHaveCount(1);

  await expect(builder.getByTestId('wf-problems')).toHaveText('No problems');
  await builder.getByTestId('wf-save').click();

  // Saved as a draft (no webhook step: no signing secret to show); activated, it runs as version 1.
  const saved = page.getByTestId('workflow-builder');
  await expect(saved).toHaveAttribute('data-workflow-id', /.+/);
  await expect(page.getByTestId('wf-secret-dialog')).toHaveCount(0);
  const workflowId = (await saved.getAttribute('data-workflow-id'))!;
  await expect(saved.getByTestId('wf-status')).toHaveText('Draft');
  await saved.getByTestId('wf-activate').click();
  await expect(saved.getByTestId('wf-status')).toHaveText('Active');
  await expect(saved.getByTestId('wf-status-line')).toHaveText('Active — v1');
  await expect(saved.getByTestId('wf-save')).toBeDisabled();
  await saved.getByTestId('wf-runs-link').click();

  // The run history, empty; the shop's event starts a run, shown live.
  const runs = page.getByTestId('wf-runs');
  await expect(runs.getByTestId('wf-runs-none')).toBeVisible();
  const ingest = await apiPost(request, key, '/api/events', {
    event: 'cart.abandoned',
    phone: PHONE,
    payload: { cartId: 'C-1001' },
  });
  const runId = (ingest.runs as string[])[0]!;
  expect(runId).toBeTruthy();
  const row = runs.locator(`[data-testid="wf-run-row"][data-run-id="${runId}"]`);
  await expect(row.getByTestId('run-outcome')).toHaveText('Waiting');
  await row.getByTestId('wf-run-link').click();

  // The timeline: the template sent, then waiting for the reply.
  const timeline = page.getByTestId('wf-run');
  const steps = timeline.getByTestId('wf-timeline-step');
  await expect(steps).toHaveCount(2);
  await expect(steps.nth(0)).toHaveAttribute('data-step-id', 'template_1');
  await expect(steps.nth(0).getByTestId('wf-step-status')).toHaveText('Sent');
  await expect(steps.nth(1).getByTestId('wf-step-status')).toHaveText('Waiting');
  await expect(timeline.getByTestId('wf-run-cancel')).toBeVisible();

  // The customer answers: the run goes on by itself and completes, live.
  await simulateInbound(request, key, { phone: PHONE, message: 'yes please' });
  await expect(timeline.getByTestId('run-outcome').first()).toHaveText('Completed');
  await expect(steps).toHaveCount(4);
  await expect(steps.nth(2)).toHaveAttribute('data-step-id', 'branch_1');
  await expect(steps.nth(2).getByTestId('run-step-result')).toContainText('went on to update_1');
  await expect(steps.nth(3)).toHaveAttribute('data-step-id', 'update_1');
  await expect(timeline.getByTestId('wf-run-cancel')).toHaveCount(0);

  // The run history agrees, under its filter too.
  await page.goto(`/#/workflows/${workflowId}/runs`);
  await page.getByTestId('wf-run-filter-completed').click();
  await expect(page.getByTestId('wf-run-row')).toHaveCount(1);
  await expect(page.getByTestId('run-outcome')).toHaveText('Completed');
  await page.getByTestId('wf-run-filter-waiting').click();
  await expect(page.getByTestId('wf-runs-none')).toHaveText('No waiting runs.');

  // The list: its trigger, state and version; pausing it is one click.
  await page.goto('/#/workflows');
  const listed = page.getByTestId('workflow-row');
  await expect(listed.getByTestId('workflow-trigger')).toHaveText('cart.abandoned');
  await expect(listed.getByTestId('wf-status')).toHaveText('Active');
  await expect(listed.getByTestId('workflow-waiting')).toHaveText('0');
  await listed.getByTestId('wf-deactivate').click();
  await expect(listed.getByTestId('wf-status')).toHaveText('Paused');
  await listed.getByTestId('wf-activate').click();
  await expect(listed.getByTestId('wf-status')).toHaveText('Active');

  // The label is on the conversation in the inbox.
  await page.goto('/#/inbox');
  await page.getByTestId('conversation-row').filter({ hasText: 'Dana Cart' }).click();
  await expect(page.getByTestId('thread-label')).toHaveText(['interested']);
});

test('a test run starts the workflow for a chosen contact and can be cancelled while it waits', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-workflows-manual');
  await seed(request, key);
  const workflow = await apiPost(request, key, '/workflows', {
    name: 'Manual nudge',
    trigger: { type: 'manual' },
    steps: [{ id: 'pause', type: 'wait', duration: 'P1D' }],
  });

  await page.goto(`/#/workflows/${workflow.id as string}/runs`);
  await waitForLiveUpdates(page);
  await page.getByTestId('wf-test-run').click();
  const dialog = page.getByTestId('wf-test-dialog');
  await dialog.getByTestId('wf-test-search').fill('Dana');
  await dialog.getByTestId('wf-test-contact').filter({ hasText: PHONE }).click();
  await dialog.getByTestId('wf-test-payload').fill('not json');
  await expect(dialog.getByTestId('wf-test-payload-error')).toBeVisible();
  await expect(dialog.getByTestId('wf-test-start')).toBeDisabled();
  await dialog.getByTestId('wf-test-payload').fill('{"reason": "test"}');
  await dialog.getByTestId('wf-test-start').click();

  const timeline = page.getByTestId('wf-run');
  await expect(timeline.getByTestId('run-outcome').first()).toHaveText('Waiting');
  await expect(timeline.getByTestId('wf-timeline-step')).toHaveCount(1);
  await timeline.getByTestId('wf-run-cancel').click();
  await page.getByTestId('wf-cancel-dialog').getByTestId('wf-cancel-confirm').click();
  await expect(timeline.getByTestId('run-outcome').first()).toHaveText('Cancelled');
});
