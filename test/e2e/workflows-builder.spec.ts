/**
 * The workflow builder on its canvas (issue 23), at 1024×700: a flow built with the keyboard and
 * the mouse — a customer writes "order" outside business hours → a template → a wait for the
 * reply (1 minute) → a branch on it → a label, or a list — saved as a draft and activated;
 * problems in words on their node; undo/redo and removing a step; versions; and a guard that
 * asks before unsaved changes are left behind.
 */
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { apiPost, createApiKey, expect, test, waitForLiveUpdates } from './fixtures.ts';
import { approvedTemplate } from './workflow-seed.ts';

test.use({ viewport: { width: 1024, height: 700 } });

/** An approved template without variables and an interactive list, as a shop would have. */
async function seed(request: APIRequestContext, key: string): Promise<{ listId: string }> {
  await approvedTemplate(request, key, {
    name: 'after_hours',
    category: 'UTILITY',
    body: 'Thanks for your order message! We are closed now.',
  });
  const list = await apiPost(request, key, '/interactive-lists', {
    name: 'Order help',
    body: 'What do you need?',
    buttonText: 'Options',
    sections: [{ title: 'Orders', rows: [{ id: 'track', title: 'Track my order' }] }],
  });
  return { listId: list.id as string };
}

async function getWorkflow(request: APIRequestContext, key: string, id: string) {
  const response = await request.get(`/workflows/${id}`, { headers: { 'X-API-Key': key } });
  expect(response.status()).toBe(200);
  return (await response.json()) as Record<string, unknown> & {
    steps: Record<string, unknown>[];
    draft: { steps: Record<string, unknown>[] } | null;
  };
}

const node = (page: Page, stepType: string): Locator =>
  page.locator(`[data-testid="wf-node"][data-step-type="${stepType}"]`);
const trigger = (page: Page): Locator =>
  page.locator('[data-testid="wf-node"][data-kind="trigger"]');
/** The "+" on the edge whose words are `label`. */
const plusOn = (page: Page, label: string | RegExp): Locator =>
  page.getByTestId('wf-edge').filter({ hasText: label }).getByTestId('wf-edge-add');

/** Tabs forward until `target` has focus (at most `limit` presses). */
async function tabTo(page: Page, target: Locator, limit = 15): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  await expect(target).toBeFocused();
}

