import type { ReactNode } from 'react';
import { LABEL_SEPARATOR_HINT, splitLabels } from '../../../../shared/labels.ts';
import { RECOMMENDED_MIN_AUDIENCE } from '../../../../shared/campaign-rules.ts';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { plural } from '../../components/format.ts';
import { hrefFor } from '../../stores/route.ts';
import { fieldId, type AudienceDraft, type AudienceKind } from './campaign-draft.ts';
import { describeFilter, formatCount } from './campaign-format.ts';
import type { AudienceCheck, Check } from './use-audience.ts';
import type { Groups } from './use-groups.ts';

const KINDS: { value: AudienceKind; label: string; help: string }[] = [
  { value: 'group', label: 'A group', help: 'Everyone in one contact group.' },
  { value: 'labels', label: 'Contacts with a label', help: 'Anyone with at least one of them.' },
];

interface AudienceFieldProps {
  draft: AudienceDraft;
  onChange: (patch: Partial<AudienceDraft>) => void;
  groups: Groups;
  error: string | undefined;
  /** How many the audience reaches now, as the kind of campaign counts them (`AudienceCount`). */
  count: ReactNode;
}

/** Who receives the campaign, and how many they are now (asked of the core as it changes). */
export function AudienceField({ draft, onChange, groups, error, count }: AudienceFieldProps) {
  const id = fieldId('target');
  const keptFilter = draft.keptTarget?.filter;
  const kinds =
    keptFilter && (keptFilter.phones !== undefined || keptFilter.attributes !== undefined)
      ? [
          ...KINDS,
          {
            value: 'kept' as const,
            label: 'As set through the API',
            help: 'Phones or attributes.',
          },
        ]
      : KINDS;
  const showKept = draft.audience === 'kept' && draft.keptTarget !== null;
  const typedLabels = splitLabels(draft.labels);

  return (
    <>
      <fieldset className="radio-list campaign-audience-kinds">
        <legend className="visually-hidden">Send to</legend>
        {kinds.map((kind) => (
          <label
            key={kind.value}
            className={`radio-card${draft.audience === kind.value ? ' selected' : ''}`}
          >
            <input
              type="radio"
              name="campaign-audience"
              value={kind.value}
              checked={draft.audience === kind.value}
              onChange={() => onChange({ audience: kind.value })}
              data-testid={`campaign-audience-${kind.value}`}
            />
            <span>
              <span className="radio-title">{kind.label}</span>
              <span className="hint">{kind.help}</span>
            </span>
          </label>
        ))}
      </fieldset>

      {showKept && draft.keptTarget ? (
        <p className="banner banner-info" data-testid="campaign-kept-target">
          <span className="banner-text">
            This draft was given its audience through the API (
            {describeFilter(draft.keptTarget.filter)}). It is kept as it is unless you choose a
            group or labels instead.
          </span>
        </p>
      ) : null}

      {draft.audience === 'group' ? (
        <div className="field">
          <label htmlFor={id}>Group</label>
          <select
            id={id}
            className={`select${error ? ' invalid' : ''}`}
            value={draft.groupId}
            {...errorAria(id, error, `${id}-count`)}
            onChange={(event) => onChange({ groupId: event.target.value })}
            data-testid="campaign-group"
          >
            <option value="">
              {groups.status === 'loading' ? 'Loading groups…' : 'Choose a group…'}
            </option>
            {groups.groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.name} ({plural(g.memberCount, 'contact')})
              </option>
            ))}
          </select>
          {groups.status === 'error' ? (
            <p className="field-error">Groups could not be loaded: {groups.error}</p>
          ) : groups.status === 'ready' && groups.groups.length === 0 ? (
            <p className="hint">
              No groups yet: make one while importing contacts on the{' '}
              <a href={hrefFor('contacts')}>Contacts</a> screen, or send to a label instead.
            </p>
          ) : null}
        </div>
      ) : null}

      {draft.audience === 'labels' ? (
        <div className="field">
          <label htmlFor={id}>Labels</label>
          <input
            id={id}
            className={`input${error ? ' invalid' : ''}`}
            value={draft.labels}
            placeholder="vip, newsletter"
            autoComplete="off"
            {...errorAria(id, error, `${id}-hint ${id}-count`)}
            onChange={(event) => onChange({ labels: event.target.value })}
            data-testid="campaign-labels"
          />
          <p className="hint" id={`${id}-hint`}>
            Contacts with any of these labels. {LABEL_SEPARATOR_HINT}
          </p>
          {typedLabels.length > 0 ? (
            <span className="chips chips-wrap" aria-hidden="true">
              {typedLabels.map((label) => (
                <span key={label} className="chip">
                  {label}
                </span>
              ))}
            </span>
          ) : null}
        </div>
      ) : null}

      <FieldError fieldId={id} message={error} />

      <div className="campaign-audience-count" aria-live="polite" id={`${id}-count`}>
        {count}
      </div>
    </>
  );
}

