import type { APIRequestContext, Page } from '@playwright/test';
import { addAgent, createApiKey, expect, test } from './fixtures.ts';

const PARCEL = '+14155552601';
const OTHER = '+14155552602';
const THIRD = '+14155552603';

async function inbound(
  request: APIRequestContext,
  key: string,
  phone: string,
  message: string,
): Promise<string> {
  const response = await request.post('/api/simulator/inbound', {
    headers: { 'X-API-Key': key },
    data: { phone, message },
  });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { conversationId: string }).conversationId;
}

async function patch(request: APIRequestContext, key: string, id: string, body: unknown) {
  const response = await request.patch(`/conversations/${id}`, {
    headers: { 'X-API-Key': key },
    data: body,
  });
  expect(response.status(), await response.text()).toBe(200);
}

async function openInbox(page: Page): Promise<void> {
  await page.goto('/#/inbox');
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'open');
}

const rows = (page: Page) => page.getByTestId('conversation-row');

test('under a search, a conversation reopened by an inbound message re-enters the list live', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  const parcel = await inbound(request, key, PARCEL, 'Where is my parcel?');
  await inbound(request, key, OTHER, 'Hello there');
  await patch(request, key, parcel, { status: 'resolved' });
  await openInbox(page);
  await expect(rows(page)).toHaveCount(1);

  await page.getByTestId('inbox-search').fill('parcel');
  await expect(page.getByTestId('inbox-empty')).toContainText('match these filters');
  await expect(page.getByTestId('status-count-resolved')).toHaveText('1');

  // The customer writes again: the conversation reopens, and the search shows it without a reload.
  await inbound(request, key, PARCEL, 'Any news about the parcel?');
  const row = rows(page).filter({ hasText: PARCEL });
  await expect(row).toBeVisible();
  await expect(page.getByTestId('status-count-open')).toHaveText('1');
  await expect(rows(page)).toHaveCount(1);

  // Resolved again then reopened by a message that does not contain the word: the contact's
  // earlier message still matches, so it comes back too; a tab click re-reads the list.
  await patch(request, key, parcel, { status: 'resolved' });
  await expect(row).toHaveCount(0);
  await inbound(request, key, PARCEL, 'Hello?');
  await expect(row).toBeVisible();
  await page.getByTestId('status-tab-open').click();
  await expect(row).toBeVisible();
  await expect(rows(page)).toHaveCount(1);
});

test('the unread toggle shows only conversations with unread messages, and follows reads live', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  await inbound(request, key, PARCEL, 'First');
  const other = await inbound(request, key, OTHER, 'Second');
  await patch(request, key, other, { read: true });
  await openInbox(page);
  await expect(rows(page)).toHaveCount(2);

  // The filters fold into a panel under the Filters button.
  await page.getByTestId('inbox-filters-toggle').click();
  const toggle = page.getByTestId('unread-filter');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText(PARCEL);
  await expect(page.getByTestId('status-count-open')).toHaveText('1');

  // A new message makes the other one unread: it joins.
  await inbound(request, key, OTHER, 'Are you there?');
  await expect(rows(page)).toHaveCount(2);
  await expect(page.getByTestId('status-count-open')).toHaveText('2');

  // Opening (and so reading) a row does not pull it out from under the agent; picking the
  // view again reloads it without the read one.
  const opened = rows(page).filter({ hasText: OTHER });
  await opened.click();
  await expect(page.getByTestId('status-count-open')).toHaveText('1');
  await expect(rows(page)).toHaveCount(2);
  await page.getByTestId('status-tab-open').click();
  await expect(rows(page)).toHaveCount(1);

  // A click elsewhere folded the filters: open them again to switch it off.
  await page.getByTestId('inbox-filters-toggle').click();
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(rows(page)).toHaveCount(2);
});

