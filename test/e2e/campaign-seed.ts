import type { APIRequestContext } from '@playwright/test';
import { apiPost, expect } from './fixtures.ts';

export const customerPhone = (i: number) => `+1415555${String(3000 + i)}`;

/**
 * `count` contacts named "Customer 001"… (phones from `customerPhone`, and an email where
 * `emailOf` gives one) in a group called `name`. Returns the group's id.
 */
export async function seedGroup(
  request: APIRequestContext,
  key: string,
  name: string,
  count: number,
  emailOf: (i: number) => string | undefined = () => undefined,
): Promise<string> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - start) }, (_, j) => {
        const i = start + j;
        const email = emailOf(i);
        return apiPost(request, key, '/api/contacts', {
          phone: customerPhone(i),
          name: `Customer ${String(i + 1).padStart(3, '0')}`,
          ...(email ? { email } : {}),
        });
      }),
    );
    ids.push(...batch.map((c) => c.id as string));
  }
  const group = await apiPost(request, key, '/api/contacts/groups', { name, contactIds: ids });
  return group.id as string;
}

/** The simulated account's pace (messages, emails, receipts). */
export async function setSimulator(
  request: APIRequestContext,
  key: string,
  settings: Record<string, number>,
): Promise<void> {
  const response = await request.put('/api/simulator/settings', {
    headers: { 'X-API-Key': key },
    data: settings,
  });
  expect(response.status(), await response.text()).toBe(200);
}

/**
 * An approved `spring_sale` template ("Hi {{1}}, take 20% off with {{2}}."), a "Spring list"
 * group of `recipients` contacts named "Customer 001"…, and the simulated account's pace.
 * Returns the group's id.
 */
export async function seedCampaignAudience(
  request: APIRequestContext,
  key: string,
  opts: { recipients: number; settings: Record<string, number> },
): Promise<string> {
  const created = (await apiPost(request, key, '/api/templates', {
    name: 'spring_sale',
    category: 'MARKETING',
    language: 'en',
    components: [{ type: 'BODY', text: 'Hi {{1}}, take 20% off with {{2}}.' }],
  })) as { template: { id: string } };
  await apiPost(request, key, `/api/simulator/templates/${created.template.id}/review`, {
    decision: 'approve',
  });
  const groupId = await seedGroup(request, key, 'Spring list', opts.recipients);
  await setSimulator(request, key, opts.settings);
  return groupId;
}
