import { useEffect, useRef } from 'react';
import type { EventType } from '../../../../shared/schemas/events.ts';
import { RadioCards } from '../../components/radio-cards.tsx';
import { FieldError } from '../../components/field-error.tsx';
import { EVENT_GROUPS, eventWords, type EventGroup } from './webhook-words.ts';

/** The picker's id: its error is `webhook-events-error`. */
export const EVENTS_FIELD = 'webhook-events';

type Scope = 'all' | 'some';

interface EventPickerProps {
  /** Every event type, including ones a later Parley adds. */
  all: boolean;
  onAllChange: (all: boolean) => void;
  chosen: ReadonlySet<string>;
  onChosenChange: (chosen: Set<string>) => void;
  error: string | undefined;
}

/** Which events an endpoint gets: all of them, or the types ticked, in groups. */
export function EventPicker({ all, onAllChange, chosen, onChosenChange, error }: EventPickerProps) {
  return (
    <div className="field event-picker">
      <RadioCards<Scope>
        name="webhook-event-scope"
        legend="Events to send"
        choices={[
          {
            value: 'all',
            label: 'All events',
            help: 'Every event of this mode, including kinds a later Parley adds.',
          },
          {
            value: 'some',
            label: 'Only the events I choose',
            help: 'Pick them below, a group at a time or one by one.',
          },
        ]}
        value={all ? 'all' : 'some'}
        onChange={(scope) => onAllChange(scope === 'all')}
        testId={(scope) => `webhook-events-${scope}`}
      />
      {all ? null : (
        <div className="event-groups" id={EVENTS_FIELD} data-testid={EVENTS_FIELD}>
          {EVENT_GROUPS.map((group) => (
            <GroupBox
              key={group.key}
              group={group}
              chosen={chosen}
              onChange={onChosenChange}
              invalid={Boolean(error)}
            />
          ))}
        </div>
      )}
      <FieldError fieldId={EVENTS_FIELD} message={error} />
    </div>
  );
}

function GroupBox({
  group,
  chosen,
  onChange,
  invalid,
}: {
  group: EventGroup;
  chosen: ReadonlySet<string>;
  onChange: (chosen: Set<string>) => void;
  invalid: boolean;
}) {
  const ticked = group.types.filter((type) => chosen.has(type)).length;
  const every = ticked === group.types.length;
  const groupBox = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (groupBox.current) groupBox.current.indeterminate = ticked > 0 && !every;
  }, [ticked, every]);

  const toggle = (types: readonly EventType[], on: boolean) => {
    const next = new Set(chosen);
    for (const type of types) {
      if (on) next.add(type);
      else next.delete(type);
    }
    onChange(next);
  };

  const groupId = `webhook-group-${group.key}`;
  return (
    <fieldset className="event-group" aria-invalid={invalid || undefined}>
      <legend>
        <label className="event-group-title" htmlFor={groupId}>
          <input
            id={groupId}
            ref={groupBox}
            type="checkbox"
            checked={every}
            onChange={(event) => toggle(group.types, event.target.checked)}
            data-testid={groupId}
          />
          {group.label}
          <span className="muted">
            {' '}
            ({ticked} of {group.types.length})
          </span>
        </label>
      </legend>
      <ul className="event-types">
        {group.types.map((type) => {
          const words = eventWords(type);
          const id = `webhook-event-${type.replace(/\./g, '-')}`;
          return (
            <li key={type}>
              <input
                id={id}
                type="checkbox"
                checked={chosen.has(type)}
                onChange={(event) => toggle([type], event.target.checked)}
                data-testid={id}
              />
              <label htmlFor={id}>
                <code>{type}</code>
                {words ? <span className="hint">{words}</span> : null}
              </label>
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
