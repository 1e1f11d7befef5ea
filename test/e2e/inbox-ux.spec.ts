import type { Locator, Page } from '@playwright/test';
import { audit } from './axe-audit.ts';
import { apiPost, createApiKey, expect, signInLink, test as base } from './fixtures.ts';
import { seedInbox } from './inbox-seed.ts';

const test = base.extend<{ fakeClock: boolean; key: string }>({
  fakeClock: [false, { option: true }],
  key: async ({ page, server, fakeClock }, use) => {
    // With fakeClock, the page's timers run on a clock the test moves.
    if (fakeClock) await page.clock.install();
    await use(await createApiKey(server, 'test', 'e2e-inbox-ux'));
  },
});

/** Issue 24 items 8 and 11: the inbox at work, at the smallest supported window. */
test.use({ viewport: { width: 1024, height: 700 } });

const rows = (page: Page) => page.getByTestId('conversation-row');
const row = (page: Page, name: string) => rows(page).filter({ hasText: name });

async function box(locator: Locator) {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not on screen');
  return b;
}

test('six conversations fit under the filters; ticking a row does not move it; one selection takes a label, then an assignee', async ({
  page,
  request,
  key,
}) => {
  await seedInbox(page, request, key);
  const list = page.getByTestId('conversation-list');

  // The filters fold into one row over the tabs: six rows are whole in the list at 1024×700.
  const listBox = await box(list);
  const sixth = await box(rows(page).nth(5));
  expect(sixth.y + sixth.height, 'the sixth row ends inside the list').toBeLessThanOrEqual(
    listBox.y + listBox.height + 0.5,
  );

  // The filters are one click away and say when they are in force.
  await page.getByTestId('inbox-filters-toggle').click();
  await expect(page.getByTestId('inbox-filter-panel')).toBeVisible();
  await page.getByTestId('assignee-filter-unassigned').click();
  await expect(page.getByTestId('inbox-filters-toggle')).toHaveAccessibleName(
    /^Filters\s*1 in force$/,
  );
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('inbox-filter-panel')).toHaveCount(0);
  await expect(page.getByTestId('inbox-filters-toggle')).toBeFocused();
  await page.getByTestId('active-filter').filter({ hasText: 'Unassigned' }).click();
  await expect(page.getByTestId('active-filter')).toHaveCount(0);
  await expect(rows(page)).toHaveCount(6);

  // Ticking the first row brings the bulk bar without moving the row under the pointer.
  const first = rows(page).first();
  const before = await box(first);
  await first.getByTestId('row-select').click();
  await expect(page.getByTestId('bulk-bar')).toBeVisible();
  expect(await box(first)).toEqual(before);
  await rows(page).nth(1).getByTestId('row-select').click();
  await expect(page.getByTestId('bulk-count')).toHaveText('2 selected');

  // The bar floats over the list's lower edge; the last row still scrolls out from under it.
  await list.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
  const bar = await box(page.getByTestId('bulk-bar'));
  const last = await box(rows(page).last());
  expect(last.y + last.height).toBeLessThanOrEqual(bar.y + 0.5);
  await list.evaluate((element) => element.scrollTo({ top: 0 }));

  // Label, then assign: the same two rows, with no second selection.
  const picked = [await rows(page).nth(0).textContent(), await rows(page).nth(1).textContent()];
  await page.getByTestId('bulk-label-input').fill('follow-up');
  await page.getByTestId('bulk-label-add').click();
  await expect(page.getByTestId('bulk-status')).toHaveText('Labelling “follow-up”: 2 of 2 done');
  await expect(page.getByTestId('bulk-count')).toHaveText('2 selected');
  await page.getByTestId('bulk-assign').selectOption({ label: 'Ann Lee' });
  await expect(page.getByTestId('bulk-status')).toHaveText('Assigning to Ann Lee: 2 of 2 done');
  await expect(page.getByTestId('bulk-count')).toHaveText('2 selected');
  for (const text of picked) {
    const done = rows(page).filter({ hasText: text!.slice(0, 8) });
    await expect(done.getByTestId('conversation-label')).toHaveText('follow-up');
    await expect(done.getByTestId('conversation-assignee')).toHaveAttribute(
      'title',
      'Assigned to Ann Lee',
    );
  }

  // The report of a run that went through leaves by itself (its timer is on the banner).
  await expect(page.getByTestId('bulk-progress')).toHaveAttribute('data-auto-dismiss-ms', '4000');
  await expect(page.getByTestId('bulk-progress')).toBeHidden();
  await expect(page.getByTestId('bulk-count')).toHaveText('2 selected');

  // Escape ends the selection (from the list; in a text box it first leaves the box).
  await list.focus();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('bulk-bar')).toHaveCount(0);
  await expect(rows(page).first()).toHaveAttribute('aria-checked', 'false');
});

