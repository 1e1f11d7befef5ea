/**
 * The trigger's form, in the panel: what starts the workflow — a customer's message (keywords as
 * chips, how they match, first message only, outside business hours), an event from your shop,
 * a hand, a conversation's status, a pick from a list — and each type's own fields.
 */
import { useEffect, useState } from 'react';
import { matchesKeywords } from '../../../../../shared/workflow-triggers.ts';
import { CheckField } from '../../../components/check-field.tsx';
import { RadioCards, type RadioChoice } from '../../../components/radio-cards.tsx';
import { useInteractiveLists } from '../../../stores/interactive-lists.ts';
import { controlProps, Field, LabelsInput } from '../step-fields.tsx';
import { withTyped } from '../workflow-definition.ts';
import {
  fieldId,
  TRIGGER_CHOICES,
  type KeywordMatch,
  type TriggerDraft,
  type TriggerType,
} from '../workflow-draft.ts';

const TRIGGERS: Record<TriggerType, { label: string; help: string }> = {
  message_received: {
    label: 'A customer writes',
    help: 'Any message, or one with your keywords. Stays away from a conversation for 24 h after a person replies in it or takes it over.',
  },
  event: {
    label: 'An event from your shop',
    help: 'Your shop posts it: a cart abandoned, an order shipped.',
  },
  manual: { label: 'Only by hand', help: 'A test run, or POST /workflows/trigger.' },
  conversation_status: {
    label: 'A conversation is resolved or reopened',
    help: 'When someone changes its status.',
  },
  list_reply: {
    label: 'A customer picks from a list',
    help: 'A reply to one of your interactive lists.',
  },
};

const TRIGGER_CHOICE_CARDS: readonly RadioChoice<TriggerType>[] = TRIGGER_CHOICES.map((value) => ({
  value,
  ...TRIGGERS[value],
}));

const MATCHES: readonly RadioChoice<KeywordMatch>[] = [
  { value: 'any', label: 'Anywhere in the message', help: '“order” matches “reorder please”' },
  {
    value: 'whole_word',
    label: 'As a whole word',
    help: '“order” matches “my order?”, not “reorder”',
  },
  { value: 'exact', label: 'The whole message', help: '“order” matches only “order”' },
];

interface TriggerFieldsProps {
  trigger: TriggerDraft;
  /** A change; `param` names the field (`trigger.keywords`), for its problem and for undo. */
  onChange: (patch: Partial<TriggerDraft>, param: string) => void;
  error: (param: string) => string | undefined;
}

