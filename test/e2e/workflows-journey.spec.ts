/**
 * Journey 4 (journeys.md) at 1024×700: a listening workflow labels the conversation and answers.
 * The canvas shows each step's whole title, Cancel shows only with something to cancel, the
 * workflow's message is labelled "Workflow", and the 24-hour rule for a person's reply or take-over
 * is said beside the trigger and in the run history.
 */
import { apiPost, createApiKey, expect, simulateInbound, test } from './fixtures.ts';

test.use({ viewport: { width: 1024, height: 700 } });

test('a listening workflow: whole step titles, Cancel only for edits, its message labelled, the 24 h rule said', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-workflows-journey');
  const workflow = await apiPost(request, key, '/workflows', {
    name: 'Order questions',
    status: 'active',
    trigger: { type: 'message_received', keywords: ['order'], match: 'whole_word' },
    steps: [
      { id: 'label', type: 'update_conversation', addLabels: ['order'] },
      { id: 'answer', type: 'send_text', text: 'We are looking at your order now.' },
    ],
  });
  const workflowId = workflow.id as string;

  // The canvas: every node's title is whole (wrapped, never cut), and named in full.
  await page.goto(`/#/workflows/${workflowId}`);
  const nodes = page.getByTestId('wf-node');
  await expect(nodes).toHaveCount(3);
  const titles = page.locator('.wf-node-title');
  await expect(titles.nth(1)).toContainText('Update the conversation');
  const cut = await titles.evaluateAll((els) =>
    els
      .filter((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
      .map((el) => el.textContent),
  );
  expect(cut).toEqual([]);
  await expect(titles.nth(1)).toHaveAttribute('title', 'Update the conversation');
  await expect(page.locator('[data-step-type="update_conversation"]')).toHaveAccessibleName(
    /Update the conversation/,
  );
  // Nor does a node's content spill out of its box.
  const spilled = await nodes.evaluateAll((els) =>
    els.filter((el) => el.scrollHeight > el.clientHeight + 1).map((el) => el.textContent),
  );
  expect(spilled).toEqual([]);

  // Active and saved: nothing to cancel. An edit brings Cancel (it asks before dropping it).
  await expect(page.getByTestId('wf-deactivate')).toBeVisible();
  await expect(page.getByTestId('wf-cancel')).toHaveCount(0);
  await page.getByTestId('wf-name').fill('Order questions (new)');
  await page.getByTestId('wf-cancel').click();
  await page.getByTestId('wf-discard-dialog').getByTestId('wf-discard-confirm').click();
  await expect(page.getByTestId('screen-workflows')).toBeVisible();

  // The trigger's form says the 24-hour rule.
  await page.goto(`/#/workflows/${workflowId}`);
  await page.locator('[data-testid="wf-node"][data-kind="trigger"]').click();
  await expect(page.getByTestId('wf-trigger-form')).toContainText(
    'Stays away from a conversation for 24 h after a person replies in it or takes it over.',
  );

  // A customer writes "order": the label is added and the answer is labelled "Workflow".
  await simulateInbound(request, key, { phone: '+14155557411', message: 'where is my order?' });
  await page.goto('/#/inbox');
  await page.getByTestId('conversation-row').first().click();
  await expect(
    page.getByTestId('thread-messages').getByText('We are looking at your order now.'),
  ).toBeVisible();
  await expect(page.getByTestId('message-sender')).toHaveText(['Workflow']);

  // The run history says why a customer's message may start no run.
  await page.goto(`/#/workflows/${workflowId}/runs`);
  await expect(page.getByTestId('wf-run-row')).toHaveCount(1);
  await expect(page.getByTestId('wf-runs-quiet-rule')).toHaveText(
    /stays away from a conversation for 24 h after a person replies in it or takes it over/,
  );
});
