/**
 * A 1024×700 laptop: panels collapse by width and tables scroll inside their container, so the
 * thread, its actions and the composer stay usable.
 */
import type { Locator, Page } from '@playwright/test';
import { seedInbox } from './inbox-seed.ts';
import { seedCampaignAudience } from './campaign-seed.ts';
import { apiPost, createApiKey, expect, test } from './fixtures.ts';

const SMALL = { width: 1024, height: 700 };

/** Fully inside the window, not clipped by it. */
async function expectInViewport(locator: Locator, page: Page): Promise<void> {
  const box = await locator.boundingBox();
  expect(box, 'rendered').not.toBeNull();
  const size = page.viewportSize()!;
  const what = `${String(locator)} at ${JSON.stringify(box)}`;
  expect(box!.x, what).toBeGreaterThanOrEqual(0);
  expect(box!.y, what).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, what).toBeLessThanOrEqual(size.width + 0.5);
  expect(box!.y + box!.height, what).toBeLessThanOrEqual(size.height + 0.5);
}

async function expectNoOverlap(locators: Locator[]): Promise<void> {
  const boxes = await Promise.all(locators.map((l) => l.boundingBox()));
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      const apart =
        a.x + a.width <= b.x + 1.5 ||
        b.x + b.width <= a.x + 1.5 ||
        a.y + a.height <= b.y + 1.5 ||
        b.y + b.height <= a.y + 1.5;
      expect(apart, `elements ${i} and ${j} overlap`).toBe(true);
    }
  }
}

/** The page itself never scrolls sideways: wide content scrolls inside its own box. */
async function expectNoPageScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

test('at 1024×700 the inbox is two panes: the thread, its actions and the composer are usable; contact details open over it', async ({
  page,
  request,
  server,
}) => {
  await page.setViewportSize(SMALL);
  const key = await createApiKey(server, 'test', 'e2e-small');
  await seedInbox(page, request, key);
  await page.getByTestId('conversation-row').filter({ hasText: 'Maya Fischer' }).click();

  const thread = page.getByTestId('thread');
  await expect(thread).toBeVisible();
  // Even with the contact panel switched on, it does not take a column at this width.
  const panelToggle = page.getByTestId('toggle-contact-panel');
  await expect(page.getByTestId('contact-panel')).toHaveCount(0);
  const threadBox = (await thread.boundingBox())!;
  expect(threadBox.width).toBeGreaterThanOrEqual(420);

  // The list's tools fit its narrower column.
  const newConversation = page.getByTestId('new-conversation');
  await expectInViewport(newConversation, page);
  const list = (await page.getByTestId('conversation-list').boundingBox())!;
  const button = (await newConversation.boundingBox())!;
  expect(button.x + button.width).toBeLessThanOrEqual(list.x + list.width);

  const actions = [
    page.getByTestId('add-label'),
    page.getByTestId('assign-menu'),
    page.getByTestId('snooze-menu'),
    page.getByTestId('resolve'),
    page.getByTestId('status-menu'),
  ];
  for (const action of actions) await expectInViewport(action, page);
  await expectNoOverlap(actions);

  const composer = page.getByTestId('reply-composer');
  await expectInViewport(composer, page);
  const input = composer.getByTestId('reply-text');
  expect((await input.boundingBox())!.height).toBeGreaterThanOrEqual(40);
  // The messages keep a readable share of the height.
  expect((await page.getByTestId('thread-messages').boundingBox())!.height).toBeGreaterThanOrEqual(
    200,
  );

  // Usable, not just visible: a reply goes out, a label is added beside the assignee button.
  await input.fill('Sorry about that! A replacement is on its way.');
  await composer.getByTestId('reply-send').click();
  await expect(
    page.getByTestId('thread-messages').getByText('A replacement is on its way.'),
  ).toBeVisible();
  await page.getByTestId('add-label').click();
  const labelInput = page.getByTestId('label-input');
  await expectInViewport(labelInput, page);
  await expectNoOverlap([labelInput, page.getByTestId('assign-menu')]);
  await labelInput.fill('damaged');
  await labelInput.press('Enter');
  await expect(page.getByTestId('thread-label').filter({ hasText: 'damaged' })).toBeVisible();

  // The contact details open over the thread and close with Escape, focus back on the toggle.
  await panelToggle.click();
  const panel = page.getByTestId('contact-panel');
  await expect(panel).toBeVisible();
  // It slides in: measure where it comes to rest.
  await panel.evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)));
  await expectInViewport(panel, page);
  await expect(panel.getByTestId('panel-name')).toHaveText('Maya Fischer');
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
  await expect(panelToggle).toBeFocused();

  await page.getByTestId('resolve').click();
  await expect(page.getByTestId('thread-status')).toHaveAttribute('data-status', 'resolved');
  await expectNoPageScroll(page);
});