/** The line that says how many an audience reaches (`describe`), or why that is not known yet. */
export function AudienceTotal<R extends { total: number }>({
  check,
  describe,
  testId,
}: {
  check: Check<R>;
  describe: (result: R) => string;
  testId: string;
}) {
  const { state, result } = check;
  let text: string;
  if (state === 'idle') text = 'Choose who receives it to see how many they are.';
  else if (!result) text = state === 'error' ? 'The audience could not be counted.' : 'Counting…';
  else text = describe(result);
  return (
    <p
      className={`campaign-count${result && result.total === 0 ? ' campaign-count-none' : ''}`}
      data-testid={testId}
      data-total={result?.total ?? ''}
      aria-busy={state === 'checking' ? true : undefined}
    >
      {text}
    </p>
  );
}

/**
 * Exactly the placeholders some recipients have no value for, and for how many of them (the
 * core's audience check, shared/template-strings.ts): never the ones every recipient has.
 */
export function MissingPlaceholders({
  missing,
  consequence,
  testId,
}: {
  missing: readonly { placeholder: string; recipients: number }[];
  /** What happens to those recipients, as a sentence. */
  consequence: string;
  testId: string;
}) {
  if (missing.length === 0) return null;
  return (
    <div className="banner banner-warning" data-testid={testId}>
      <span className="banner-text">
        Missing values:{' '}
        {missing.map((m, i) => (
          <span key={m.placeholder} data-testid={`${testId}-item`}>
            {i > 0 ? '; ' : ''}
            <code>{m.placeholder}</code> for {plural(m.recipients, 'recipient')}
          </span>
        ))}
        . {consequence} Give it a fallback, as in{' '}
        <code>{'{{contact.attributes.code | "WELCOME"}}'}</code>, or fill the field.
      </span>
    </div>
  );
}

/** How many a messaging campaign's audience reaches (one per phone number), and who would fail. */
export function AudienceCount({ check }: { check: AudienceCheck }) {
  const { result } = check;
  const missing = result?.missingVariables ?? 0;
  return (
    <>
      <AudienceTotal
        check={check}
        describe={({ total }) =>
          total === 0
            ? 'No contact matches: a campaign needs at least one recipient.'
            : `${plural(total, 'recipient')} (one per phone number).`
        }
        testId="campaign-audience-count"
      />
      {result && missing > 0 ? (
        <MissingPlaceholders
          missing={result.missingPlaceholders}
          consequence={`${formatCount(missing)} would fail and are not sent to (“Missing contact field”).`}
          testId="campaign-missing-warning"
        />
      ) : null}
      {result && result.total > 0 && result.total < RECOMMENDED_MIN_AUDIENCE ? (
        <p className="hint">
          Campaigns are made for larger audiences; this one still sends. For a few people, the inbox
          may be quicker.
        </p>
      ) : null}
    </>
  );
}
