/**
 * axe-core over every screen, empty and with data, in test and live mode: no critical or serious
 * violation. axe is injected as a script tag, which the app's Content-Security-Policy refuses,
 * so these contexts bypass it (the other specs keep checking the policy).
 */
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { APIRequestContext, Browser, Page } from '@playwright/test';
import {
  addAgent,
  allowPrivateTargets,
  apiPost,
  createApiKey,
  expect,
  parleyCli,
  signInLink,
  test,
  type ParleyServer,
} from './fixtures.ts';

const require = createRequire(import.meta.url);
const AXE_PATH = require.resolve('axe-core/axe.min.js');
const RULE_SETS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** A signed-in page in a context without CSP, so axe's script tag can run. */
async function axePage(browser: Browser, server: ParleyServer): Promise<Page> {
  const context = await browser.newContext({
    bypassCSP: true,
    viewport: { width: 1366, height: 850 },
  });
  const login = await context.request.get(await signInLink(server), { maxRedirects: 0 });
  expect(login.status(), 'the sign-in link answers a redirect').toBe(303);
  return context.newPage();
}

/**
 * Runs axe on the page as it is; returns the critical and serious violations, described.
 * `extraRules` are rules the tags leave out (axe's experimental ones, such as
 * `label-content-name-mismatch`), run as well; each must have run, or that is a finding too.
 */
async function audit(
  page: Page,
  where: string,
  { extraRules = [] }: { extraRules?: string[] } = {},
): Promise<string[]> {
  // Dialogs and drawers fade and slide in: judge the colours they come to rest with.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH });
  const { violations, ran } = await page.evaluate(
    async ({ runOnly, extra }) => {
      const axe = (window as unknown as { axe: { run: (...args: unknown[]) => Promise<unknown> } })
        .axe;
      const result = (await axe.run(document, {
        runOnly,
        rules: Object.fromEntries(extra.map((id) => [id, { enabled: true }])),
      })) as Record<'violations' | 'passes' | 'incomplete' | 'inapplicable', AxeViolation[]>;
      const ran = [result.violations, result.passes, result.incomplete, result.inapplicable]
        .flat()
        .map((r) => r.id);
      return { violations: result.violations, ran };
    },
    { runOnly: RULE_SETS, extra: extraRules },
  );
  // axe's own rule only asks for at least one h1 (and only as "moderate"): a screen has exactly one.
  const h1s = await page.locator('h1').count();
  const headings = h1s === 1 ? [] : [`[${where}] one-h1 (serious): the screen has ${h1s} h1`];
  return violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map(
      (v) =>
        `[${where}] ${v.id} (${v.impact}): ${v.help}\n` +
        v.nodes
          .slice(0, 5)
          .map((n) => `    ${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`.trimEnd())
          .join('\n'),
    )
    .concat(headings)
    .concat(
      extraRules.filter((id) => !ran.includes(id)).map((id) => `[${where}] ${id} did not run`),
    );
}

/** Every screen the sidebar links to, so a new screen is audited as soon as it is linked. */
async function screenHrefs(page: Page): Promise<string[]> {
  return page
    .locator('nav.sidebar a.nav-link')
    .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
}

async function waitForScreen(page: Page, href: string): Promise<void> {
  await page.goto(`/${href}`);
  await expect(page.locator('main.content [aria-busy="true"]')).toHaveCount(0);
}

/** The dialogs that open from a screen: its address, the button that opens it, the dialog. */
const DIALOGS: [string, string, string][] = [
  ['#/contacts', 'open-import', 'import-dialog'],
  ['#/contacts', 'open-add-contact', 'contact-dialog'],
  ['#/canned-replies', 'canned-new', 'canned-dialog'],
  ['#/inbox', 'new-conversation', 'new-conversation-dialog'],
  ['#/webhooks', 'webhook-new', 'webhook-dialog'],
];

async function switchMode(page: Page, mode: 'test' | 'live'): Promise<void> {
  await page.getByTestId(`mode-${mode}`).click();
  await expect(page.getByTestId(`mode-${mode}`)).toHaveAttribute('aria-pressed', 'true');
}