export function TriggerFields({ trigger, onChange, error }: TriggerFieldsProps) {
  const library = useInteractiveLists((s) => s.library);
  const ensureLibrary = useInteractiveLists((s) => s.ensureLibrary);
  useEffect(() => ensureLibrary(), [ensureLibrary]);
  const id = (field: string) => fieldId(`trigger.${field}`);
  const set = (field: string, patch: Partial<TriggerDraft>) => onChange(patch, `trigger.${field}`);

  return (
    <div className="wf-trigger-fields">
      <RadioCards
        name="wf-trigger-type"
        legend="Starts when"
        choices={TRIGGER_CHOICE_CARDS}
        value={trigger.type}
        onChange={(type) => set('type', { type })}
        testId={(type) => `wf-trigger-type-${type}`}
      />

      {trigger.type === 'message_received' ? (
        <>
          <Field
            id={id('keywords')}
            label={
              <>
                Keywords <span className="optional">(optional: none means any message)</span>
              </>
            }
            error={error('trigger.keywords')}
          >
            <LabelsInput
              id={id('keywords')}
              error={error('trigger.keywords')}
              labels={trigger.keywords}
              onChange={(keywords) => set('keywords', { keywords })}
              text={trigger.keywordText}
              onText={(keywordText) => set('keywords', { keywordText })}
              what="keyword"
              placeholder="e.g. order"
            />
          </Field>
          {trigger.keywords.length > 0 || trigger.keywordText.trim() ? (
            <RadioCards
              name="wf-trigger-match"
              legend="A keyword counts when it is"
              choices={MATCHES}
              value={trigger.match}
              onChange={(match) => set('match', { match })}
              testId={(match) => `wf-trigger-match-${match}`}
            />
          ) : null}
          <KeywordTry trigger={trigger} />
          <CheckField
            id="wf-trigger-first-message"
            label="Only a customer’s first message"
            help="Starts for someone who never wrote before, once."
            checked={trigger.firstMessageOnly}
            onChange={(firstMessageOnly) => set('firstMessageOnly', { firstMessageOnly })}
          />
          <CheckField
            id="wf-trigger-outside-hours"
            label="Only outside business hours"
            help="Your workspace’s business hours (time zone, days, holidays) say when you are open."
            checked={trigger.outsideHours}
            onChange={(outsideHours) => set('outsideHours', { outsideHours })}
          />
        </>
      ) : null}

      {trigger.type === 'event' ? (
        <Field
          id={id('event')}
          label="Event name"
          error={error('trigger.event')}
          hint={
            <>
              Your shop sends it with <code>POST /api/events {'{event, phone, payload}'}</code>; its
              payload is <code>{'{{payload.X}}'}</code> in the steps.
            </>
          }
        >
          <input
            className={`input mono${error('trigger.event') ? ' invalid' : ''}`}
            value={trigger.event}
            placeholder="cart.abandoned"
            spellCheck={false}
            onChange={(e) => set('event', { event: e.target.value })}
            {...controlProps(id('event'), error('trigger.event'))}
          />
        </Field>
      ) : null}

      {trigger.type === 'conversation_status' ? (
        <Field id={id('to')} label="When its status becomes" error={error('trigger.to')}>
          <select
            className="select"
            value={trigger.to}
            onChange={(e) => set('to', { to: e.target.value as TriggerDraft['to'] })}
            {...controlProps(id('to'), error('trigger.to'))}
          >
            <option value="resolved">Resolved</option>
            <option value="open">Open (reopened)</option>
          </select>
        </Field>
      ) : null}

      {trigger.type === 'list_reply' ? (
        <Field id={id('listId')} label="A pick from" error={error('trigger.listId')}>
          <select
            className={`select${error('trigger.listId') ? ' invalid' : ''}`}
            value={trigger.listId}
            onChange={(e) => set('listId', { listId: e.target.value })}
            {...controlProps(id('listId'), error('trigger.listId'))}
          >
            <option value="">Choose a saved list…</option>
            {library.map((list) => (
              <option key={list.id} value={list.id}>
                {list.name}
              </option>
            ))}
            {trigger.listId && !library.some((l) => l.id === trigger.listId) ? (
              <option value={trigger.listId}>A deleted list ({trigger.listId})</option>
            ) : null}
          </select>
        </Field>
      ) : null}
    </div>
  );
}

/** "Try a message": whether the keywords, as they match, would start a run for it. */
function KeywordTry({ trigger }: { trigger: TriggerDraft }) {
  const [text, setText] = useState('');
  const keywords = withTyped(trigger.keywords, trigger.keywordText);
  if (keywords.length === 0) return null;
  const starts = matchesKeywords(text, keywords, trigger.match);
  return (
    <Field
      id="wf-trigger-try"
      label={
        <>
          Try a message <span className="optional">(not sent)</span>
        </>
      }
      error={undefined}
    >
      <input
        className="input"
        value={text}
        placeholder="Where is my order?"
        onChange={(e) => setText(e.target.value)}
        aria-describedby="wf-trigger-try-result"
        id="wf-trigger-try"
        data-testid="wf-trigger-try"
      />
      <p
        className="hint"
        id="wf-trigger-try-result"
        aria-live="polite"
        data-testid="wf-trigger-try-result"
      >
        {text.trim() === ''
          ? 'Type what a customer might write.'
          : starts
            ? 'This message matches the keywords.'
            : 'This message does not match the keywords.'}
      </p>
    </Field>
  );
}
