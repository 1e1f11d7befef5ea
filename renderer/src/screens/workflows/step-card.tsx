import { useEffect, type ReactNode } from 'react';
import { ItemTools } from '../../components/item-tools.tsx';
import { TemplateSelect, VariableInputs } from '../../components/template-picker.tsx';
import { useAgents } from '../../stores/agents.ts';
import { useApprovedTemplates } from '../../stores/approved-templates.ts';
import { useInteractiveLists } from '../../stores/interactive-lists.ts';
import { STEP_FIELDS } from '../../../../shared/workflow-rules.ts';
import {
  controlProps,
  DurationInput,
  Field,
  LabelsInput,
  StepTargetSelect,
  TEMPLATE_STRING_HINT,
} from './step-fields.tsx';
import {
  BRANCH_OPS,
  fieldId,
  OP_LABELS,
  STEP_HINTS,
  STEP_LABELS,
  type BranchOp,
  type StepDraft,
  type WorkflowProblem,
} from './workflow-draft.ts';

type Condition = NonNullable<StepDraft['conditions']>[number];

interface StepCardProps {
  steps: readonly StepDraft[];
  index: number;
  /** The problems to show on this step (the rules' and the core's), by param. */
  problems: readonly WorkflowProblem[];
  /** A field changed: `param` names it (its error from the core is dropped). */
  onChange: (patch: Partial<StepDraft>, param: string) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  /** The user has been in this step: blank fields may now say so. */
  onTouch: () => void;
}

const CONVERSATION_STATUSES = ['open', 'pending', 'snoozed', 'resolved'] as const;