test('at 1024×700 the API keys table scrolls inside its card and Contacts → Messages leaves room for messages', async ({
  page,
  request,
  server,
}) => {
  await page.setViewportSize(SMALL);
  const key = await createApiKey(server, 'test', 'a-key-with-a-rather-long-descriptive-name');
  await createApiKey(server, 'live', 'live-key');
  await page.goto('/#/settings/keys');
  const table = page.getByTestId('keys-table');
  await expect(table.getByTestId('key-row')).toHaveCount(2);
  await expectNoPageScroll(page);
  const revoke = table.getByTestId('revoke-key').first();
  await revoke.scrollIntoViewIfNeeded();
  await expectInViewport(revoke, page);
  await expectInViewport(table.getByTestId('key-status').first(), page);

  await apiPost(request, key, '/api/contacts', { phone: '+14155552701', name: 'Tom Okafor' });
  await apiPost(request, key, '/api/simulator/inbound', {
    phone: '+14155552701',
    message: 'Is the blue one back in stock?',
  });
  await page.goto('/#/contacts');
  await page.getByTestId('open-messages').first().click();
  const drawer = page.getByTestId('messages-drawer');
  await expect(drawer.getByText('Is the blue one back in stock?')).toBeVisible();
  expect((await drawer.getByTestId('message-thread').boundingBox())!.height).toBeGreaterThanOrEqual(
    220,
  );
  await expectInViewport(drawer.getByTestId('close-drawer'), page);
  await expectNoPageScroll(page);
});

test('the app shell never scrolls as a whole: scrolling anything into view moves only its own pane', async ({
  page,
}) => {
  await page.setViewportSize(SMALL);
  const screens = [
    '/#/inbox',
    '/#/templates',
    '/#/campaigns',
    '/#/workflows',
    '/#/interactive-lists',
    '/#/contacts',
    '/#/email',
    '/#/email/settings',
    '/#/settings/channel',
    '/#/settings/keys',
    '/#/settings/members',
    '/#/wallet',
    '/#/canned-replies',
  ];
  for (const screen of screens) {
    await page.goto(screen);
    await expect(page.locator('.app')).toBeVisible();
    // What a "jump to the problem" link or "Add step" does: every element, the hidden legends
    // and labels included, scrolled into view in turn.
    const scrolled = await page.evaluate(() => {
      const root = document.scrollingElement!;
      for (const element of document.querySelectorAll('.app *')) {
        element.scrollIntoView({ block: 'end' });
        if (root.scrollTop !== 0 || root.scrollLeft !== 0) {
          return `${element.tagName.toLowerCase()}.${element.className} scrolled the document to (${root.scrollLeft}, ${root.scrollTop})`;
        }
      }
      return root.scrollHeight > root.clientHeight
        ? `the document is ${root.scrollHeight - root.clientHeight} px taller than the window`
        : null;
    });
    expect(scrolled, screen).toBeNull();
  }
});

test('the test-mode banner is inside a landmark of its own on every screen', async ({ page }) => {
  for (const screen of ['/#/inbox', '/#/campaigns', '/#/settings/keys']) {
    await page.goto(screen);
    const banner = page.getByTestId('test-mode-banner');
    await expect(banner).toBeVisible();
    await expect(banner).toHaveRole('region');
    await expect(banner).toHaveAccessibleName('Test mode');
  }
});

test('the first Tab offers "Skip to the screen", which moves the focus past the sidebar', async ({
  page,
}) => {
  await page.goto('/#/inbox');
  await expect(page.locator('.app')).toBeVisible();
  await page.locator('body').focus();
  await page.keyboard.press('Tab');
  const skip = page.getByTestId('skip-link');
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.locator('#main-content')).toBeFocused();
  // The next Tab lands inside the screen, not in the sidebar.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('#main-content'))).toBe(true);
});

test('at 1024×700 the inbox label filter shows its whole placeholder, inside its row', async ({
  page,
}) => {
  await page.setViewportSize(SMALL);
  await page.goto('/#/inbox');
  await page.getByTestId('inbox-filters-toggle').click();
  const filter = page.getByTestId('label-filter');
  await expect(filter).toBeVisible();
  const fit = await filter.evaluate((input: HTMLInputElement) => {
    const style = getComputedStyle(input);
    const canvas = document.createElement('canvas').getContext('2d')!;
    canvas.font = `${style.fontSize} ${style.fontFamily}`;
    const text = canvas.measureText(input.placeholder).width;
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const row = input.parentElement!;
    return { text, room, overflow: row.scrollWidth - row.clientWidth };
  });
  expect(fit.room, 'the placeholder fits').toBeGreaterThanOrEqual(fit.text);
  expect(fit.overflow, 'the filter row does not overflow').toBeLessThanOrEqual(0);
});