/** Every screen, then the dialogs and editors that open from them. */
async function auditAll(page: Page, label: string): Promise<string[]> {
  const found: string[] = [];
  const hrefs = await screenHrefs(page);
  expect(hrefs.length).toBeGreaterThanOrEqual(6);
  for (const href of hrefs) {
    await waitForScreen(page, href);
    found.push(...(await audit(page, `${label} ${href}`)));
  }

  for (const [href, opener, dialog] of DIALOGS) {
    await waitForScreen(page, href);
    await page.getByTestId(opener).click();
    await expect(page.getByTestId(dialog)).toBeVisible();
    found.push(...(await audit(page, `${label} ${href} ${dialog}`)));
    await page.keyboard.press('Escape');
    await expect(page.getByTestId(dialog)).toHaveCount(0);
  }

  await waitForScreen(page, '#/inbox');
  // Shortcuts are ignored while typing: nothing focused, as when the agent reads the list.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcuts-dialog')).toBeVisible();
  found.push(...(await audit(page, `${label} inbox shortcuts dialog`)));
  await page.keyboard.press('Escape');

  await waitForScreen(page, '#/templates');
  await page.getByTestId('new-template').click();
  await expect(page.getByTestId('template-editor')).toBeVisible();
  found.push(...(await audit(page, `${label} template editor`)));

  // The list editor, its errors showing, then its preview's sheet open.
  await waitForScreen(page, '#/interactive-lists/new');
  await page.getByTestId('list-body').fill('Pick a topic and an agent who knows it will answer.');
  await page.getByTestId('list-sections-0-rows-0-title').fill('A row title over the limit');
  await expect(page.getByTestId('list-sections-0-rows-0-title-error')).toBeVisible();
  found.push(...(await audit(page, `${label} list editor`)));
  await page.getByTestId('preview-list-button').click();
  await expect(page.getByTestId('list-sheet')).toBeVisible();
  found.push(...(await audit(page, `${label} list preview sheet`)));

  // The workflow builder: the canvas with the step-type choice open, then a step's problem
  // showing on its node and in its form, then the guard's question on leaving.
  await waitForScreen(page, '#/workflows/new');
  await page.getByRole('button', { name: 'Add a step after the trigger' }).click();
  await expect(page.getByTestId('wf-add-step')).toBeVisible();
  found.push(...(await audit(page, `${label} workflow builder, adding a step`)));
  await page.getByTestId('wf-add-wait').click();
  await page.getByTestId('wf-steps-0-duration').fill('0');
  await expect(page.getByTestId('wf-steps-0-duration-error')).toBeVisible();
  await expect(page.getByTestId('wf-node-badge')).toBeVisible();
  found.push(...(await audit(page, `${label} workflow builder`)));
  await page.locator('[data-testid="wf-node"][data-kind="trigger"]').click();
  await expect(page.getByTestId('wf-trigger-form')).toBeVisible();
  found.push(...(await audit(page, `${label} workflow builder, trigger`)));
  await page.getByTestId('wf-cancel').click();
  await expect(page.getByTestId('wf-discard-dialog')).toBeVisible();
  found.push(...(await audit(page, `${label} workflow builder, discard changes`)));
  await page.getByTestId('wf-discard-confirm').click();
  await expect(page.getByTestId('screen-workflows')).toBeVisible();
  return found;
}

/** A workflow with most step types, and a run of it waiting for the customer's reply. */
async function seedWorkflowRun(request: APIRequestContext, key: string, phone: string) {
  const workflow = (await apiPost(request, key, '/workflows', {
    name: 'Welcome back',
    trigger: { type: 'manual' },
    steps: [
      { id: 'tag', type: 'update_conversation', addLabels: ['returning'], status: 'pending' },
      { id: 'hello', type: 'send_text', text: 'Welcome back {{contact.name}}! Need a hand?' },
      { id: 'ask', type: 'wait_for_reply', timeout: 'PT1H' },
      {
        id: 'check',
        type: 'branch',
        conditions: [
          { if: { value: '{{reply.text}}', op: 'contains', equals: 'yes' }, goto: 'notify' },
        ],
        else: 'done',
      },
      {
        id: 'notify',
        type: 'webhook',
        url: 'https://example.com/hooks/parley',
        body: { phone: '{{contact.phone}}' },
      },
      { id: 'done', type: 'end' },
    ],
  })) as { id: string };
  const run = (await apiPost(request, key, '/workflows/trigger', {
    workflowId: workflow.id,
    phone,
  })) as { id: string };
  return { workflowId: workflow.id, runId: run.id };
}

/** A saved list; in test mode also sent to the first customer, who picks a row. */
async function seedList(request: APIRequestContext, key: string, phone: string | null) {
  const list = (await apiPost(request, key, '/interactive-lists', {
    name: 'Delivery options',
    header: 'When suits you?',
    body: 'Choose a delivery slot for your order.',
    footer: 'Free delivery over 50',
    buttonText: 'Pick a slot',
    sections: [
      {
        title: 'Tomorrow',
        rows: [
          { id: 'am', title: 'Morning', description: '8:00 to 12:00' },
          { id: 'pm', title: 'Afternoon' },
        ],
      },
      { title: 'Later', rows: [{ id: 'week', title: 'Later this week' }] },
    ],
  })) as { id: string };
  if (!phone) return;
  await apiPost(request, key, '/api/send-list', { phone, listId: list.id });
  await apiPost(request, key, '/api/simulator/inbound', {
    phone,
    listReply: { listId: list.id, rowId: 'pm' },
  });
}