test('a flow is built on the canvas with the keyboard and the mouse, saved as a draft, activated, and guarded', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-builder');
  const { listId } = await seed(request, key);

  await page.goto('/#/workflows/new');
  await waitForLiveUpdates(page);
  const builder = page.getByTestId('workflow-builder');
  const panel = page.getByTestId('wf-panel');
  const canvas = page.getByTestId('wf-canvas');
  await expect(builder.getByTestId('wf-status-line')).toHaveText('New — not saved yet');
  await builder.getByTestId('wf-name').fill('Orders after hours');

  // The trigger, by keyboard: Tab reaches its node, Enter opens its form in the panel.
  await tabTo(page, trigger(page));
  await page.keyboard.press('Enter');
  await expect(panel.getByRole('heading', { name: 'Trigger' })).toBeFocused();
  await expect(panel.getByTestId('wf-trigger-type-message_received')).toBeChecked();
  await tabTo(page, panel.getByTestId('wf-trigger-keywords'));
  await page.keyboard.type('order');
  await page.keyboard.press('Enter');
  await expect(panel.getByTestId('wf-trigger-keywords-chips')).toHaveText('order');
  await tabTo(page, panel.getByTestId('wf-trigger-match-any'));
  await page.keyboard.press('ArrowDown');
  await expect(panel.getByTestId('wf-trigger-match-whole_word')).toBeChecked();
  await tabTo(page, panel.getByTestId('wf-trigger-outside-hours'));
  await page.keyboard.press('Space');
  await expect(panel.getByTestId('wf-trigger-outside-hours')).toBeChecked();
  // What would match, tried in place: "order" as a whole word.
  await panel.getByTestId('wf-trigger-try').fill('Can I reorder?');
  await expect(panel.getByTestId('wf-trigger-try-result')).toHaveText(
    'This message does not match the keywords.',
  );
  await panel.getByTestId('wf-trigger-try').fill('Where is my ORDER?');
  await expect(panel.getByTestId('wf-trigger-try-result')).toHaveText(
    'This message matches the keywords.',
  );
  await trigger(page).focus();
  await page.keyboard.press('Enter');
  // With no step yet, the trigger's node says what is missing.
  await expect(trigger(page)).toContainText('Add a first step');

  // Escape goes back to the node; ↓ reaches the "+" under it; Enter there adds the first step.
  await page.keyboard.press('Escape');
  await expect(trigger(page)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(canvas.getByRole('button', { name: 'Add a step after the trigger' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(panel.getByTestId('wf-add-send_template')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(trigger(page)).toContainText('Says the word “order” · outside business hours');
  // A template step with none chosen says so on its node and in its form, in words.
  const template = node(page, 'send_template');
  await expect(template.getByTestId('wf-node-badge')).toHaveText(/1/);
  await expect(template).toContainText('Choose a template to send');
  await expect(builder.getByTestId('wf-problems')).toContainText('1 problem');
  await expect(panel.getByTestId('wf-steps-0-templateName-error')).toHaveText(
    'Choose a template to send',
  );
  await panel.getByTestId('wf-steps-0-templateName').selectOption({ label: 'after_hours · en' });
  await expect(template.getByTestId('wf-node-badge')).toHaveCount(0);
  await expect(template).toContainText('after_hours');

  // The rest by mouse: a wait for the reply on the edge after the template, a minute at most.
  await canvas.getByRole('button', { name: /^Add a step after Step 1 · Send a template/ }).click();
  await panel.getByTestId('wf-add-wait_for_reply').click();
  await panel.getByTestId('wf-steps-1-timeout').fill('1');
  await panel.getByTestId('wf-steps-1-timeout-unit').selectOption('M');
  await expect(
    page.getByTestId('wf-edge').filter({ hasText: 'No reply after 1 minute' }),
  ).toHaveCount(1);

  // A branch on the reply; its condition leads nowhere yet ("Not connected"), so a step goes there.
  await plusOn(page, 'Replied').click();
  await panel.getByTestId('wf-add-branch').click();
  await panel.getByTestId('wf-steps-2-conditions-0-if-equals').fill('yes');
  await expect(page.getByTestId('wf-terminal-unset')).toHaveCount(1);
  await expect(node(page, 'branch')).toContainText('Choose the step to go to when this holds');
  await plusOn(page, 'The reply contains “yes”').click();
  await panel.getByTestId('wf-add-update_conversation').click();
  await expect(page.getByTestId('wf-terminal-unset')).toHaveCount(0);
  // A label typed but not added (no Enter) is kept: it is added when the draft is saved.
  await panel.getByTestId('wf-steps-3-addLabels').fill('interested');
  await expect(panel.getByTestId('wf-steps-3-addLabels-typed')).toContainText(
    '“interested” is added when you save',
  );

  // Otherwise: the list.
  await plusOn(page, 'Otherwise').click();
  await panel.getByTestId('wf-add-send_list').click();
  await panel.locator('select[data-testid$="-listId"]').selectOption({ label: 'Order help' });
  await expect(builder.getByTestId('wf-problems')).toHaveText('No problems');
  // Two paths end the run, and only the last step ends by itself: the other goes to an end step.
  await expect(page.getByTestId('wf-node')).toHaveCount(7);
  await expect(node(page, 'end')).toHaveCount(1);

  // Save the draft: the workflow's own page, a draft.
  await builder.getByTestId('wf-save').click();
  const saved = page.getByTestId('workflow-builder');
  await expect(saved).toHaveAttribute('data-workflow-id', /.+/);
  const workflowId = (await saved.getAttribute('data-workflow-id'))!;
  // No webhook step, so no signing secret to show: its own page opens at once.
  await expect(page).toHaveURL(new RegExp(`#/workflows/${workflowId}$`));
  await expect(page.getByTestId('wf-secret-dialog')).toHaveCount(0);
  await expect(saved.getByTestId('wf-rotate-secret')).toHaveCount(0);
  await expect(saved.getByTestId('wf-status-line')).toHaveText(/^Draft/);
  await expect(node(page, 'update_conversation')).toContainText('Label interested');

  const draft = await getWorkflow(request, key, workflowId);
  expect(draft.status).toBe('draft');
  expect(draft.trigger).toEqual({
    type: 'message_received',
    keywords: ['order'],
    match: 'whole_word',
    outsideHours: true,
  });
  expect(draft.steps.map((s) => s.type)).toEqual([
    'send_template',
    'wait_for_reply',
    'branch',
    'send_list',
    'update_conversation',
    'end',
  ]);
  const [, wait, branch, list, label, end] = draft.steps;
  expect(wait).toMatchObject({ timeout: 'PT1M' });
  expect(branch).toMatchObject({
    conditions: [
      { if: { value: '{{reply.text}}', op: 'contains', equals: 'yes' }, goto: label!.id },
    ],
    else: list!.id,
  });
  expect(label).toMatchObject({ addLabels: ['interested'] });
  expect(list).toMatchObject({ listId, next: end!.id });
  expect(label!.next).toBeUndefined();

  // Activate: it runs as version 1.
  await saved.getByTestId('wf-activate').click();
  await expect(saved.getByTestId('wf-status-line')).toHaveText('Active — v1');
  await expect(saved.getByTestId('wf-status')).toHaveText('Active');

  // Unsaved changes: leaving by the sidebar asks; keeping them stays here.
  await saved.getByTestId('wf-name').fill('Orders after hours (new)');
  await expect(saved.getByTestId('wf-status-line')).toHaveText('Active — v1 · unsaved changes');
  await page.getByRole('link', { name: 'Inbox' }).click();
  const discard = page.getByTestId('wf-discard-dialog');
  await expect(discard).toContainText('Discard changes?');
  await discard.getByTestId('wf-discard-keep').click();
  await expect(discard).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`#/workflows/${workflowId}$`));
  await expect(saved.getByTestId('wf-name')).toHaveValue('Orders after hours (new)');

  // Back/forward asks too; so does Cancel, and discarding leaves.
  await page.evaluate(() => {
    location.hash = '#/contacts';
  });
  await expect(discard).toBeVisible();
  await discard.getByTestId('wf-discard-keep').click();
  await expect(page).toHaveURL(new RegExp(`#/workflows/${workflowId}$`));
  await saved.getByTestId('wf-cancel').click();
  await discard.getByTestId('wf-discard-confirm').click();
  await expect(page.getByTestId('screen-workflows')).toBeVisible();
  await expect(page.getByTestId('workflow-row')).toContainText('Orders after hours');

  // Closing the window with unsaved changes: the browser's own prompt.
  await page.getByTestId('workflow-link').click();
  await page.getByTestId('wf-name').fill('Orders, changed again');
  const prompt = new Promise<string>((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.type());
      void dialog.accept();
    }),
  );
  await page.close({ runBeforeUnload: true });
  expect(await prompt).toBe('beforeunload');
});

