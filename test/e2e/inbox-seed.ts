import type { APIRequestContext, Page } from '@playwright/test';
import { apiPost, expect } from './fixtures.ts';

const CUSTOMERS = [
  ['Maya Fischer', 'Hi! Order ORD_2026_A arrived but the lid is cracked. Can you help?'],
  ['Tom Okafor', 'Is the blue one back in stock?'],
  ['Lina Park', 'Thanks, that worked!'],
  ['Jonas Weber', 'Can I change the delivery address to my office?'],
  ['Ana Souza', 'What time do you open on Saturday?'],
  ['Ravi Menon', 'My invoice shows 2*3*4 = 24 items, I ordered 20.'],
] as const;

/** Conversations from named customers, an agent, and a signed-in page in test mode. */
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
  await page.goto('/#/inbox');
  const setup = page.getByTestId('agent-setup');
  await setup.getByTestId('agent-name').fill('Ann Lee');
  await setup.getByTestId('agent-email').fill('ann@example.com');
  await setup.getByTestId('agent-submit').click();
  await expect(page.getByTestId('current-agent')).toHaveText('Ann Lee');
}
