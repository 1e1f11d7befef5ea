import type { APIRequestContext } from '@playwright/test';
import { apiPost, expect } from './fixtures.ts';

export const customerPhone = (i: number) => `+1415555${String(3000 + i)}`;

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
  const ids: string[] = [];
  for (let start = 0; start < opts.recipients; start += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, opts.recipients - start) }, (_, j) =>
        apiPost(request, key, '/api/contacts', {
          phone: customerPhone(start + j),
          name: `Customer ${String(start + j + 1).padStart(3, '0')}`,
        }),
      ),
    );
    ids.push(...batch.map((c) => c.id as string));
  }
  const group = await apiPost(request, key, '/api/contacts/groups', {
    name: 'Spring list',
    contactIds: ids,
  });
  const settings = await request.put('/api/simulator/settings', {
    headers: { 'X-API-Key': key },
    data: opts.settings,
  });
  expect(settings.status(), await settings.text()).toBe(200);
  return group.id as string;
}
