import {
  businessHoursProblems,
  MAX_HOLIDAYS,
  MAX_RANGES_PER_DAY,
  WEEKDAYS,
  type OpeningRange,
  type Weekday,
} from '../../../../shared/business-hours.ts';
import type { BusinessHoursState } from '../../api/client.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useSettingsForm } from '../../components/use-settings-form.ts';
import { useWorkspaceSettings } from '../../stores/workspace-settings.ts';
import { Fragment, useState } from 'react';
import { SaveFoot } from './workspace-fields.tsx';

const DAY_NAMES: Readonly<Record<Weekday, string>> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

/** A range's two ends, as their inputs say them. */
const ENDS = [
  { end: 'from', words: 'opens at', example: '09:00' },
  { end: 'to', words: 'closes at', example: '17:00' },
] as const;

interface HoursDraft {
  timeZone: string;
  days: Record<Weekday, OpeningRange[]>;
  holidays: string[];
}

const draftOf = (h: BusinessHoursState): HoursDraft => ({
  timeZone: h.timeZone,
  days: Object.fromEntries(WEEKDAYS.map((d) => [d, h.days[d] ?? []])) as HoursDraft['days'],
  holidays: h.holidays,
});

/** Where a problem's field is on the card (`days.wed.1.to` → its input). */
function fieldId(param: string): string {
  if (param === 'timeZone') return 'ws-hours-timezone';
  if (param.startsWith('holidays')) return 'ws-hours-holiday';
  const [, day, index, end] = param.split('.');
  return index === undefined ? `ws-hours-${day}-add` : `ws-hours-${day}-${index}-${end ?? 'from'}`;
}

/** The problems of a draft by field, first in the order the card shows them. */
const check = (d: HoursDraft): Record<string, string> =>
  Object.fromEntries(businessHoursProblems(d).map((p) => [p.param, p.message]));

/** Every field a problem can name, in the order the card shows them. */
const ORDER: readonly string[] = [
  'timeZone',
  ...WEEKDAYS.flatMap((day) => [
    `days.${day}`,
    ...Array.from({ length: MAX_RANGES_PER_DAY }, (_, i) => [
      `days.${day}.${i}.from`,
      `days.${day}.${i}.to`,
    ]).flat(),
  ]),
  'holidays',
  ...Array.from({ length: MAX_HOLIDAYS }, (_, i) => `holidays.${i}`),
];

/** Every zone this browser knows, the business's own first if it is an odd one. */
function timeZones(current: string): string[] {
  const known = Intl.supportedValuesOf('timeZone');
  return known.includes(current) ? known : [current, ...known];
}