/** Templates, contacts with long labels, conversations (one outside its window), an agent. */
async function seed(request: APIRequestContext, key: string, environment: 'test' | 'live') {
  const created = (await apiPost(request, key, '/api/templates', {
    name: 'order_followup',
    category: 'UTILITY',
    language: 'en',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Your order' },
      { type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' },
      { type: 'FOOTER', text: 'Parley demo store' },
    ],
  })) as { template: { id: string } };
  for (let i = 0; i < 12; i++) {
    await apiPost(request, key, '/api/contacts', {
      phone: `+1415555${String(2600 + i)}`,
      name: `Customer ${i + 1}`,
      email: `customer${i + 1}@example.com`,
      labels: ['vip', 'wholesale', 'a-rather-long-label-for-the-list'],
    });
  }
  await apiPost(request, key, '/canned-replies', {
    shortcut: 'thanks',
    text: 'Thanks {{contact.name}}, we are on it.',
  });
  if (environment === 'live') return seedList(request, key, null);
  await apiPost(request, key, `/api/simulator/templates/${created.template.id}/review`, {
    decision: 'approve',
  });
  for (let i = 0; i < 6; i++) {
    await apiPost(request, key, '/api/simulator/inbound', {
      phone: `+1415555${String(2600 + i)}`,
      message: `Hello, this is message ${i + 1}. Where is order ORD_2026_${i}?`,
      ...(i === 5 ? { receivedAt: new Date(Date.now() - 25 * 3600e3).toISOString() } : {}),
    });
  }
  // The newest conversation: a list sent and a row picked.
  await seedList(request, key, '+14155552600');
}

test.describe.configure({ timeout: 180_000 });

test('axe finds no critical or serious violation on any empty screen, in test and live mode', async ({
  browser,
  server,
}) => {
  const page = await axePage(browser, server);
  await page.goto('/#/inbox');
  const found: string[] = [];
  found.push(...(await auditAll(page, 'empty test')));
  await switchMode(page, 'live');
  found.push(...(await auditAll(page, 'empty live')));
  expect(found, found.join('\n')).toEqual([]);
  await page.context().close();
});

