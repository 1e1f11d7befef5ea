import type { APIRequestContext, Page } from '@playwright/test';
import { addAgent, apiPost, expect } from './fixtures.ts';

const CUSTOMERS = [
  ['Maya Fischer', 'Hi! Order ORD_2026_A arrived but the lid is cracked. Can you help?'],
  ['Tom Okafor', 'Is the blue one back in stock?'],
  ['Lina Park', 'Thanks, that worked!'],
  ['Jonas Weber', 'Can I change the delivery address to my office?'],
  ['Ana Souza', 'What time do you open on Saturday?'],
  ['Ravi Menon', 'My invoice shows 2*3*4 = 24 items, I ordered 20.'],
] as const;

/**
 * Conversations from named customers, a teammate (an agent the signed-in owner added), and the
 * owner's signed-in page on the inbox in test mode.
 */
export async function seedInbox(
  page: Page,
  request: APIRequestContext,
  key: string,
): Promise<void> {
  for (const [i, [name, message]] of CUSTOMERS.entries()) {
    const phone = `+1415555${String(2700 + i)}`;
    await apiPost(request, key, '/api/contacts', { phone, name, labels: i < 2 ? ['vip'] : [] });
    await apiPost(request, key, '/api/simulator/inbound', { phone, message });
  }
  await addAgent(page.request, 'Ann Lee', 'ann@example.com');
  await page.goto('/#/inbox');
  await expect(page.getByTestId('current-member')).toHaveText('Owner');
  await expect(page.getByTestId('conversation-row')).toHaveCount(CUSTOMERS.length);
}
