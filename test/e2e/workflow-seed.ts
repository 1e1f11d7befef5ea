/** What workflow specs build on: an approved template, as a shop would have one. */
import type { APIRequestContext } from '@playwright/test';
import { apiPost } from './fixtures.ts';

/** Submits a template with one body and approves it in the simulator. */
export async function approvedTemplate(
  request: APIRequestContext,
  key: string,
  template: { name: string; category: 'MARKETING' | 'UTILITY'; body: string },
): Promise<void> {
  const created = (await apiPost(request, key, '/api/templates', {
    name: template.name,
    category: template.category,
    language: 'en',
    components: [{ type: 'BODY', text: template.body }],
  })) as { template: { id: string } };
  await apiPost(request, key, `/api/simulator/templates/${created.template.id}/review`, {
    decision: 'approve',
  });
}
