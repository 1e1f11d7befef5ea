/**
 * Business hours (design.md §7): a workspace setting — time zone, opening ranges per weekday,
 * holidays — read by the `outsideHours` trigger condition and the `is_open_now` branch
 * condition on every run that asks, so it is kept in memory (read once, again after a change
 * by this process or another). The evaluation is shared/business-hours.ts's.
 */
import type { Database as Db } from 'better-sqlite3';
import type { BusinessHours } from '../../../../shared/business-hours.ts';
import {
  businessHoursProblems,
  DEFAULT_BUSINESS_HOURS,
  isOpenAt,
  nextChange,
  WEEKDAYS,
} from '../../../../shared/business-hours.ts';
import { ApiError } from '../../../../shared/errors.ts';
import type { BusinessHoursState } from '../../../../shared/schemas/business-hours.ts';
import { readCache } from '../../db/read-cache.ts';
import type { Clock } from '../../runtime.ts';
import { isoOrNull } from '../../runtime.ts';
import type { AuditActor, AuditService } from '../audit/service.ts';
import { businessHoursRepo } from './repo.ts';

export function businessHoursService(d: {
  db: Db;
  clock: Clock;
  audit: Pick<AuditService, 'append'>;
}) {
  const repo = businessHoursRepo(d.db);
  const cache = readCache<string, BusinessHours>(d.db);

  const hours = (workspaceId: string): BusinessHours =>
    cache.get(workspaceId, () => {
      const json = repo.get(workspaceId);
      return json ? (JSON.parse(json) as BusinessHours) : DEFAULT_BUSINESS_HOURS;
    });

  const state = (workspaceId: string): BusinessHoursState => {
    const h = hours(workspaceId);
    const now = d.clock.now();
    return {
      ...h,
      openNow: isOpenAt(h, now),
      nextChange: isoOrNull(nextChange(h, now)),
    } as BusinessHoursState;
  };

  return {
    /** The workspace's hours (the default until it sets its own). */
    hours,
    /** Whether the workspace is open at `at` (ms). */
    isOpen: (workspaceId: string, at: number): boolean => isOpenAt(hours(workspaceId), at),
    /** `GET /settings/business-hours`: the hours, open now or not, and the next change. */
    state,
    /** `PUT /settings/business-hours`: checked in plain words, saved, in the audit trail. */
    set(
      workspaceId: string,
      body: BusinessHours,
      who: { actor: AuditActor; address: string | null },
    ): BusinessHoursState {
      const problem = businessHoursProblems(body)[0];
      if (problem)
        throw new ApiError('validation_error', problem.message, { param: problem.param });
      // Stored in weekday order, every day named (an empty one is closed).
      const saved: BusinessHours = {
        timeZone: body.timeZone,
        days: Object.fromEntries(WEEKDAYS.map((day) => [day, body.days[day] ?? []])),
        holidays: [...new Set(body.holidays)].sort(),
      };
      d.db.transaction(() => {
        repo.set(workspaceId, JSON.stringify(saved), d.clock.now());
        d.audit.append({
          workspaceId,
          actor: who.actor,
          action: 'settings.updated',
          target: { type: 'business_hours', id: workspaceId },
          address: who.address,
          details: { fields: ['days', 'holidays', 'timeZone'] },
        });
        cache.changed();
      })();
      return state(workspaceId);
    },
  };
}
export type BusinessHoursService = ReturnType<typeof businessHoursService>;