test('undo and redo every edit; a removed step is re-linked; versions restore as a draft', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-builder-history');
  const created = await apiPost(request, key, '/workflows', {
    name: 'Three steps',
    trigger: { type: 'manual' },
    steps: [
      { id: 'hi', type: 'send_text', text: 'Hi!' },
      { id: 'pause', type: 'wait', duration: 'PT5M' },
      { id: 'bye', type: 'send_text', text: 'Bye!' },
    ],
  });
  const id = created.id as string;

  await page.goto(`/#/workflows/${id}`);
  await waitForLiveUpdates(page);
  const builder = page.getByTestId('workflow-builder');
  await expect(builder.getByTestId('wf-status-line')).toHaveText('Active — v1');
  await expect(page.getByTestId('wf-node')).toHaveCount(4);

  // Delete on the focused node removes it; what led to it now goes where it went.
  await node(page, 'wait').focus();
  await page.keyboard.press('Delete');
  await expect(page.getByTestId('wf-node')).toHaveCount(3);
  await expect(page.getByTestId('wf-announcement')).toContainText('Removed step 2');
  await expect(
    page.getByTestId('wf-canvas').getByRole('button', {
      name: /^Add a step after Step 1 · Send a text, before Step 2 · Send a text/,
    }),
  ).toHaveCount(1);
  await expect(builder.getByTestId('wf-status-line')).toHaveText('Active — v1 · unsaved changes');

  // Ctrl+Z brings it back, Ctrl+Shift+Z takes it away again, the buttons do the same.
  await page.keyboard.press('Control+z');
  await expect(page.getByTestId('wf-node')).toHaveCount(4);
  await expect(builder.getByTestId('wf-status-line')).toHaveText('Active — v1');
  await page.keyboard.press('Control+Shift+z');
  await expect(page.getByTestId('wf-node')).toHaveCount(3);
  await builder.getByTestId('wf-undo').click();
  await expect(page.getByTestId('wf-node')).toHaveCount(4);
  await builder.getByTestId('wf-redo').click();
  await expect(page.getByTestId('wf-node')).toHaveCount(3);

  // Typing is one step to undo; the panel's Remove does what Delete does.
  await builder.getByTestId('wf-name').fill('Two steps');
  await page.keyboard.press('Control+z');
  await expect(builder.getByTestId('wf-name')).toHaveValue('Three steps');
  await page.keyboard.press('Control+Shift+z');
  await expect(builder.getByTestId('wf-name')).toHaveValue('Two steps');

  // Saved as a draft: the active version keeps running; activating makes version 2.
  await builder.getByTestId('wf-save').click();
  await expect(builder.getByTestId('wf-status-line')).toHaveText(
    'Active — v1 · draft changes, not active yet',
  );
  const pending = await getWorkflow(request, key, id);
  expect(pending.steps).toHaveLength(3);
  expect(pending.draft?.steps).toHaveLength(2);
  await builder.getByTestId('wf-activate').click();
  await expect(builder.getByTestId('wf-status-line')).toHaveText('Active — v2');

  // Version history: restore version 1 as the draft.
  await builder.getByTestId('wf-versions').click();
  const versions = page.getByTestId('wf-versions-dialog');
  await expect(versions.getByTestId('wf-version')).toHaveCount(2);
  await versions
    .locator('[data-testid="wf-version"][data-version="1"]')
    .getByTestId('wf-version-restore')
    .click();
  await expect(versions).toHaveCount(0);
  await expect(builder.getByTestId('wf-status-line')).toHaveText(
    'Active — v2 · draft changes, not active yet',
  );
  await expect(page.getByTestId('wf-node')).toHaveCount(4);
  await expect(builder.getByTestId('wf-name')).toHaveValue('Three steps');

  // Discarding the draft goes back to what runs.
  await builder.getByTestId('wf-discard-draft').click();
  await page.getByTestId('wf-discard-draft-confirm').click();
  await expect(builder.getByTestId('wf-status-line')).toHaveText('Active — v2');
  await expect(builder.getByTestId('wf-name')).toHaveValue('Two steps');
  await expect(page.getByTestId('wf-node')).toHaveCount(3);
  await expect(builder.getByTestId('wf-discard-draft')).toHaveCount(0);
});