/** One step of the flow: its kind, its id, the form of its type, and its problems on it. */
export function StepCard({
  steps,
  index,
  problems,
  onChange,
  onMove,
  onRemove,
  onTouch,
}: StepCardProps) {
  const step = steps[index]!;
  const at = `steps.${index}`;
  const err = (param: string): string | undefined =>
    problems.find((p) => p.param === param)?.message;
  const id = (field: string) => fieldId(`${at}.${field}`);
  const set = (field: string, patch: Partial<StepDraft>) => onChange(patch, `${at}.${field}`);

  let form: ReactNode;
  switch (step.type) {
    case 'send_template':
      form = <TemplateStepFields step={step} at={at} err={err} set={set} />;
      break;
    case 'send_text':
      form = (
        <Field
          id={id('text')}
          label="Message"
          error={err(`${at}.text`)}
          hint={TEMPLATE_STRING_HINT}
        >
          <textarea
            className={`input textarea${err(`${at}.text`) ? ' invalid' : ''}`}
            rows={3}
            value={step.text ?? ''}
            placeholder="Hi {{contact.name}}, your order {{payload.orderId}} is on its way."
            onChange={(e) => set('text', { text: e.target.value })}
            {...controlProps(id('text'), err(`${at}.text`))}
          />
        </Field>
      );
      break;
    case 'send_list':
      form = <ListStepField step={step} at={at} err={err} set={set} />;
      break;
    case 'wait':
      form = (
        <Field id={id('duration')} label="Wait for" error={err(`${at}.duration`)}>
          <DurationInput
            id={id('duration')}
            label="Wait for"
            value={step.duration}
            error={err(`${at}.duration`)}
            onChange={(duration) => set('duration', { duration })}
          />
        </Field>
      );
      break;
    case 'wait_for_reply':
      form = (
        <div className="wf-field-row">
          <Field
            id={id('timeout')}
            label="Give up after"
            error={err(`${at}.timeout`)}
            hint="The reply is then {{reply.text}}."
          >
            <DurationInput
              id={id('timeout')}
              label="Give up after"
              value={step.timeout}
              error={err(`${at}.timeout`)}
              onChange={(timeout) => set('timeout', { timeout })}
            />
          </Field>
          <Field id={id('onTimeout')} label="On timeout, go to" error={err(`${at}.onTimeout`)}>
            <StepTargetSelect
              steps={steps}
              self={index}
              value={step.onTimeout}
              onChange={(onTimeout) => set('onTimeout', { onTimeout })}
              emptyLabel="End the run"
              id={id('onTimeout')}
              error={err(`${at}.onTimeout`)}
            />
          </Field>
        </div>
      );
      break;
    case 'branch':
      form = <BranchFields steps={steps} index={index} err={err} set={set} />;
      break;
    case 'webhook':
      form = (
        <>
          <div className="wf-field-row">
            <Field id={id('url')} label="URL" error={err(`${at}.url`)}>
              <input
                className={`input${err(`${at}.url`) ? ' invalid' : ''}`}
                value={step.url ?? ''}
                placeholder="https://example.com/hooks/parley"
                onChange={(e) => set('url', { url: e.target.value })}
                {...controlProps(id('url'), err(`${at}.url`))}
              />
            </Field>
            <Field id={id('method')} label="Method" error={err(`${at}.method`)}>
              <select
                className="select"
                value={step.method ?? 'POST'}
                onChange={(e) => set('method', { method: e.target.value })}
                {...controlProps(id('method'), err(`${at}.method`))}
              >
                {['POST', 'PUT', 'PATCH'].map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </Field>
          </div>
          <Field
            id={id('body')}
            label={
              <>
                Body (JSON) <span className="optional">(optional)</span>
              </>
            }
            error={err(`${at}.body`)}
            hint={TEMPLATE_STRING_HINT}
          >
            <textarea
              className={`input textarea mono${err(`${at}.body`) ? ' invalid' : ''}`}
              rows={4}
              spellCheck={false}
              value={step.bodyText ?? ''}
              placeholder={'{ "phone": "{{contact.phone}}", "cart": "{{payload.cartId}}" }'}
              onChange={(e) => set('body', { bodyText: e.target.value })}
              {...controlProps(id('body'), err(`${at}.body`))}
            />
          </Field>
          <Field
            id={id('onError')}
            label="If it keeps failing, go to"
            error={err(`${at}.onError`)}
            hint="Tried up to 5 times; a 2xx answer within 10 s succeeds."
          >
            <StepTargetSelect
              steps={steps}
              self={index}
              value={step.onError}
              onChange={(onError) => set('onError', { onError })}
              emptyLabel="Fail the run"
              id={id('onError')}
              error={err(`${at}.onError`)}
            />
          </Field>
        </>
      );
      break;
    case 'update_conversation':
      form = <ConversationFields step={step} at={at} err={err} set={set} />;
      break;
    default:
      form = null;
  }

  const hasNext = step.type !== 'branch' && step.type !== 'end';
  const nextField = hasNext ? (
    <Field id={id('next')} label="Then go to" error={err(`${at}.next`)}>
      <StepTargetSelect
        steps={steps}
        self={index}
        value={step.next}
        onChange={(next) => set('next', { next })}
        emptyLabel={index < steps.length - 1 ? 'The next step' : 'End the run'}
        id={id('next')}
        error={err(`${at}.next`)}
      />
    </Field>
  ) : null;
  const idError = err(`${at}.id`);
  // Each field shows its own problem; what no field shows is listed at the card's foot.
  const shown = new Set(['id', 'next', ...(STEP_FIELDS[step.type] ?? [])]);
  const others = problems.filter((p) => !shown.has(p.param.slice(at.length + 1).split('.')[0]!));

  return (
    <article
      className={`wf-step card${problems.length > 0 ? ' has-problems' : ''}`}
      aria-labelledby={`${id('title')}`}
      data-testid="wf-step"
      data-step-type={step.type}
      onBlur={onTouch}
    >
      <header className="wf-step-head">
        <span className="wf-step-number" aria-hidden="true">
          {index + 1}
        </span>
        <div className="wf-step-title">
          <h3 id={id('title')}>
            <span className="visually-hidden">Step {index + 1}: </span>
            {STEP_LABELS[step.type] ?? step.type}
          </h3>
          <p className="hint">{STEP_HINTS[step.type]}</p>
        </div>
        <ItemTools
          what={`step ${index + 1}`}
          index={index}
          count={steps.length}
          onMove={onMove}
          onRemove={onRemove}
          testId={`wf-step-${index}`}
        />
      </header>
      <div className="wf-step-body">
        {form}
        <div className="wf-field-row">
          {nextField}
          <Field
            id={id('id')}
            label="Step ID"
            error={idError}
            hint={
              <>
                Other steps use its output as <code>{`{{steps.${step.id || 'ID'}.FIELD}}`}</code>.
              </>
            }
          >
            <input
              className={`input mono${idError ? ' invalid' : ''}`}
              value={step.id}
              spellCheck={false}
              onChange={(e) => set('id', { id: e.target.value })}
              {...controlProps(id('id'), idError)}
            />
          </Field>
        </div>
        {others.length > 0 ? (
          <ul className="wf-step-problems" data-testid={`${id('problems')}`}>
            {others.map((p) => (
              <li key={`${p.param}:${p.message}`} className="field-error">
                {p.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </article>
  );
}

interface FieldsProps {
  step: StepDraft;
  at: string;
  err: (param: string) => string | undefined;
  set: (field: string, patch: Partial<StepDraft>) => void;
}

function TemplateStepFields({ step, at, err, set }: FieldsProps) {
  const approved = useApprovedTemplates((s) => s.approved);
  const status = useApprovedTemplates((s) => s.status);
  const ensureLoaded = useApprovedTemplates((s) => s.ensureLoaded);
  useEffect(() => ensureLoaded(), [ensureLoaded]);
  const template = approved.find((t) => t.name === step.templateName) ?? null;
  const numbers = Array.from({ length: template?.variableCount ?? 0 }, (_, i) => String(i + 1));
  const variables = step.variables ?? {};
  const id = fieldId(`${at}.templateName`);
  const error = err(`${at}.templateName`);
  return (
    <>
      <Field
        id={id}
        label="Template"
        error={error}
        hint={
          step.templateName && !template && status === 'ready'
            ? `“${step.templateName}” is not an approved template now: choose another.`
            : undefined
        }
      >
        <TemplateSelect
          id={id}
          templates={approved}
          value={template?.id ?? ''}
          loading={status === 'loading' || status === 'idle'}
          testId={id}
          onChange={(templateId) => {
            const chosen = approved.find((t) => t.id === templateId);
            const count = chosen?.variableCount ?? 0;
            const next: Record<string, string> = {};
            for (let n = 1; n <= count; n++) next[String(n)] = variables[String(n)] ?? '';
            set('templateName', { templateName: chosen?.name ?? '', variables: next });
          }}
        />
      </Field>
      {numbers.length > 0 ? (
        <div className="field wf-variables">
          <span className="field-label">Variables</span>
          <VariableInputs
            numbers={numbers}
            values={variables}
            onChange={(update) =>
              set('variables', {
                variables: typeof update === 'function' ? update(variables) : update,
              })
            }
            testIdPrefix={fieldId(`${at}.variables`)}
            placeholders
          />
          {numbers.map((n) => {
            const message = err(`${at}.variables.${n}`);
            return message ? (
              <p
                key={n}
                className="field-error"
                data-testid={`${fieldId(`${at}.variables.${n}`)}-error`}
              >
                {`{{${n}}}`}: {message}
              </p>
            ) : null;
          })}
          <p className="hint">{TEMPLATE_STRING_HINT}</p>
        </div>
      ) : null}
    </>
  );
}

function ListStepField({ step, at, err, set }: FieldsProps) {
  const library = useInteractiveLists((s) => s.library);
  const status = useInteractiveLists((s) => s.libraryStatus);
  const ensureLibrary = useInteractiveLists((s) => s.ensureLibrary);
  useEffect(() => ensureLibrary(), [ensureLibrary]);
  const id = fieldId(`${at}.listId`);
  const error = err(`${at}.listId`);
  const known = !step.listId || library.some((l) => l.id === step.listId);
  return (
    <Field id={id} label="Interactive list" error={error}>
      <select
        className={`select${error ? ' invalid' : ''}`}
        value={step.listId ?? ''}
        onChange={(e) => set('listId', { listId: e.target.value })}
        {...controlProps(id, error)}
      >
        <option value="">
          {status === 'ready' || status === 'error' ? 'Choose a saved list…' : 'Loading lists…'}
        </option>
        {library.map((list) => (
          <option key={list.id} value={list.id}>
            {list.name}
          </option>
        ))}
        {known || status !== 'ready' ? null : (
          <option value={step.listId}>A deleted list ({step.listId})</option>
        )}
      </select>
    </Field>
  );
}

function BranchFields({
  steps,
  index,
  err,
  set,
}: {
  steps: readonly StepDraft[];
  index: number;
  err: (param: string) => string | undefined;
  set: (field: string, patch: Partial<StepDraft>) => void;
}) {
  const step = steps[index]!;
  const at = `steps.${index}`;
  const conditions = step.conditions ?? [];
  const edit = (k: number, patch: (c: Condition) => Condition, field: string) =>
    set(`conditions.${k}.${field}`, {
      conditions: conditions.map((c, i) => (i === k ? patch(c) : c)),
    });
  const reshape = (next: Condition[]) => set('conditions', { conditions: next });
  return (
    <div className="wf-conditions">
      <ol className="wf-condition-list">
        {conditions.map((c, k) => {
          const p = `${at}.conditions.${k}`;
          return (
            <li key={k} className="list-section-draft" data-testid="wf-condition">
              <div className="list-draft-head">
                <span className="list-draft-label">{k === 0 ? 'If' : 'Else if'}</span>
                <button
                  type="button"
                  className="button button-small button-danger-ghost"
                  onClick={() => reshape(conditions.filter((_, i) => i !== k))}
                  aria-label={`Remove condition ${k + 1}`}
                  data-testid={`${fieldId(p)}-remove`}
                >
                  Remove
                </button>
              </div>
              <div className="wf-field-row wf-condition-fields">
                <Field id={fieldId(`${p}.if.value`)} label="Value" error={err(`${p}.if.value`)}>
                  <input
                    className={`input mono${err(`${p}.if.value`) ? ' invalid' : ''}`}
                    value={c.if.value}
                    spellCheck={false}
                    placeholder="{{reply.text}}"
                    onChange={(e) =>
                      edit(k, (x) => ({ ...x, if: { ...x.if, value: e.target.value } }), 'if.value')
                    }
                    {...controlProps(fieldId(`${p}.if.value`), err(`${p}.if.value`))}
                  />
                </Field>
                <Field id={fieldId(`${p}.if.op`)} label="Test" error={err(`${p}.if.op`)}>
                  <select
                    className="select"
                    value={c.if.op}
                    onChange={(e) =>
                      edit(
                        k,
                        (x) => ({ ...x, if: { ...x.if, op: e.target.value as BranchOp } }),
                        'if.op',
                      )
                    }
                    {...controlProps(fieldId(`${p}.if.op`), err(`${p}.if.op`))}
                  >
                    {BRANCH_OPS.map((op) => (
                      <option key={op} value={op}>
                        {OP_LABELS[op]}
                      </option>
                    ))}
                  </select>
                </Field>
                {c.if.op === 'exists' ? null : (
                  <Field id={fieldId(`${p}.if.equals`)} label="This" error={err(`${p}.if.equals`)}>
                    <input
                      className="input"
                      value={String(c.if.equals ?? '')}
                      placeholder="yes"
                      onChange={(e) =>
                        edit(
                          k,
                          (x) => ({ ...x, if: { ...x.if, equals: e.target.value } }),
                          'if.equals',
                        )
                      }
                      {...controlProps(fieldId(`${p}.if.equals`), err(`${p}.if.equals`))}
                    />
                  </Field>
                )}
              </div>
              <Field id={fieldId(`${p}.goto`)} label="Then go to" error={err(`${p}.goto`)}>
                <StepTargetSelect
                  steps={steps}
                  self={index}
                  value={c.goto}
                  onChange={(goto) => edit(k, (x) => ({ ...x, goto }), 'goto')}
                  emptyLabel="Choose a step…"
                  id={fieldId(`${p}.goto`)}
                  error={err(`${p}.goto`)}
                />
              </Field>
            </li>
          );
        })}
      </ol>
      <p className="hint">
        The first condition that holds wins. {TEMPLATE_STRING_HINT} Numbers compare as numbers;
        “contains” ignores case.
      </p>
      <button
        type="button"
        className="button button-small"
        onClick={() =>
          reshape([
            ...conditions,
            { if: { value: '{{reply.text}}', op: 'contains', equals: '' }, goto: '' },
          ])
        }
        data-testid={`${fieldId(at)}-add-condition`}
      >
        Add a condition
      </button>
      <Field id={fieldId(`${at}.else`)} label="Otherwise, go to" error={err(`${at}.else`)}>
        <StepTargetSelect
          steps={steps}
          self={index}
          value={step.else}
          onChange={(target) => set('else', { else: target })}
          emptyLabel="End the run"
          id={fieldId(`${at}.else`)}
          error={err(`${at}.else`)}
        />
      </Field>
      {err(`${at}.conditions`) ? <p className="field-error">{err(`${at}.conditions`)}</p> : null}
    </div>
  );
}

function ConversationFields({ step, at, err, set }: FieldsProps) {
  const agents = useAgents((s) => s.agents);
  const ensureAgents = useAgents((s) => s.ensureLoaded);
  useEffect(() => ensureAgents(), [ensureAgents]);
  const id = (field: string) => fieldId(`${at}.${field}`);
  const assignee = step.assignee === undefined ? '' : step.assignee === null ? '-' : step.assignee;
  return (
    <>
      <div className="wf-field-row">
        <Field id={id('status')} label="Status" error={err(`${at}.status`)}>
          <select
            className="select"
            value={step.status ?? ''}
            onChange={(e) => set('status', { status: e.target.value || undefined })}
            {...controlProps(id('status'), err(`${at}.status`))}
          >
            <option value="">Leave as it is</option>
            {CONVERSATION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.charAt(0).toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </Field>
        <Field id={id('assignee')} label="Assignee" error={err(`${at}.assignee`)}>
          <select
            className="select"
            value={assignee}
            onChange={(e) =>
              set('assignee', {
                assignee:
                  e.target.value === ''
                    ? undefined
                    : e.target.value === '-'
                      ? null
                      : e.target.value,
              })
            }
            {...controlProps(id('assignee'), err(`${at}.assignee`))}
          >
            <option value="">Leave as it is</option>
            <option value="-">Unassign</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
            {assignee && assignee !== '-' && !agents.some((a) => a.id === assignee) ? (
              <option value={assignee}>An agent no longer here</option>
            ) : null}
          </select>
        </Field>
      </div>
      <div className="wf-field-row">
        <Field id={id('addLabels')} label="Add labels" error={err(`${at}.addLabels`)}>
          <LabelsInput
            id={id('addLabels')}
            labels={step.addLabels ?? []}
            onChange={(addLabels) => set('addLabels', { addLabels })}
            error={err(`${at}.addLabels`)}
          />
        </Field>
        <Field id={id('removeLabels')} label="Remove labels" error={err(`${at}.removeLabels`)}>
          <LabelsInput
            id={id('removeLabels')}
            labels={step.removeLabels ?? []}
            onChange={(removeLabels) => set('removeLabels', { removeLabels })}
            error={err(`${at}.removeLabels`)}
          />
        </Field>
      </div>
    </>
  );
}