/** "closes Friday 17:00" in the business's own zone. */
function changeWords(state: BusinessHoursState): string {
  if (!state.nextChange) return state.openNow ? 'open around the clock' : 'no opening hours set';
  const when = new Intl.DateTimeFormat('en-GB', {
    timeZone: state.timeZone,
    weekday: 'long',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(state.nextChange));
  return `${state.openNow ? 'closes' : 'opens'} ${when}`;
}

function HoursForm({ state }: { state: BusinessHoursState }) {
  const save = useWorkspaceSettings((s) => s.saveHours);
  const [holiday, setHoliday] = useState('');
  const form = useSettingsForm({
    settings: state,
    draftOf,
    check,
    order: ORDER,
    paramOf: (param) => param ?? null,
    fieldId,
    send: (d) => save({ timeZone: d.timeZone, days: d.days, holidays: d.holidays }),
    onSaved: () => undefined,
    savedMessage: 'Business hours saved.',
  });
  const { draft, errors } = form;
  const setDay = (day: Weekday, ranges: OpeningRange[]) =>
    form.change({ days: { ...draft.days, [day]: ranges } }, [`days.${day}`]);
  const input = (param: string, label?: string) => ({
    id: fieldId(param),
    ...(label ? { 'aria-label': label } : {}),
    'data-testid': fieldId(param),
    ...errorAria(fieldId(param), errors[param]),
  });

  return (
    <form className="form-stack" onSubmit={form.submit} noValidate>
      <p className="hint" data-testid="ws-hours-now">
        <strong>{state.openNow ? 'Open now' : 'Closed now'}</strong> — {changeWords(state)} (
        {state.timeZone}). Workflows ask “outside business hours?” and “is it open now?” of these
        hours.
      </p>
      <div className="field">
        <label htmlFor="ws-hours-timezone">Time zone</label>
        <select
          className="select ws-hours-zone"
          value={draft.timeZone}
          onChange={(e) => form.change({ timeZone: e.target.value }, ['timeZone'])}
          {...input('timeZone')}
        >
          {timeZones(draft.timeZone).map((zone) => (
            <option key={zone} value={zone}>
              {zone}
            </option>
          ))}
        </select>
        <FieldError fieldId="ws-hours-timezone" message={errors.timeZone} />
      </div>
      <fieldset className="ws-hours-days">
        <legend className="field-label">Opening hours (local time; 24:00 ends the day)</legend>
        {WEEKDAYS.map((day) => (
          <div className="ws-hours-day" key={day} data-testid={`ws-hours-${day}`}>
            <span className="ws-hours-day-name">{DAY_NAMES[day]}</span>
            <div className="ws-hours-ranges">
              {draft.days[day].length === 0 ? <span className="muted">Closed</span> : null}
              {draft.days[day].map((r, i) => {
                const at = `days.${day}.${i}`;
                const edit = (patch: Partial<OpeningRange>) =>
                  setDay(
                    day,
                    draft.days[day].map((x, j) => (j === i ? { ...x, ...patch } : x)),
                  );
                return (
                  <div className="ws-hours-range" key={i}>
                    {ENDS.map(({ end, words, example }) => (
                      <Fragment key={end}>
                        {end === 'to' ? <span aria-hidden="true">–</span> : null}
                        <input
                          className="input ws-hours-time"
                          inputMode="numeric"
                          placeholder={example}
                          value={r[end]}
                          onChange={(e) => edit({ [end]: e.target.value.trim() })}
                          {...input(`${at}.${end}`, `${DAY_NAMES[day]} ${words}`)}
                        />
                      </Fragment>
                    ))}
                    <button
                      type="button"
                      className="button button-small"
                      aria-label={`Remove ${DAY_NAMES[day]} ${r.from}–${r.to}`}
                      onClick={() =>
                        setDay(
                          day,
                          draft.days[day].filter((_, j) => j !== i),
                        )
                      }
                      data-testid={`ws-hours-${day}-${i}-remove`}
                    >
                      Remove
                    </button>
                    <FieldError fieldId={fieldId(`${at}.from`)} message={errors[`${at}.from`]} />
                    <FieldError fieldId={fieldId(`${at}.to`)} message={errors[`${at}.to`]} />
                  </div>
                );
              })}
              <button
                type="button"
                className="link-button"
                id={fieldId(`days.${day}`)}
                onClick={() => setDay(day, [...draft.days[day], { from: '09:00', to: '17:00' }])}
                data-testid={fieldId(`days.${day}`)}
              >
                Add hours<span className="visually-hidden"> on {DAY_NAMES[day]}</span>
              </button>
              <FieldError fieldId={fieldId(`days.${day}`)} message={errors[`days.${day}`]} />
            </div>
          </div>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor="ws-hours-holiday">Holidays (closed all day)</label>
        <div className="ws-hours-range">
          <input
            type="date"
            className="input ws-hours-date"
            value={holiday}
            onChange={(e) => setHoliday(e.target.value)}
            {...input('holidays')}
          />
          <button
            type="button"
            className="button button-small"
            disabled={!holiday || draft.holidays.includes(holiday)}
            onClick={() => {
              form.change({ holidays: [...draft.holidays, holiday].sort() }, ['holidays']);
              setHoliday('');
            }}
            data-testid="ws-hours-holiday-add"
          >
            Add holiday
          </button>
        </div>
        <FieldError fieldId="ws-hours-holiday" message={errors.holidays} />
        {draft.holidays.length ? (
          <ul className="ws-hours-holidays" aria-label="Holidays">
            {draft.holidays.map((h) => (
              <li key={h} data-testid="ws-hours-holiday-item">
                {h}
                <button
                  type="button"
                  className="link-button"
                  aria-label={`Remove holiday ${h}`}
                  onClick={() =>
                    form.change({ holidays: draft.holidays.filter((x) => x !== h) }, ['holidays'])
                  }
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <SaveFoot form={form} id="ws-hours" label="Save business hours" />
    </form>
  );
}

/** Business hours (design.md §7): the time zone, opening ranges per weekday, and holidays. */
export function BusinessHoursSection() {
  const { data, status, error } = useWorkspaceSettings((s) => s.hours);
  const load = useWorkspaceSettings((s) => s.loadHours);
  useLoadWhenIdle(status, load);
  return (
    <section className="card" aria-labelledby="ws-hours-title" data-testid="ws-hours">
      <h2 className="card-title" id="ws-hours-title">
        Business hours
      </h2>
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
      {data ? (
        <HoursForm state={data} />
      ) : status !== 'error' ? (
        <p className="hint" aria-busy="true">
          Loading…
        </p>
      ) : null}
    </section>
  );
}
