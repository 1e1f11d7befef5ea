import { z } from 'zod';
import { MAX_HOLIDAYS, MAX_RANGES_PER_DAY } from '../business-hours.ts';
import { isoDate } from './common.ts';

const range = z.object({
  from: z.string().max(5).describe('HH:MM, local time'),
  to: z.string().max(5).describe('HH:MM (24:00: the end of the day), after `from`'),
});
const day = z.array(range).max(MAX_RANGES_PER_DAY);

/** A workspace's business hours (design.md §7), as `PUT /settings/business-hours` takes them. */
export const businessHoursBody = z
  .object({
    timeZone: z.string().min(1).max(100).describe('an IANA time zone, like Europe/Berlin'),
    days: z
      .object({
        mon: day.optional(),
        tue: day.optional(),
        wed: day.optional(),
        thu: day.optional(),
        fri: day.optional(),
        sat: day.optional(),
        sun: day.optional(),
      })
      .strict()
      .describe('opening ranges per weekday; a day missing or empty is closed'),
    holidays: z
      .array(z.string().max(10))
      .max(MAX_HOLIDAYS)
      .describe('local dates (YYYY-MM-DD) closed all day'),
  })
  .strict();
export type BusinessHoursBody = z.infer<typeof businessHoursBody>;

export const businessHoursSchema = businessHoursBody.extend({
  openNow: z.boolean().describe('whether the business is open at this moment'),
  nextChange: isoDate
    .nullable()
    .describe('when it next opens or closes; null: no change within 400 days'),
});
export type BusinessHoursState = z.infer<typeof businessHoursSchema>;
