import type { APIRequestContext, Page } from '@playwright/test';
import { audit } from './axe-audit.ts';
import {
  apiPost,
  createApiKey,
  expect,
  signInLink,
  simulateInbound,
  test,
  waitForLiveUpdates,
} from './fixtures.ts';

const PHONE = '+14155557301';
const NAME = 'Dana Order';

/**
 * "Customer writes 'order' → ask → wait for the reply (1 min) → yes: thank them; otherwise: say
 * it is fine" — made through the API, active at once, as a script would.
 */
async function seed(request: APIRequestContext, key: string): Promise<string> {
  return activeOnKeyword(request, key, {
    name: 'Order help',
    keyword: 'order',
    send: { type: 'send_text', text: 'Is this about a new order? Reply yes or no.' },
    branch: { value: '{{reply.text}}', op: 'contains', equals: 'yes' },
    matched: 'Great, a person will confirm it shortly.',
    other: 'No problem: write “order” any time.',
  });
}

// The desk as the issue measures it: a small laptop screen.
test.use({ viewport: { width: 1024, height: 700 } });

/** A test-mode API key for the script's calls, and the customer, Dana Order. */
async function keyAndCustomer(
  server: Parameters<typeof createApiKey>[0],
  request: APIRequestContext,
  name: string,
): Promise<string> {
  const key = await createApiKey(server, 'test', name);
  await apiPost(request, key, '/api/contacts', { phone: PHONE, name: NAME });
  return key;
}

/** A step of the run on its timeline, by its id. */
const stepOnTimeline = (page: Page, id: string) =>
  page.getByTestId('wf-run').locator(`[data-testid="wf-timeline-step"][data-step-id="${id}"]`);

/**
 * An active workflow started by a customer's message with `keyword`: `send` (a text or a list),
 * a wait for the reply (1 min), then a branch: `value` equal to or containing `expected` goes to
 * `thanks`, anything else to `fallback`. Its id.
 */
async function activeOnKeyword(
  request: APIRequestContext,
  key: string,
  w: {
    name: string;
    keyword: string;
    send: Record<string, unknown>;
    branch: { value: string; op: 'eq' | 'contains'; equals: string };
    matched: string;
    other: string;
  },
): Promise<string> {
  const workflow = await apiPost(request, key, '/workflows', {
    name: w.name,
    status: 'active',
    trigger: { type: 'message_received', keywords: [w.keyword], match: 'whole_word' },
    steps: [
      { id: 'ask', ...w.send },
      { id: 'await', type: 'wait_for_reply', timeout: 'PT1M' },
      {
        id: 'route',
        type: 'branch',
        conditions: [{ if: w.branch, goto: 'thanks' }],
        else: 'fallback',
      },
      { id: 'thanks', type: 'send_text', text: w.matched },
      { id: 'done', type: 'end' },
      { id: 'fallback', type: 'send_text', text: w.other },
    ],
  });
  return workflow.id as string;
}

/** The customer writes 'order': a run starts for them; its id, from the run history (live). */
async function customerWritesOrder(
  page: Page,
  request: APIRequestContext,
  key: string,
  workflowId: string,
): Promise<string> {
  await page.goto(`/#/workflows/${workflowId}/runs`);
  await waitForLiveUpdates(page);
  const before = await page.getByTestId('wf-run-row').count();
  await simulateInbound(request, key, { phone: PHONE, message: 'Hi, about my order' });
  const rows = page.getByTestId('wf-run-row');
  await expect(rows).toHaveCount(before + 1);
  const row = rows.first();
  await expect(row.getByTestId('wf-run-link')).toHaveText(NAME);
  await expect(row.getByTestId('run-outcome')).toHaveText('Waiting');
  return (await row.getAttribute('data-run-id'))!;
}