test('New conversation: a typed phone opens a thread whose composer offers templates', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  await inbound(request, key, OTHER, 'Hi');
  await openInbox(page);
  await page.getByTestId('new-conversation').click();
  const dialog = page.getByTestId('new-conversation-dialog');
  await dialog.getByTestId('new-conversation-input').fill('+1 415 555 2603');
  await dialog.getByTestId('new-conversation-phone').click();
  await expect(dialog).toBeHidden();
  const thread = page.getByTestId('thread');
  await expect(thread.getByTestId('thread-title')).toHaveText(THIRD);
  // Nobody has written in: outside the window, the composer offers templates.
  await expect(page.getByTestId('reply-composer')).toHaveAttribute('data-kind', 'template');
  await expect(rows(page).filter({ hasText: THIRD })).toBeVisible();

  // An existing contact, picked by name, opens the same conversation.
  await page.getByTestId('new-conversation').click();
  await dialog.getByTestId('new-conversation-input').fill(OTHER.slice(-4));
  await dialog.getByTestId('new-conversation-contact').filter({ hasText: OTHER }).click();
  await expect(thread.getByTestId('thread-title')).toHaveText(OTHER);
  await expect(page.getByTestId('reply-composer')).toHaveAttribute('data-kind', 'text');
  await expect(rows(page)).toHaveCount(2);
});

test('bulk: tick rows (shift-click for a range, or all) and assign or resolve them together', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  await addAgent(page.request, 'Bo Diaz', 'bo@example.com');
  for (const phone of [PARCEL, OTHER, THIRD]) await inbound(request, key, phone, 'Hello');
  await openInbox(page);
  await expect(rows(page)).toHaveCount(3);

  // Shift-click ticks the range from the last ticked row.
  await rows(page).nth(0).getByTestId('row-select').click();
  await rows(page)
    .nth(2)
    .getByTestId('row-select')
    .click({ modifiers: ['Shift'] });
  await expect(page.getByTestId('bulk-count')).toHaveText('3 selected');
  await rows(page).nth(1).getByTestId('row-select').click();
  await expect(page.getByTestId('bulk-count')).toHaveText('2 selected');
  await expect(rows(page).nth(1)).toHaveAttribute('aria-checked', 'false');

  // The signed-in member is "me"; a teammate is picked by name.
  await expect(page.getByTestId('bulk-assign').locator('option', { hasText: '(me)' })).toHaveText(
    'Owner (me)',
  );
  await page.getByTestId('bulk-assign').selectOption({ label: 'Bo Diaz' });
  await expect(page.getByTestId('bulk-status')).toHaveText('Assigning to Bo Diaz: 2 of 2 done');
  await expect(rows(page).getByTestId('conversation-assignee')).toHaveCount(2);

  // Select all, resolve: everything leaves the Open tab, the counts follow.
  await page.getByTestId('select-all').check();
  await expect(page.getByTestId('bulk-count')).toHaveText('3 selected');
  await page.getByTestId('bulk-resolve').click();
  await expect(page.getByTestId('bulk-status')).toHaveText('Resolving: 3 of 3 done');
  await expect(rows(page)).toHaveCount(0);
  await expect(page.getByTestId('status-count-open')).toHaveText('0');
  await expect(page.getByTestId('status-count-resolved')).toHaveText('3');
});

test('first run: the empty inbox offers the next steps, and a simulated customer writes in live', async ({
  page,
  server,
}) => {
  await createApiKey(server, 'test');
  await openInbox(page);
  const empty = page.getByTestId('inbox-empty');
  await expect(empty).toContainText('No conversations yet');

  await empty.getByTestId('first-run-templates').click();
  await expect(page).toHaveURL(/#\/templates$/);
  await page.goBack();
  await expect(page).toHaveURL(/#\/inbox$/);
  await page.getByTestId('inbox-empty').getByTestId('first-run-contacts').click();
  await expect(page).toHaveURL(/#\/contacts$/);
  // It opens the import dialog itself, not just the screen.
  await expect(page.getByTestId('import-dialog')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('import-dialog')).toBeHidden();
  await page.goBack();

  await page.getByTestId('inbox-empty').getByTestId('first-run-simulate').click();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first().getByTestId('unread-badge')).toHaveText('1');
  await expect(page.getByTestId('inbox-empty')).toHaveCount(0);
});
