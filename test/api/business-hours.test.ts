/**
 * Business hours as a workspace setting (design.md §7): read by builders and scripts, changed by
 * the workspace's administrators only, checked in plain words, audited.
 */
import { afterEach, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore, manualClock } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

const hours = {
  timeZone: 'Europe/Berlin',
  days: { mon: [{ from: '09:00', to: '17:00' }], sat: [{ from: '10:00', to: '14:00' }] },
  holidays: ['2026-12-25', '2026-01-01', '2026-12-25'],
};

it('defaults, saves in weekday order, answers open now and the next change, and audits', async () => {
  // Monday 5 January 2026, 10:00 UTC (11:00 in Berlin).
  t = await makeCore({ clock: manualClock() });
  const before = await t.request('GET', '/settings/business-hours', { key: t.key('test') });
  expect(before.status).toBe(200);
  expect(before.body).toMatchObject({
    timeZone: 'UTC',
    openNow: true,
    nextChange: '2026-01-05T17:00:00.000Z',
  });
  const put = await t.request('PUT', '/settings/business-hours', { session: 'test', body: hours });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  expect(put.body).toEqual({
    timeZone: 'Europe/Berlin',
    days: {
      mon: [{ from: '09:00', to: '17:00' }],
      tue: [],
      wed: [],
      thu: [],
      fri: [],
      sat: [{ from: '10:00', to: '14:00' }],
      sun: [],
    },
    holidays: ['2026-01-01', '2026-12-25'],
    openNow: true,
    nextChange: '2026-01-05T16:00:00.000Z',
  });
  // The same in the live environment: one setting per workspace.
  const live = await t.request('GET', '/settings/business-hours', { key: t.key('live') });
  expect(live.body.timeZone).toBe('Europe/Berlin');
  const audit = await t.request('GET', '/audit?action=settings.updated', { session: 'test' });
  expect(audit.body.data).toMatchObject([{ target: { type: 'business_hours' } }]);
});

it('refuses bad hours naming the field, and callers without the right', async () => {
  t = await makeCore();
  const bad = await t.request('PUT', '/settings/business-hours', {
    session: 'test',
    body: { ...hours, days: { wed: [{ from: '13:00', to: '12:00' }] } },
  });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toMatchObject({ code: 'validation_error', param: 'days.wed.0.to' });
  const zone = await t.request('PUT', '/settings/business-hours', {
    session: 'test',
    body: { ...hours, timeZone: 'Europe/Nowhere' },
  });
  expect(zone.body.error).toMatchObject({ param: 'timeZone' });
  // A script reads them, never changes them; an agent does neither.
  const byKey = await t.request('PUT', '/settings/business-hours', {
    key: t.key('test'),
    body: hours,
  });
  expect(byKey.status).toBe(403);
  const agent = await t.member({ name: 'Sam', role: 'agent' });
  const asAgent = await t.request('GET', '/settings/business-hours', {
    cookie: agent.cookie,
    headers: { 'x-parley-environment': 'test' },
  });
  expect(asAgent.status).toBe(403);
});
