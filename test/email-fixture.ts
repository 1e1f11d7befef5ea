import { expect } from 'vitest';
import type { TestCore } from './helpers.ts';

/**
 * What the email API suites share: a group of contacts with these addresses and a draft email
 * campaign to it (through the API, with `key`), and the app session's SMTP settings for a local
 * peer (a loopback server: the workspace must allow private targets, README "Email").
 */
export async function emailCampaign(
  t: TestCore,
  key: string,
  emails: string[],
  campaign: Record<string, unknown> = {},
) {
  const contactIds: string[] = [];
  for (const [i, email] of emails.entries()) {
    const r = await t.request('POST', '/api/contacts', {
      key,
      body: { phone: `+1415555${String(6000 + i)}`, name: `Person ${i}`, email },
    });
    contactIds.push(r.body.id);
  }
  const group = (
    await t.request('POST', '/api/contacts/groups', { key, body: { name: 'All', contactIds } })
  ).body;
  const id = (
    await t.request('POST', '/v1/email/campaigns', {
      key,
      body: {
        name: 'News',
        subject: 'Hello {{contact.name}}',
        fromEmail: 'news@acme.example',
        html: '<p>Hi</p>',
        audience: { groupId: group.id },
        ...campaign,
      },
    })
  ).body.id as string;
  return {
    id,
    groupId: group.id as string,
    launch: () => t.request('POST', `/v1/email/campaigns/${id}/launch`, { key, body: {} }),
    get: async () => (await t.request('GET', `/v1/email/campaigns/${id}`, { key })).body,
  };
}

/** Live SMTP settings for a local peer, set by the app session (an API key gets 403). */
export async function smtpSettingsForPeer(
  t: TestCore,
  port: number,
  settings: Record<string, unknown> = {},
) {
  const session = { session: 'live' } as const;
  const allowed = await t.request('PATCH', '/api/workspace/settings', {
    ...session,
    body: { allowPrivateWebhooks: true },
  });
  expect(allowed.status).toBe(200);
  const put = await t.request('PUT', '/v1/email/settings', {
    ...session,
    body: {
      smtp: { host: '127.0.0.1', port, secure: false, user: null },
      ratePerSecond: 5,
      publicUrl: 'https://mail.acme.example',
      ...settings,
    },
  });
  expect(put.status).toBe(200);
}

/** The most events in any window [t, t + 1000 ms). */
export function maxPerSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! < sorted[i]! - 999) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}