test('axe finds no critical or serious violation with data: an open thread, filled lists, both modes', async ({
  browser,
  server,
  request,
}) => {
  const testKey = await createApiKey(server, 'test', 'a11y-test');
  await seed(request, testKey, 'test');
  await seed(request, await createApiKey(server, 'live', 'a11y-live'), 'live');
  const page = await axePage(browser, server);
  // A teammate the owner added, so the member and assignee lists are not empty.
  await addAgent(page.request, 'Ann Lee', 'ann@example.com');
  await page.goto('/#/inbox');
  await expect(page.getByTestId('mode-test')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('current-member')).toHaveText('Owner');

  const found: string[] = [];
  found.push(...(await auditAll(page, 'data test')));

  // The inbox with a thread open: the window-open composer, then one that offers templates.
  await waitForScreen(page, '#/inbox');
  await page.getByTestId('conversation-row').first().click();
  await expect(page.getByTestId('reply-composer')).toHaveAttribute('data-kind', 'text');
  // The thread has a sent list (its rows open) and the customer's pick.
  await page.getByTestId('list-message-button').click();
  await expect(page.getByTestId('list-message-rows')).toBeVisible();
  await expect(page.getByTestId('list-pick-source')).toBeVisible();
  found.push(...(await audit(page, 'data test inbox thread')));
  await page.getByTestId('reply-list-toggle').click();
  await page
    .getByTestId('reply-list-select')
    .selectOption({ label: 'Delivery options (2 sections · 3 rows)' });
  await expect(page.getByTestId('reply-list-preview')).toBeVisible();
  found.push(...(await audit(page, 'data test inbox list reply')));
  await page.getByTestId('reply-list-toggle').click();
  await page.getByTestId('conversation-row').filter({ hasText: 'Customer 6' }).click();
  await expect(page.getByTestId('reply-composer')).toHaveAttribute('data-kind', 'template');
  await page.getByTestId('reply-template-select').selectOption({ label: 'order_followup · en' });
  found.push(...(await audit(page, 'data test inbox template reply')));

  // The assignee button with someone assigned, then its picker open. Its accessible name must
  // hold its visible text: axe's label-content-name-mismatch, an experimental rule that runs
  // only when asked for.
  const nameMatch = { extraRules: ['label-content-name-mismatch'] };
  const assignee = page.getByTestId('assign-menu');
  await assignee.click();
  await page.getByTestId('assign-option').filter({ hasText: 'Ann Lee' }).click();
  await expect(page.getByTestId('assignee-name')).toHaveText('Ann Lee');
  await expect(assignee).toHaveAccessibleName(/^Assignee: Ann Lee/);
  found.push(...(await audit(page, 'data test inbox assignee', nameMatch)));
  await assignee.click();
  await expect(page.getByTestId('assign-option').first()).toBeVisible();
  found.push(...(await audit(page, 'data test inbox assignee picker', nameMatch)));
  await assignee.click();
  await expect(page.getByTestId('assign-option')).toHaveCount(0);

  // A narrow window: two panes, the sidebar as icons, the test-mode banner; the contact details
  // over the thread, then closed (its toggle then controls nothing on the page).
  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(page.getByTestId('sidebar')).toHaveAttribute('data-collapsed', 'true');
  await expect(page.getByTestId('test-mode-banner')).toBeVisible();
  await page.getByTestId('toggle-contact-panel').click();
  await expect(page.getByTestId('contact-panel')).toBeFocused();
  found.push(...(await audit(page, 'data test inbox 1024 contact overlay')));
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('contact-panel')).toHaveCount(0);
  found.push(...(await audit(page, 'data test inbox 1024 contact panel closed', nameMatch)));
  // The campaigns and workflows screens there, as icons beside them.
  for (const screen of ['#/campaigns', '#/workflows']) {
    await waitForScreen(page, screen);
    found.push(...(await audit(page, `data test 1024 ${screen}`)));
  }
  await page.setViewportSize({ width: 1366, height: 850 });

  // A workflow with a webhook step: rotating its signing secret asks, then shows the new one.
  const hooked = (await apiPost(request, testKey, '/workflows', {
    name: 'Tell the warehouse',
    trigger: { type: 'event', event: 'order.paid' },
    steps: [{ id: 'tell', type: 'webhook', url: 'https://example.com/hooks/parley' }],
  })) as { id: string };
  await waitForScreen(page, `#/workflows/${hooked.id}`);
  await page.getByTestId('wf-rotate-secret').click();
  await expect(page.getByTestId('wf-rotate-secret-dialog')).toBeVisible();
  found.push(...(await audit(page, 'data test workflow rotate secret')));
  await page.getByTestId('wf-rotate-secret-confirm').click();
  await expect(page.getByTestId('wf-secret')).toHaveText(/^whsec_/);
  found.push(...(await audit(page, 'data test workflow new secret')));
  await page.getByTestId('wf-secret-close').click();

  // Contacts → Messages drawer.
  await waitForScreen(page, '#/contacts');
  await page.getByTestId('open-messages').first().click();
  await expect(page.getByTestId('messages-drawer')).toBeVisible();
  found.push(...(await audit(page, 'data test contacts messages')));

  // Webhooks: an endpoint whose receiver (on 127.0.0.1) refuses, its log with the answer
  // unfolded; the event picker with a group partly ticked; a new endpoint's secret.
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(500).end('{"error":"database is down"}'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  try {
    await allowPrivateTargets(page.request);
    const hook = (await apiPost(request, testKey, '/webhooks', {
      url: hookUrl,
      events: ['message.received'],
    })) as { id: string };
    await apiPost(request, testKey, '/api/simulator/inbound', {
      phone: '+14155552601',
      message: 'Is my parcel on its way?',
    });
    await waitForScreen(page, `#/webhooks/${hook.id}`);
    await expect(page.getByTestId('delivery-code').first()).toHaveText('HTTP 500');
    await page.getByTestId('delivery-answer').first().locator('summary').click();
    found.push(...(await audit(page, 'data test webhook log')));
    await waitForScreen(page, '#/webhooks');
    await page.getByTestId('webhook-new').click();
    await page.getByTestId('webhook-url').fill(`${hookUrl}/crm`);
    await page.getByTestId('webhook-events-some').check();
    await page.getByTestId('webhook-event-conversation-created').check();
    found.push(...(await audit(page, 'data test webhook event picker')));
    await page.getByTestId('webhook-save').click();
    await expect(page.getByTestId('webhook-secret-dialog')).toBeVisible();
    found.push(...(await audit(page, 'data test webhook secret')));
    await page.getByTestId('webhook-secret-close').click();
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }

  // Last in test mode (its run messages the first customer): a workflow's builder with its steps, its run history, and a run's timeline.
  const { workflowId, runId } = await seedWorkflowRun(request, testKey, '+14155552600');
  await waitForScreen(page, `#/workflows/${workflowId}`);
  await expect(page.getByTestId('wf-node')).toHaveCount(7);
  await page.locator('[data-testid="wf-node"][data-step-type="branch"]').click();
  await expect(page.getByTestId('wf-step-form')).toBeVisible();
  found.push(...(await audit(page, 'data test workflow builder')));
  await page.getByTestId('wf-versions').click();
  await expect(page.getByTestId('wf-version')).toHaveCount(1);
  found.push(...(await audit(page, 'data test workflow versions')));
  await page.keyboard.press('Escape');
  await waitForScreen(page, `#/workflows/${workflowId}/runs`);
  await expect(page.getByTestId('wf-run-row')).toHaveCount(1);
  found.push(...(await audit(page, 'data test workflow runs')));
  await waitForScreen(page, `#/workflows/${workflowId}/runs/${runId}`);
  await expect(page.getByTestId('wf-timeline-step')).toHaveCount(3);
  found.push(...(await audit(page, 'data test workflow run timeline')));

  await switchMode(page, 'live');
  found.push(...(await auditAll(page, 'data live')));
  expect(found, found.join('\n')).toEqual([]);
  await page.context().close();
});