test('the signing secret shows once, as a sentence, only for a workflow with a webhook step, and is rotated from the builder', async ({
  page,
  server,
}) => {
  await createApiKey(server, 'test', 'e2e-builder-secret');
  await page.goto('/#/workflows/new');
  await waitForLiveUpdates(page);
  const builder = page.getByTestId('workflow-builder');
  const panel = page.getByTestId('wf-panel');
  await builder.getByTestId('wf-name').fill('Tell the warehouse');
  await trigger(page).click();
  await panel.getByTestId('wf-trigger-keywords').fill('order');
  await panel.getByTestId('wf-trigger-keywords').press('Enter');
  await panel.getByTestId('wf-trigger-add-step').click();
  await panel.getByTestId('wf-add-webhook').click();
  await panel.getByTestId('wf-steps-0-url').fill('https://example.com/hooks/parley');
  await expect(builder.getByTestId('wf-problems')).toHaveText('No problems');
  await builder.getByTestId('wf-save').click();

  const dialog = page.getByTestId('wf-secret-dialog');
  await expect(dialog).toContainText('Workflow saved: its signing secret');
  const first = (await dialog.getByTestId('wf-secret').textContent())!;
  expect(first).toMatch(/^whsec_/);
  // The sentence is one paragraph, the header's name inline in it (not three columns).
  const lead = dialog.getByTestId('wf-secret-lead');
  expect(await lead.evaluate((el) => getComputedStyle(el).display)).toBe('block');
  expect(await lead.locator('code').evaluate((el) => getComputedStyle(el).display)).toBe('inline');
  // A paragraph across the dialog's width: three lines at most.
  expect((await lead.boundingBox())!.height).toBeLessThan(80);
  await dialog.getByTestId('wf-secret-close').click();
  const saved = page.getByTestId('workflow-builder');
  await expect(saved).toHaveAttribute('data-workflow-id', /.+/);
  const workflowId = (await saved.getAttribute('data-workflow-id'))!;
  await expect(page).toHaveURL(new RegExp(`#/workflows/${workflowId}$`));

  // It cannot be shown again, but it can be replaced: asked first, then the new one once.
  await saved.getByTestId('wf-rotate-secret').click();
  const ask = page.getByTestId('wf-rotate-secret-dialog');
  await expect(ask).toContainText('the old one stops working at once');
  await ask.getByTestId('wf-rotate-secret-confirm').click();
  await expect(dialog).toContainText('The new signing secret');
  const second = (await dialog.getByTestId('wf-secret').textContent())!;
  expect(second).toMatch(/^whsec_/);
  expect(second).not.toBe(first);
  await dialog.getByTestId('wf-secret-close').click();
  await expect(dialog).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`#/workflows/${workflowId}$`));

  // In the audit trail, without the secret.
  const audit = await page.request.get('/audit?action=workflow_secret.rotated');
  expect(audit.status()).toBe(200);
  const entries = ((await audit.json()) as { data: { target: { id: string } }[] }).data;
  expect(entries.map((e) => e.target.id)).toEqual([workflowId]);
  expect(JSON.stringify(entries)).not.toContain(second);
});