test('the owner plays the customer through both branches; each run says its outcome and steps in words', async ({
  page,
  request,
  server,
}) => {
  const key = await keyAndCustomer(server, request, 'e2e-workflow-runs');
  const workflowId = await seed(request, key);

  // 1. The customer says yes: the branch's condition holds, the run completes.
  const first = await customerWritesOrder(page, request, key, workflowId);
  await page
    .locator(`[data-testid="wf-run-row"][data-run-id="${first}"]`)
    .getByTestId('wf-run-link')
    .click();
  const timeline = page.getByTestId('wf-run');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Run for ${NAME}`);
  const steps = timeline.getByTestId('wf-timeline-step');
  await expect(steps).toHaveCount(2);
  await expect(steps.nth(0).getByTestId('run-step-result')).toContainText(
    'Is this about a new order? Reply yes or no.',
  );
  // The wait says when it gives up, a minute after it began.
  await expect(steps.nth(1).getByTestId('run-times-out')).toContainText(
    /Waiting for a reply — times out at .+, in (1 min|\d+ s)$/,
  );
  const panel = page.getByTestId('test-run-panel');
  await expect(panel.getByTestId('run-times-out')).toBeVisible();

  await panel.getByTestId('test-run-reply-text').fill('yes please');
  await panel.getByTestId('test-run-reply').click();
  await expect(timeline.getByTestId('run-outcome').first()).toHaveText('Completed');
  const at = (id: string) => stepOnTimeline(page, id);
  await expect(steps).toHaveCount(5);
  await expect(at('await').getByTestId('wf-step-status')).toHaveText('Replied');
  await expect(at('await').getByTestId('run-step-result')).toContainText('yes please');
  await expect(at('route').getByTestId('wf-step-status')).toHaveText('Matched');
  await expect(at('route').getByTestId('run-step-result')).toContainText('went on to thanks');
  await expect(at('route').getByTestId('run-step-result')).toContainText(
    '“yes please” contains “yes”',
  );
  await expect(at('thanks').getByTestId('run-step-result')).toContainText(
    'Great, a person will confirm it shortly.',
  );
  await expect(at('fallback')).toHaveCount(0);
  await expect(page.getByTestId('test-run-panel')).toHaveCount(0);
  // Fields in words, never JSON.
  await expect(steps.locator('pre')).toHaveCount(0);

  // 2. The customer says something else: no condition holds, the run goes "otherwise".
  const second = await customerWritesOrder(page, request, key, workflowId);
  expect(second).not.toBe(first);
  await page
    .locator(`[data-testid="wf-run-row"][data-run-id="${second}"]`)
    .getByTestId('wf-run-link')
    .click();
  await expect(steps).toHaveCount(2);
  await page.getByTestId('test-run-panel').getByTestId('test-run-reply-text').fill('not sure');
  await page.getByTestId('test-run-panel').getByTestId('test-run-reply').click();
  await expect(timeline.getByTestId('run-outcome').first()).toHaveText('Otherwise');
  await expect(timeline.getByTestId('run-outcome-text')).toHaveText(
    '— no condition held for “not sure”',
  );
  await expect(at('route').getByTestId('wf-step-status')).toHaveText('Otherwise');
  await expect(at('route').getByTestId('run-step-result')).toContainText(
    'Otherwise — went on to fallback',
  );
  await expect(at('fallback').getByTestId('run-step-result')).toContainText(
    'write “order” any time',
  );
  await expect(at('thanks')).toHaveCount(0);

  // Its path on the canvas: the steps it went through, and not the others.
  await timeline.getByTestId('run-show-canvas').click();
  await expect(page.getByTestId('run-canvas')).toHaveAttribute(
    'data-path',
    'ask await route fallback',
  );

  // The history tells the two apart, each in its own words.
  await page.getByRole('link', { name: 'All runs' }).click();
  await expect(
    page.locator(`[data-testid="wf-run-row"][data-run-id="${first}"]`).getByTestId('run-outcome'),
  ).toHaveText('Completed');
  await expect(
    page.locator(`[data-testid="wf-run-row"][data-run-id="${second}"]`).getByTestId('run-outcome'),
  ).toHaveText('Otherwise');
});

test('a test run from the dialog: the owner picks a row of the list the run sent, and the branch reads the pick', async ({
  page,
  request,
  server,
}) => {
  const key = await keyAndCustomer(server, request, 'e2e-workflow-runs-list');
  const list = await apiPost(request, key, '/interactive-lists', {
    name: 'Order menu',
    body: 'What can we do for you?',
    buttonText: 'Choose',
    sections: [
      {
        title: 'Orders',
        rows: [
          { id: 'track', title: 'Track my order' },
          { id: 'return', title: 'Return an item' },
        ],
      },
    ],
  });
  const workflowId = await activeOnKeyword(request, key, {
    name: 'Menu',
    keyword: 'menu',
    send: { type: 'send_list', listId: list.id },
    branch: { value: '{{reply.listReply.rowId}}', op: 'eq', equals: 'track' },
    matched: 'Your parcel is on its way.',
    other: 'A person will help with that.',
  });
  // The customer wrote earlier (no keyword: no run), so the 24-hour window is open for a list.
  await simulateInbound(request, key, { phone: PHONE, message: 'hello there' });

  await page.goto(`/#/workflows/${workflowId}/runs`);
  await waitForLiveUpdates(page);
  await expect(page.getByTestId('wf-runs-none')).toBeVisible();
  await page.getByTestId('wf-test-run').click();
  const dialog = page.getByTestId('wf-test-dialog');
  await expect(dialog).toContainText('answer as the customer');
  await dialog.getByTestId('wf-test-search').fill('Dana');
  await dialog.getByTestId('wf-test-contact').filter({ hasText: PHONE }).click();
  await dialog.getByTestId('wf-test-start').click();

  const timeline = page.getByTestId('wf-run');
  const at = (id: string) => stepOnTimeline(page, id);
  await expect(timeline.getByTestId('run-outcome').first()).toHaveText('Waiting');
  await expect(at('ask').getByTestId('run-step-result')).toContainText('Order menu');
  await expect(at('ask').getByTestId('run-step-result')).toContainText(
    'Track my order · Return an item',
  );
  const panel = page.getByTestId('test-run-panel');
  const rows = panel.getByTestId('test-run-pick-row');
  await expect(rows).toHaveText(['Track my order', 'Return an item']);
  await rows.filter({ hasText: 'Track my order' }).click();
  await expect(timeline.getByTestId('run-outcome').first()).toHaveText('Completed');
  const answer = at('await').getByTestId('run-step-result').locator('[data-field="answer"]');
  await expect(answer.locator('dt')).toHaveText('Customer picked');
  await expect(answer.locator('dd')).toHaveText('Track my order');
  await expect(at('route').getByTestId('wf-step-status')).toHaveText('Matched');
  await expect(at('route').getByTestId('run-step-result')).toContainText('“track” equals “track”');
  await expect(at('thanks').getByTestId('run-step-result')).toContainText(
    'Your parcel is on its way.',
  );
  await expect(at('fallback')).toHaveCount(0);
});