test('Settings → Workspace passes axe at 1024×700: a field’s error showing, the top bar’s low-balance warning, the retention table', async ({
  browser,
  server,
}) => {
  // $1.00 against the default $5.00 threshold: live mode warns in the top bar.
  await parleyCli(server, ['wallet', 'topup', '--amount', '1.00']);
  const page = await axePage(browser, server);
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto('/#/inbox');
  await switchMode(page, 'live');
  await waitForScreen(page, '#/settings/workspace');
  await expect(page.getByTestId('low-balance-warning')).toBeVisible();
  await expect(page.getByTestId('ws-retention-row').first()).toBeVisible();
  await page.getByTestId('ws-public-url').fill('not a web address');
  await page.getByTestId('ws-public-url-save').click();
  await expect(page.getByTestId('ws-public-url-error')).toBeVisible();
  // Business hours with a range that closes before it opens, and a holiday.
  await page.getByTestId('ws-hours-sat-add').click();
  await page.getByTestId('ws-hours-sat-0-to').fill('08:00');
  await page.getByTestId('ws-hours-holiday').fill('2026-12-24');
  await page.getByTestId('ws-hours-holiday-add').click();
  await page.getByTestId('ws-hours-save').click();
  await expect(page.getByTestId('ws-hours-sat-0-to-error')).toBeVisible();
  const found = await audit(page, 'workspace settings 1024');
  expect(found, found.join('\n')).toEqual([]);
  // Usable there: every card's controls reach the viewport, and the page never scrolls sideways.
  for (const id of [
    'ws-allow-private',
    'ws-low-balance-save',
    'team-auto-assign',
    'ws-public-url-save',
    'ws-hours-save',
  ]) {
    await page.getByTestId(id).scrollIntoViewIfNeeded();
    await expect(page.getByTestId(id)).toBeInViewport();
  }
  const sideways = await page.evaluate(() => {
    const main = document.querySelector('main.content')!;
    return main.scrollWidth - main.clientWidth;
  });
  expect(sideways).toBeLessThanOrEqual(0);
  await page.context().close();
});

test('the inbox status tabs are one tab stop; arrow keys move focus and selection', async ({
  page,
}) => {
  await page.goto('/#/inbox');
  const tabs = page.getByRole('tablist', { name: 'Status' }).getByRole('tab');
  await expect(tabs).toHaveCount(4);
  // Only the selected tab is in the tab order.
  await expect(page.getByTestId('status-tab-open')).toHaveAttribute('tabindex', '0');
  await expect(page.getByTestId('status-tab-pending')).toHaveAttribute('tabindex', '-1');

  await page.getByTestId('status-tab-open').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('status-tab-pending')).toBeFocused();
  await expect(page.getByTestId('status-tab-pending')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('status-tab-pending')).toHaveAttribute('tabindex', '0');
  await expect(page.getByTestId('status-tab-open')).toHaveAttribute('tabindex', '-1');

  await page.keyboard.press('End');
  await expect(page.getByTestId('status-tab-resolved')).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('status-tab-open')).toBeFocused();
  await expect(page.getByTestId('status-tab-open')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('status-tab-resolved')).toBeFocused();

  // One Tab leaves the tab list.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('tab').and(page.locator(':focus'))).toHaveCount(0);
});