test.describe('timers on a clock the test moves', () => {
  test.use({ fakeClock: true });

  test('a bulk run that failed keeps its report, with a dismiss button, past the time a good one leaves', async ({
    page,
    request,
    key,
  }) => {
    await seedInbox(page, request, key);
    const failing = (await row(page, 'Ana Souza').getAttribute('data-conversation-id'))!;
    await page.route(`**/conversations/${failing}`, (route) =>
      route.request().method() === 'PATCH'
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ error: { code: 'unavailable', message: 'The desk is busy.' } }),
          })
        : route.fallback(),
    );

    await row(page, 'Ravi Menon').getByTestId('row-select').click();
    await row(page, 'Ana Souza').getByTestId('row-select').click();
    await page.getByTestId('bulk-resolve').click();
    const progress = page.getByTestId('bulk-progress');
    await expect(page.getByTestId('bulk-status')).toHaveText('Resolving: 1 of 2 done, 1 failed');
    await expect(page.getByTestId('bulk-failure')).toHaveText('Ana Souza: The desk is busy.');
    // The resolved one left the Open tab and so the selection; the failed one stays ticked.
    await expect(row(page, 'Ravi Menon')).toHaveCount(0);
    await expect(page.getByTestId('bulk-count')).toHaveText('1 selected');
    await expect(progress).not.toHaveAttribute('data-auto-dismiss-ms');

    await page.clock.runFor(10_000);
    await expect(progress).toBeVisible();
    await expect(page.getByTestId('bulk-failure')).toHaveCount(1);
    await page.getByTestId('bulk-dismiss').click();
    await expect(progress).toHaveCount(0);
    await expect(page.getByTestId('bulk-count')).toHaveText('1 selected');
  });

  test('send and resolve opens the next open conversation; a burst of notices stays above the composer, folded and counted', async ({
    page,
    request,
    key,
  }) => {
    await seedInbox(page, request, key);
    const thread = page.getByTestId('thread');
    const title = thread.getByTestId('thread-title');

    // From the keyboard: the shortcut is shown on the button.
    await row(page, 'Ravi Menon').click();
    await expect(title).toHaveText('Ravi Menon');
    const sendResolve = page.getByTestId('reply-send-resolve');
    await expect(sendResolve).toHaveAccessibleName(
      /^Send & resolve and open the next conversation/,
    );
    await expect(sendResolve).toHaveAttribute('aria-keyshortcuts', /Control\+Shift\+Enter/);
    await expect(sendResolve.locator('kbd')).toHaveText('⌃⇧↵');
    await page.getByTestId('reply-text').fill('Fixed: 20 items. Thanks!');
    await page.getByTestId('reply-text').press('Control+Shift+Enter');
    await expect(title).toHaveText('Ana Souza');
    await expect(page.getByTestId('status-count-resolved')).toHaveText('1');
    await expect(row(page, 'Ravi Menon')).toHaveCount(0);

    // With the pointer: the next one down the list.
    await page.getByTestId('reply-text').fill('We open at 9 on Saturday.');
    await sendResolve.click();
    await expect(title).toHaveText('Jonas Weber');
    await expect(page.getByTestId('status-count-resolved')).toHaveText('2');
    await expect(page.getByTestId('status-count-open')).toHaveText('4');

    // Both replies went out before the resolve.
    await page.getByTestId('status-tab-resolved').click();
    await row(page, 'Ana Souza').click();
    await expect(thread.getByText('We open at 9 on Saturday.')).toBeVisible();
    await page.getByTestId('status-tab-open').click();
    await row(page, 'Jonas Weber').click();
    await expect(title).toHaveText('Jonas Weber');

    // A burst of customers writing while Jonas is open: time stands still while it is checked.
    const now = await page.evaluate(() => Date.now());
    await page.clock.pauseAt(now + 100);
    const customers = [
      ['+14155552702', 'Thanks again! One more thing.'],
      ['+14155552701', 'Still there?'],
      ['+14155552701', 'Still there?'],
      ['+14155552700', 'Any news on the lid?'],
      ['+14155559999', 'Hello, a new customer here'],
    ] as const;
    for (const [phone, message] of customers) {
      await apiPost(request, key, '/api/simulator/inbound', { phone, message });
    }
    const toasts = page.getByTestId('toast-info');
    // Four notices (Tom's twice counted as one): three shown, the oldest folded into "+1 more".
    await expect(page.getByTestId('toast-more')).toHaveText('+1 more');
    await expect(toasts).toHaveCount(3);
    await expect(toasts.filter({ hasText: 'Still there?' }).getByTestId('toast-count')).toHaveText(
      '×2',
    );
    // None covers the composer (and so Send).
    const composer = await box(page.getByTestId('reply-composer'));
    for (const toast of await toasts.all()) {
      const b = await box(toast);
      expect(b.y + b.height).toBeLessThanOrEqual(composer.y);
    }
    const toaster = await box(page.getByTestId('toaster'));
    expect(toaster.y + toaster.height).toBeLessThanOrEqual(composer.y);

    await page.getByTestId('toast-more').click();
    await expect(toasts).toHaveCount(4);

    // Information notices are short-lived: once their time is up they are gone.
    await page.clock.runFor(6_500);
    await expect(toasts).toHaveCount(0);
    await expect(page.getByTestId('toast-more')).toHaveCount(0);
  });
});

