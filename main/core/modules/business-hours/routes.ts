import {
  businessHoursBody,
  businessHoursSchema,
} from '../../../../shared/schemas/business-hours.ts';
import type { RegisterRoutes } from '../../http/types.ts';
import { actorOf } from '../members/routes.ts';

const tags = ['Workspace'];

const example = {
  timeZone: 'Europe/Berlin',
  days: {
    mon: [{ from: '09:00', to: '17:00' }],
    tue: [{ from: '09:00', to: '17:00' }],
    wed: [
      { from: '09:00', to: '12:30' },
      { from: '13:30', to: '17:00' },
    ],
    thu: [{ from: '09:00', to: '17:00' }],
    fri: [{ from: '09:00', to: '15:00' }],
    sat: [],
    sun: [],
  },
  holidays: ['2026-12-25', '2026-12-26'],
};

/** The workspace's business hours (design.md §7): `outsideHours` triggers and `is_open_now` branches read them. */
export const businessHoursRoutes: RegisterRoutes = (app, { businessHours }) => {
  app.get(
    '/settings/business-hours',
    {
      config: {
        right: 'workspace.read',
        docs: {
          responseExample: { ...example, openNow: true, nextChange: '2026-01-05T16:00:00.000Z' },
        },
      },
      schema: {
        operationId: 'getBusinessHours',
        tags,
        summary: 'Business hours, whether the business is open now, and when that next changes',
        description:
          'Until the workspace sets its own: Monday to Friday, 09:00–17:00 UTC. Local times are read in `timeZone` (daylight saving included); a holiday is closed all day.',
        response: { 200: businessHoursSchema },
      },
    },
    async (req) => businessHours.state(req.principal.workspaceId),
  );

  app.put(
    '/settings/business-hours',
    {
      config: {
        right: 'workspace.manage',
        docs: {
          requestExample: example,
          responseExample: { ...example, openNow: true, nextChange: '2026-01-05T16:00:00.000Z' },
        },
      },
      schema: {
        operationId: 'setBusinessHours',
        tags,
        summary: 'Set the business hours (time zone, opening ranges per weekday, holidays)',
        description:
          'A range is `from` ≤ local time < `to` (`HH:MM`; `to` may be `24:00`); a range past midnight is two ranges. A day left out or empty is closed. A problem answers 400 `validation_error` naming the field (`days.wed.1.to`) in plain words.',
        body: businessHoursBody,
        response: { 200: businessHoursSchema },
      },
    },
    async (req) =>
      businessHours.set(req.principal.workspaceId, req.body, {
        actor: actorOf(req.principal),
        address: req.ip,
      }),
  );
};