test('a wait nobody answers times out: the run says "Timed out — no reply in 5 s", never a green Done', async ({
  page,
  request,
  server,
}) => {
  const key = await keyAndCustomer(server, request, 'e2e-workflow-runs-timeout');
  const workflow = await apiPost(request, key, '/workflows', {
    name: 'Quick question',
    status: 'active',
    trigger: { type: 'message_received', keywords: ['order'], match: 'whole_word' },
    steps: [
      { id: 'ask', type: 'send_text', text: 'Shall we call you back?' },
      { id: 'await', type: 'wait_for_reply', timeout: 'PT5S', onTimeout: 'nudge' },
      { id: 'done', type: 'end' },
      { id: 'nudge', type: 'send_text', text: 'We are here whenever you need us.' },
    ],
  });
  const runId = await customerWritesOrder(page, request, key, workflow.id as string);
  await page.goto(`/#/workflows/${workflow.id as string}/runs/${runId}`);
  const timeline = page.getByTestId('wf-run');
  const at = (id: string) => stepOnTimeline(page, id);
  // Nobody answers; the core's timer takes the timeout path a few seconds on.
  await expect(timeline.getByTestId('run-outcome').first()).toHaveText('Timed out', {
    timeout: 20_000,
  });
  await expect(timeline.getByTestId('run-outcome').first()).toHaveAttribute(
    'data-outcome',
    'timed_out',
  );
  await expect(timeline.getByTestId('run-outcome-text')).toHaveText('— no reply in 5 s');
  await expect(at('await').getByTestId('wf-step-status')).toHaveText('Timed out');
  await expect(at('await').getByTestId('run-step-result')).toContainText('nothing in 5 s');
  await expect(at('await').getByTestId('run-step-result')).toContainText(
    'took the timeout path to nudge',
  );
  await expect(at('nudge').getByTestId('run-step-result')).toContainText(
    'We are here whenever you need us.',
  );
  await page.getByRole('link', { name: 'All runs' }).click();
  await expect(
    page.locator(`[data-testid="wf-run-row"][data-run-id="${runId}"]`).getByTestId('run-outcome'),
  ).toHaveText('Timed out');
});

