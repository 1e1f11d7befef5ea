/**
 * What the listening-workflow tests share (issue 23): a core on a manual clock with an approved
 * template, contacts, and helpers that act as the customer (the simulator), an agent (the inbox)
 * and the builder (drafts, activation), and read runs as the API shows them.
 */
import { expect } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are read as JSON */
export type Json = any;
/* eslint-enable @typescript-eslint/no-explicit-any */

export const ANN = '+14155552671';
export const BOB = '+14155552672';
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** An approved test template `order_update` ("Hello {{1}}, your order {{2}} has shipped."). */
export async function orderTemplate(t: TestCore, key: string) {
  const tpl = await t.request('POST', '/api/templates', {
    key,
    body: {
      name: 'order_update',
      category: 'UTILITY',
      language: 'en',
      components: [{ type: 'BODY', text: 'Hello {{1}}, your order {{2}} has shipped.' }],
    },
  });
  expect(tpl.status).toBeLessThan(300);
  const scope = { workspaceId: t.workspaceId, environment: 'test' } as const;
  t.core.services.templates.decide(scope, tpl.body.template.id, 'approve');
  await t.core.services.scheduler.runDue();
}

export async function workflowKit(start?: number) {
  const clock = manualClock(start);
  const t: TestCore = await makeCore({ clock });
  const key = t.key('test');
  const scope = { workspaceId: t.workspaceId, environment: 'test' } as const;
  const jobs = t.core.services.scheduler;
  await orderTemplate(t, key);
  for (const [phone, name] of [
    [ANN, 'Ann'],
    [BOB, 'Bob'],
  ] as const) {
    const c = await t.request('POST', '/api/contacts', { key, body: { phone, name } });
    expect(c.status).toBeLessThan(300);
  }

  /** Saves a workflow (201 expected); `status` active unless said. */
  const workflow = async (
    trigger: unknown,
    steps: unknown[],
    over: Record<string, unknown> = {},
  ) => {
    const res = await t.request('POST', '/workflows', {
      key,
      body: { name: 'Flow', trigger, steps, ...over },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as Json;
  };
  /** The customer writes (or picks a list row); jobs due now run after. */
  const inbound = async (phone: string, body: Record<string, unknown> | string) => {
    const res = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone, ...(typeof body === 'string' ? { message: body } : body) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await jobs.runDue();
    return res.body as Json;
  };
  const runsOf = async (workflowId: string): Promise<Json[]> => {
    const res = await t.request('GET', `/workflows/${workflowId}/runs?limit=200`, { key });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const getRun = async (id: string) =>
    (await t.request('GET', `/workflows/runs/${id}`, { key })).body as Json;
  const conversationOf = async (phone: string): Promise<Json> => {
    const list = await t.request('GET', '/conversations?limit=200', { key });
    const row = (list.body.data as Json[]).find((c) => c.contact.phone === phone);
    return row ? (await t.request('GET', `/conversations/${row.id}`, { key })).body : null;
  };
  /** An agent's reply (or a bot's, or a note) in the customer's conversation. */
  const reply = async (phone: string, body: Record<string, unknown>) => {
    const c = await conversationOf(phone);
    const res = await t.request('POST', `/conversations/${c.id}/reply`, { key, body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body as Json;
  };
  /** Outbound texts to `phone`, oldest first. */
  const sentTo = async (phone: string): Promise<string[]> =>
    (
      (await t.request('GET', `/messages?phone=${encodeURIComponent(phone)}`, { key })).body
        .data as Json[]
    )
      .filter((m) => m.direction === 'outbound' && m.type !== 'note')
      .reverse()
      .map((m) => m.text as string);
  const setHours = async (hours: Record<string, unknown>) => {
    const res = await t.request('PUT', '/settings/business-hours', {
      session: 'test',
      body: hours,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as Json;
  };
  const eventsOf = (type: string) =>
    (
      t.core.services.db
        .prepare('SELECT data FROM events WHERE type = ? ORDER BY seq')
        .all(type) as { data: string }[]
    ).map((r) => JSON.parse(r.data) as Json);
  /** Runs due jobs, moving the clock to the next queued one, until none is left within `ms`. */
  const until = async (ms: number) => {
    const end = clock.now() + ms;
    for (let i = 0; i < 1000; i++) {
      await jobs.runDue();
      const next = (
        t.core.services.db
          .prepare(`SELECT min(run_at) AS at FROM jobs WHERE status = 'queued'`)
          .get() as { at: number | null }
      ).at;
      if (next === null || next > end) break;
      clock.set(Math.max(clock.now() + 1, next));
    }
    if (clock.now() < end) clock.set(end);
    await jobs.runDue();
  };
  /** A member with an open event stream: online, so round-robin and auto-assignment see them. */
  const online = (memberId: string, name: string) =>
    t.core.services.presence.streamOpened({
      workspaceId: t.workspaceId,
      memberId,
      name,
      clientId: 'test',
    });
  return {
    t,
    clock,
    online,
    key,
    scope,
    jobs,
    workflow,
    inbound,
    runsOf,
    getRun,
    conversationOf,
    reply,
    sentTo,
    setHours,
    eventsOf,
    until,
  };
}
export type WorkflowKit = Awaited<ReturnType<typeof workflowKit>>;