test('the list search marks the matched words in names and previews, as text', async ({
  page,
  request,
  key,
}) => {
  await seedInbox(page, request, key);
  await apiPost(request, key, '/api/simulator/inbound', {
    phone: '+14155552790',
    message: 'About <b>my order</b> <img src=x onerror="document.title=1">',
  });
  await expect(rows(page)).toHaveCount(7);

  await page.getByTestId('inbox-search').fill('order');
  await expect(rows(page)).toHaveCount(3);
  const maya = row(page, 'Maya Fischer');
  await expect(maya.getByTestId('search-hit')).toHaveText(['Order']);
  // A match past what one line shows (in "I ordered 20"): the preview starts shortly before it.
  const ravi = row(page, 'Ravi Menon');
  await expect(ravi.getByTestId('search-hit')).toHaveText(['order']);
  await expect(ravi.getByTestId('conversation-preview')).toContainText('…');
  const hits = await ravi.getByTestId('search-hit').evaluate((mark) => mark.tagName);
  expect(hits).toBe('MARK');
  // What the customer typed is shown as it was written, not as markup.
  const odd = row(page, '+14155552790');
  await expect(odd.getByTestId('conversation-preview')).toContainText('<b>my');
  await expect(odd.locator('b, img')).toHaveCount(0);
  await expect(odd.getByTestId('search-hit')).toHaveText(['order']);

  // Two words: each is marked.
  await page.getByTestId('inbox-search').fill('cracked lid');
  await expect(rows(page)).toHaveCount(1);
  await expect(maya.getByTestId('search-hit')).toHaveText(['lid', 'cracked']);
  await expect(maya.getByTestId('conversation-preview')).toContainText('…but the lid is cracked');
  // A name matches too.
  await page.getByTestId('inbox-search').fill('fisch');
  await expect(rows(page)).toHaveCount(1);
  await expect(maya.getByTestId('search-hit')).toHaveText(['Fisch']);

  // Inside the conversation, its own search marks the matches as well.
  await maya.click();
  await page.keyboard.press('Control+f');
  await page.getByTestId('thread-search-input').fill('cracked');
  await expect(page.getByTestId('thread').locator('mark')).toHaveText(['cracked']);

  await page.getByTestId('inbox-search').fill('');
  await expect(rows(page)).toHaveCount(7);
  await expect(page.getByTestId('search-hit')).toHaveCount(0);
});