test('an agent takes the conversation over from the inbox mid-run: the run ends handed off', async ({
  page,
  request,
  server,
}) => {
  const key = await keyAndCustomer(server, request, 'e2e-workflow-handoff');
  const workflowId = await seed(request, key);
  // The customer says hello (no keyword, no run); the agent has the conversation open.
  await simulateInbound(request, key, { phone: PHONE, message: 'hello' });
  await page.goto('/#/inbox');
  await waitForLiveUpdates(page);
  await page.getByTestId('conversation-row').filter({ hasText: NAME }).click();
  await expect(page.getByTestId('thread')).toContainText('hello');
  await expect(page.getByTestId('automation-banner')).toHaveCount(0);

  // They write about an order: the run starts, and the thread says so as it happens.
  await simulateInbound(request, key, { phone: PHONE, message: 'Hi, about my order' });
  const banner = page.getByTestId('automation-banner');
  await expect(banner).toContainText('Automation: Order help is talking to this customer');
  const runId = (await banner.getAttribute('data-run-id'))!;
  expect(runId).toBeTruthy();
  await banner.getByTestId('take-over').click();
  await expect(page.getByTestId('automation-banner')).toHaveCount(0);
  await expect(page.getByTestId('thread').getByTestId('assignee-name')).toHaveText('Owner');

  // The run stopped where it was, and says so; the customer's late reply moves nothing.
  await page.goto(`/#/workflows/${workflowId}/runs/${runId}`);
  const timeline = page.getByTestId('wf-run');
  await expect(timeline.getByTestId('run-outcome').first()).toHaveText('Handed off');
  await expect(timeline.getByTestId('run-outcome-text')).toContainText('a person took over');
  await expect(timeline.getByTestId('wf-run-cancel')).toHaveCount(0);
  await expect(page.getByTestId('test-run-panel')).toHaveCount(0);
  const wait = stepOnTimeline(page, 'await');
  await expect(wait.getByTestId('wf-step-status')).toHaveText('Handed off');
  await expect(wait.getByTestId('run-step-result')).toContainText(
    'a person took the conversation over here',
  );
  await simulateInbound(request, key, { phone: PHONE, message: 'yes' });
  await page.goto(`/#/workflows/${workflowId}/runs`);
  await expect(
    page.locator(`[data-testid="wf-run-row"][data-run-id="${runId}"]`).getByTestId('run-outcome'),
  ).toHaveText('Handed off');
});

test('the run history, a waiting run with its test panel and the inbox banner are axe clean at 1024×700', async ({
  browser,
  request,
  server,
}) => {
  const key = await keyAndCustomer(server, request, 'e2e-workflow-runs-axe');
  const workflowId = await seed(request, key);
  // axe is injected as a script, which the app's CSP refuses: this context bypasses it.
  const context = await browser.newContext({
    bypassCSP: true,
    viewport: { width: 1024, height: 700 },
  });
  expect((await context.request.get(await signInLink(server), { maxRedirects: 0 })).status()).toBe(
    303,
  );
  const page = await context.newPage();
  const runId = await customerWritesOrder(page, request, key, workflowId);
  const found: string[] = [];
  found.push(...(await audit(page, 'run history')));

  await page.goto(`/#/workflows/${workflowId}/runs/${runId}`);
  await expect(page.getByTestId('test-run-panel').getByTestId('run-times-out')).toBeVisible();
  found.push(...(await audit(page, 'waiting run, test panel')));
  await page.getByTestId('run-show-canvas').click();
  await expect(page.getByTestId('run-canvas')).toHaveAttribute('data-current', 'await');
  found.push(...(await audit(page, 'waiting run on the canvas')));

  await page.goto('/#/inbox');
  await page.getByTestId('conversation-row').filter({ hasText: NAME }).click();
  await expect(page.getByTestId('automation-banner')).toBeVisible();
  found.push(...(await audit(page, 'inbox, automation banner')));
  await context.close();
  expect(found).toEqual([]);
});
