import type { APIRequestContext } from '@playwright/test';
import {
  apiPost,
  createApiKey,
  expect,
  simulateInbound,
  test,
  waitForLiveUpdates,
} from './fixtures.ts';

const PHONE = '+14155557001';

/** An approved template with one variable and the customer (the signed-in owner works the inbox). */
async function seed(request: APIRequestContext, key: string): Promise<void> {
  const created = (await apiPost(request, key, '/api/templates', {
    name: 'cart_reminder',
    category: 'MARKETING',
    language: 'en',
    components: [{ type: 'BODY', text: 'Hi {{1}}, you left something in your cart. Still keen?' }],
  })) as { template: { id: string } };
  await apiPost(request, key, `/api/simulator/templates/${created.template.id}/review`, {
    decision: 'approve',
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
  await builder.getByTestId('wf-name').fill('Cart follow-up');
  await builder.getByTestId('wf-trigger-event').fill('cart.abandoned');
  const addStep = async (type: string) => {
    await builder.getByTestId('wf-add-type').selectOption(type);
    await builder.getByTestId('wf-add-step').click();
  };

  // 1: the approved template, its variable filled from the contact.
  await addStep('send_template');
  await builder
    .getByTestId('wf-steps-0-templateName')
    .selectOption({ label: 'cart_reminder · en' });
  await builder.getByTestId('wf-steps-0-variables-1').fill('{{contact.nmae}}');
  await expect(builder.getByTestId('wf-steps-0-variables-1-error')).toContainText(
    'a contact has name, phone, email and attributes.KEY',
  );
  await builder.getByTestId('wf-steps-0-variables-1').fill('{{contact.name}}');
  await expect(builder.getByTestId('wf-steps-0-variables-1-error')).toHaveCount(0);

  // 2: wait for the reply, at most an hour; a zero duration is refused on the step.
  await addStep('wait_for_reply');
  await builder.getByTestId('wf-steps-1-timeout').fill('0');
  await expect(builder.getByTestId('wf-steps-1-timeout-error')).toContainText('ISO 8601');
  await expect(builder.getByTestId('wf-save')).toBeDisabled();
  await expect(builder.getByTestId('wf-save-blocker')).toContainText('Step 2:');
  await builder.getByTestId('wf-steps-1-timeout').fill('1');
  await builder.getByTestId('wf-steps-1-timeout-unit').selectOption('H');
  await expect(builder.getByTestId('wf-steps-1-timeout-error')).toHaveCount(0);

  // 3: branch on the reply; its target must be a step of the workflow.
  await addStep('branch');
  await expect(builder.getByTestId('wf-steps-2-conditions-0-if-value')).toHaveValue(
    '{{reply.text}}',
  );
  await builder.getByTestId('wf-steps-2-conditions-0-if-op').selectOption('contains');
  await builder.getByTestId('wf-steps-2-conditions-0-if-equals').fill('yes');
  await expect(builder.getByTestId('wf-steps-2-conditions-0-goto-error')).toContainText(
    'is not a step of this workflow',
  );

  // 4: label the conversation.
  await addStep('update_conversation');
  await builder.getByTestId('wf-steps-3-addLabels').fill('interested');
  await builder.getByTestId('wf-steps-3-addLabels').press('Enter');
  await expect(builder.getByTestId('wf-steps-3-addLabels-chips')).toHaveText('interested');
  await builder.getByTestId('wf-steps-2-conditions-0-goto').selectOption('update_1');
  await expect(builder.getByTestId('wf-steps-2-conditions-0-goto-error')).toHaveCount(0);

  // The branch's paths are drawn under it: the condition to step 4, otherwise the end.
  const branchPaths = builder.getByTestId('wf-step-item').nth(2).getByTestId('wf-path');
  await expect(branchPaths.nth(0)).toContainText('If {{reply.text}} contains “yes”');
  await expect(branchPaths.nth(0)).toContainText('Step 4 · Update the conversation');
  await expect(branchPaths.nth(1)).toContainText('Otherwise');
  await expect(branchPaths.nth(1)).toContainText('end the run');

  await expect(builder.getByTestId('wf-save-blocker')).toHaveCount(0);
  await builder.getByTestId('wf-save').click();
  const secret = page.getByTestId('wf-secret-dialog');
  await expect(secret.getByTestId('wf-secret')).not.toBeEmpty();
  await secret.getByTestId('wf-secret-close').click();

  // The saved workflow opens as version 1; saving again would make version 2.
  const saved = page.getByTestId('workflow-builder');
  await expect(saved).toHaveAttribute('data-workflow-id', /.+/);
  const workflowId = (await saved.getAttribute('data-workflow-id'))!;
  await expect(saved.getByTestId('wf-status')).toHaveText('Active');
  await expect(saved.getByTestId('wf-save')).toHaveText('Save version 2');
  await expect(saved).toContainText('runs in flight finish on theirs');
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
  await listed.getByTestId('wf-pause').click();
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