test('at 1024×700 the composer’s list select shows the whole list name', async ({
  page,
  request,
  key,
}) => {
  await apiPost(request, key, '/interactive-lists', {
    name: 'Delivery options for this week',
    body: 'Choose a delivery slot for your order.',
    buttonText: 'Pick a slot',
    sections: [
      {
        title: 'Slots',
        rows: [
          { id: 'early', title: 'Early' },
          { id: 'late', title: 'Late' },
        ],
      },
    ],
  });
  await seedInbox(page, request, key);
  await row(page, 'Tom Okafor').click();
  await page.getByTestId('reply-list-toggle').click();
  const select = page.getByTestId('reply-list-select');
  await select.selectOption({ label: 'Delivery options for this week (1 section · 2 rows)' });
  await expect(page.getByTestId('reply-list-preview')).toBeVisible();
  const fit = await select.evaluate((element: HTMLSelectElement) => {
    const style = getComputedStyle(element);
    const canvas = document.createElement('canvas').getContext('2d')!;
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = canvas.measureText(element.selectedOptions[0]!.text).width;
    // The drop-down arrow takes about 24 px of the right padding's side.
    const room =
      element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
    return { text, room };
  });
  expect(fit.room, 'the list name and size fit').toBeGreaterThanOrEqual(fit.text);
  await expect(page.getByTestId('reply-list-send')).toBeInViewport();
});

test('axe: the filter panel, the bulk bar with its report, Send & resolve and folded notices', async ({
  browser,
  server,
  key,
}) => {
  // axe is a script the app's CSP refuses: its own signed-in context, without CSP.
  const context = await browser.newContext({
    bypassCSP: true,
    viewport: { width: 1024, height: 700 },
  });
  const login = await context.request.get(await signInLink(server), { maxRedirects: 0 });
  expect(login.status()).toBe(303);
  const page = await context.newPage();
  await seedInbox(page, context.request, key);
  const found: string[] = [];
  const extraRules = ['label-content-name-mismatch'];

  await page.getByTestId('inbox-filters-toggle').click();
  await page.getByTestId('assignee-filter-unassigned').click();
  found.push(...(await audit(page, 'filter panel open, a filter in force', { extraRules })));
  await page.keyboard.press('Escape');
  await page.getByTestId('active-filter').click();
  await expect(rows(page)).toHaveCount(6);

  await rows(page).nth(0).getByTestId('row-select').click();
  await rows(page).nth(1).getByTestId('row-select').click();
  await page.getByTestId('bulk-label-input').fill('follow-up');
  await page.getByTestId('bulk-label-add').click();
  await expect(page.getByTestId('bulk-status')).toContainText('2 of 2 done');
  found.push(...(await audit(page, 'bulk bar with its report', { extraRules })));

  await row(page, 'Jonas Weber').click();
  await page.getByTestId('reply-text').fill('On its way.');
  for (const phone of ['+14155552700', '+14155552701', '+14155552702', '+14155552704']) {
    await apiPost(context.request, key, '/api/simulator/inbound', { phone, message: 'Hello?' });
  }
  await expect(page.getByTestId('toast-more')).toBeVisible();
  found.push(
    ...(await audit(page, 'composer with Send & resolve, notices folded', { extraRules })),
  );
  expect(found, found.join('\n')).toEqual([]);
  await context.close();
});
