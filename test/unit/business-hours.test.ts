/**
 * Business hours (design.md §7): the shared evaluator reads local time in the hours' own zone
 * (Intl), so a range keeps its wall-clock hours across daylight-saving changes; holidays close
 * a whole local day; the next change is found across weekends, holidays and clock jumps.
 */
import { describe, expect, it } from 'vitest';
import type { BusinessHours } from '../../shared/business-hours.ts';
import {
  businessHoursProblems,
  instantOf,
  isOpenAt,
  nextChange,
} from '../../shared/business-hours.ts';

const at = (iso: string) => Date.parse(iso);
const nine5 = [{ from: '09:00', to: '17:00' }];
const weekdays = (timeZone: string, holidays: string[] = []): BusinessHours => ({
  timeZone,
  days: { mon: nine5, tue: nine5, wed: nine5, thu: nine5, fri: nine5, sat: [], sun: [] },
  holidays,
});

describe('isOpenAt', () => {
  it('keeps wall-clock hours across the spring and autumn changes (Berlin)', () => {
    const h = weekdays('Europe/Berlin');
    // Friday 27 March 2026, CET (UTC+1): 09:00 local is 08:00Z.
    expect(isOpenAt(h, at('2026-03-27T07:59:00Z'))).toBe(false);
    expect(isOpenAt(h, at('2026-03-27T08:00:00Z'))).toBe(true);
    // Monday 30 March, CEST (UTC+2): 09:00 local is 07:00Z; 16:59 local is 14:59Z.
    expect(isOpenAt(h, at('2026-03-30T06:59:00Z'))).toBe(false);
    expect(isOpenAt(h, at('2026-03-30T07:00:00Z'))).toBe(true);
    expect(isOpenAt(h, at('2026-03-30T14:59:00Z'))).toBe(true);
    expect(isOpenAt(h, at('2026-03-30T15:00:00Z'))).toBe(false);
    // Monday 26 October, CET again.
    expect(isOpenAt(h, at('2026-10-26T07:30:00Z'))).toBe(false);
    expect(isOpenAt(h, at('2026-10-26T08:30:00Z'))).toBe(true);
  });

  it('closes a holiday by its local date, weekends and ranges by the local weekday', () => {
    const h = weekdays('Pacific/Auckland', ['2026-12-25']);
    // 2026-12-24T21:00Z is Friday 25 December 10:00 in Auckland (UTC+13): a holiday.
    expect(isOpenAt(h, at('2026-12-24T21:00:00Z'))).toBe(false);
    // Thursday 24 December 10:00 local is open.
    expect(isOpenAt(h, at('2026-12-23T21:00:00Z'))).toBe(true);
    // Saturday local (Friday in UTC) is closed.
    expect(isOpenAt(h, at('2026-12-25T21:00:00Z'))).toBe(false);
  });

  it('takes split days and 24:00', () => {
    const h: BusinessHours = {
      timeZone: 'UTC',
      days: {
        wed: [
          { from: '09:00', to: '12:30' },
          { from: '13:30', to: '24:00' },
        ],
      },
      holidays: [],
    };
    expect(isOpenAt(h, at('2026-01-07T12:45:00Z'))).toBe(false);
    expect(isOpenAt(h, at('2026-01-07T23:59:59Z'))).toBe(true);
    expect(isOpenAt(h, at('2026-01-08T00:00:00Z'))).toBe(false);
  });
});

describe('nextChange', () => {
  it('crosses a weekend with a clock change (New York) and a holiday', () => {
    const h = weekdays('America/New_York', ['2026-03-09']);
    // Friday 6 March 17:30 EST: closed; Monday is a holiday, so Tuesday 09:00 EDT (13:00Z).
    expect(new Date(nextChange(h, at('2026-03-06T22:30:00Z'))!).toISOString()).toBe(
      '2026-03-10T13:00:00.000Z',
    );
    // Open on Tuesday: closes at 17:00 EDT.
    expect(new Date(nextChange(h, at('2026-03-10T14:00:00Z'))!).toISOString()).toBe(
      '2026-03-10T21:00:00.000Z',
    );
  });

  it('finds an opening the clock jumps over, and says null when nothing changes', () => {
    // Opens 02:30 local on Sunday 8 March 2026 in New York: that time does not exist (02:00 →
    // 03:00), so it opens at the jump, 07:00Z.
    const h: BusinessHours = {
      timeZone: 'America/New_York',
      days: { sun: [{ from: '02:30', to: '05:00' }] },
      holidays: [],
    };
    expect(new Date(nextChange(h, at('2026-03-08T05:00:00Z'))!).toISOString()).toBe(
      '2026-03-08T07:00:00.000Z',
    );
    expect(
      nextChange({ timeZone: 'UTC', days: {}, holidays: [] }, at('2026-01-01T00:00:00Z')),
    ).toBe(null);
    const always: BusinessHours = {
      timeZone: 'UTC',
      days: Object.fromEntries(
        ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [
          d,
          [{ from: '00:00', to: '24:00' }],
        ]),
      ),
      holidays: [],
    };
    expect(nextChange(always, at('2026-01-01T00:00:00Z'))).toBe(null);
  });

  it('reads an hour that occurs twice as its first occurrence', () => {
    // 1 November 2026, 01:30 in New York happens at 05:30Z (EDT) and again at 06:30Z (EST).
    expect(
      new Date(instantOf('America/New_York', { year: 2026, month: 11, day: 1 }, 90)).toISOString(),
    ).toBe('2026-11-01T05:30:00.000Z');
  });
});

describe('businessHoursProblems', () => {
  it('names each bad field in plain words', () => {
    const problems = businessHoursProblems({
      timeZone: 'Mars/Olympus',
      days: {
        mon: [{ from: '9am', to: '17:00' }],
        tue: [{ from: '18:00', to: '09:00' }],
      },
      holidays: ['2026-02-30', '2026-12-25'],
    });
    expect(problems.map((p) => p.param)).toEqual([
      'timeZone',
      'days.mon.0.from',
      'days.tue.0.to',
      'holidays.0',
    ]);
    expect(problems[0]!.message).toMatch(/time zone/);
    expect(businessHoursProblems(weekdays('Europe/Berlin', ['2026-12-25']))).toEqual([]);
  });
});