test('a long email in the contact panel ends in an ellipsis, the whole address in its title', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test', 'e2e-email');
  const email = 'customer.service.department.of.a.long.company.name@example-enterprises.com';
  await apiPost(request, key, '/api/contacts', {
    phone: '+14155550177',
    name: 'Long Address',
    email,
  });
  await apiPost(request, key, '/api/simulator/inbound', {
    phone: '+14155550177',
    message: 'Hello',
  });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/#/inbox');
  await page.getByTestId('conversation-row').filter({ hasText: 'Long Address' }).click();
  const toggle = page.getByTestId('toggle-contact-panel');
  if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
  const link = page.getByTestId('contact-email');
  await expect(link).toHaveAttribute('title', email);
  const shown = await link.evaluate((a) => {
    const style = getComputedStyle(a);
    return {
      display: style.display,
      overflow: style.textOverflow,
      cut: a.scrollWidth > a.clientWidth,
    };
  });
  expect(shown.display).toBe('block');
  expect(shown.overflow).toBe('ellipsis');
  expect(shown.cut, 'this address is longer than the panel').toBe(true);
});

test('at 1024×700 the sidebar shows icons only (a remembered choice) and the campaigns table fits; with names shown it scrolls in its box, with a cue, by keyboard too', async ({
  page,
  request,
  server,
}) => {
  await page.setViewportSize(SMALL);
  const key = await createApiKey(server, 'test', 'e2e-small-campaigns');
  const groupId = await seedCampaignAudience(request, key, {
    recipients: 3,
    settings: { throughputMps: 1000 },
  });
  const body = {
    templateName: 'spring_sale',
    variables: { '1': '{{contact.name}}', '2': 'SPRING20' },
    target: { groupId },
  };
  const launched = await apiPost(request, key, '/campaigns', {
    name: 'Spring sale for the whole list',
    ...body,
  });
  await apiPost(request, key, '/campaigns/launch', { id: launched.id });
  await apiPost(request, key, '/campaigns', { name: 'Later', ...body });

  await page.goto('/#/campaigns');
  const sidebar = page.getByTestId('sidebar');
  const toggle = page.getByTestId('sidebar-toggle');
  // Narrow, the sidebar is icons only; the links keep their names (and tooltips).
  await expect(sidebar).toHaveAttribute('data-collapsed', 'true');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  expect((await sidebar.boundingBox())!.width).toBeLessThanOrEqual(72);
  const campaignsLink = page.getByRole('link', { name: 'Campaigns', exact: true });
  await expect(campaignsLink).toBeVisible();
  await expect(campaignsLink).toHaveAttribute('title', 'Campaigns');

  // The table fits beside it: every column inside the window, nothing cut.
  const table = page.getByTestId('campaigns-table');
  await expect(table.getByTestId('campaign-row')).toHaveCount(2);
  const wrap = page.getByTestId('campaigns-table-wrap');
  await expect(wrap).toHaveAttribute('data-scrolls', 'false');
  await expectInViewport(table.locator('th').last(), page);

  // Names shown, the sidebar is wider: the table scrolls in its box, with a shadow on the side
  // that has more, and the box takes the focus so the arrow keys scroll it.
  await toggle.click();
  await expect(sidebar).toHaveAttribute('data-collapsed', 'false');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  expect((await sidebar.boundingBox())!.width).toBeGreaterThanOrEqual(190);
  await expect(wrap).toHaveAttribute('data-scrolls', 'true');
  await expect(wrap).toHaveRole('region');
  await expect(wrap).toHaveAccessibleName('Campaigns (scrolls sideways)');
  expect(await wrap.evaluate((el) => getComputedStyle(el).backgroundImage)).toContain(
    'radial-gradient',
  );
  await wrap.focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await expect.poll(() => wrap.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
  await expectNoPageScroll(page);

  // The choice is remembered.
  await page.reload();
  await expect(sidebar).toHaveAttribute('data-collapsed', 'false');
  await toggle.click();
  await expect(sidebar).toHaveAttribute('data-collapsed', 'true');
  await page.reload();
  await expect(sidebar).toHaveAttribute('data-collapsed', 'true');
  await expectNoPageScroll(page);
});
