import {
  BRANCH_OPS,
  VALUELESS_OPS,
  type BranchOp,
  type Condition,
} from '../../../../../shared/workflow-steps/branch.ts';
import { controlProps, Field, StepTargetField, TEMPLATE_STRING_HINT } from '../step-fields.tsx';
import { fieldId } from '../workflow-draft.ts';
import type { StepEditor, StepFieldsProps } from './step-editor.ts';

const NEW_CONDITION: Condition = {
  if: { value: '{{reply.text}}', op: 'contains', equals: '' },
  goto: '',
};

export const branch: StepEditor<'branch'> = {
  type: 'branch',
  hint: 'Goes one way or another: on the reply, the event’s data, or whether you are open now.',
  idPrefix: 'branch',
  defaults: { conditions: [NEW_CONDITION] }, // newStep clones the defaults
  Fields: BranchFields,
  next: false,
  paths: (step, _then, path) => [
    ...(step.conditions ?? []).map((c, k) =>
      path(conditionText(c), c.goto, `conditions.${k}.goto`),
    ),
    path('Otherwise', step.else, 'else'),
  ],
  // `equals` is not sent for `exists` (which ignores it) nor when it was never typed; `is_open_now` reads no value.
  toStep(draft, out) {
    if (!draft.conditions) return out;
    out.conditions = draft.conditions.map((c) => {
      const { equals, value, ...rest } = c.if;
      if (c.if.op === 'is_open_now') {
        return { ...c, if: equals === false ? { ...rest, equals } : rest };
      }
      const compared = { ...rest, value };
      return {
        ...c,
        if: c.if.op === 'exists' || equals === undefined ? compared : { ...compared, equals },
      };
    });
    return out;
  },
};

export const OP_LABELS: Record<BranchOp, string> = {
  eq: 'is',
  ne: 'is not',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  contains: 'contains',
  exists: 'is not empty',
  is_open_now: 'business hours (open or closed now)',
};

/** What a template string reads, in words: `{{reply.text}}` is "The reply". */
export function valueWords(value: string | undefined): string {
  const ref = /^\{\{\s*([\w.]+)\s*\}\}$/.exec(value ?? '')?.[1];
  const known: Record<string, string> = {
    'reply.text': 'The reply',
    'reply.listReply.title': 'The picked row',
    'reply.listReply.rowId': 'The picked row’s id',
    'contact.name': 'The contact’s name',
    'contact.phone': 'The contact’s phone',
    'contact.email': 'The contact’s email',
  };
  if (ref && known[ref]) return known[ref];
  if (ref?.startsWith('payload.')) return `The event’s ${ref.slice('payload.'.length)}`;
  if (ref?.startsWith('contact.attributes.')) {
    return `The contact’s ${ref.slice('contact.attributes.'.length)}`;
  }
  return value ?? '';
}

/** A branch condition in words: The reply contains “yes”; Open now. */
export function conditionText(c: Condition): string {
  if (c.if.op === 'is_open_now') return c.if.equals === false ? 'Closed now' : 'Open now';
  const op = OP_LABELS[c.if.op] ?? c.if.op;
  return c.if.op === 'exists'
    ? `${valueWords(c.if.value)} ${op}`
    : `${valueWords(c.if.value)} ${op} “${String(c.if.equals ?? '')}”`;
}

function BranchFields({ steps, index, step, at, err, set, target }: StepFieldsProps) {
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
                {VALUELESS_OPS.includes(c.if.op) ? null : (
                  <Field id={fieldId(`${p}.if.value`)} label="Value" error={err(`${p}.if.value`)}>
                    <input
                      className={`input mono${err(`${p}.if.value`) ? ' invalid' : ''}`}
                      value={c.if.value ?? ''}
                      spellCheck={false}
                      placeholder="{{reply.text}}"
                      onChange={(e) =>
                        edit(
                          k,
                          (x) => ({ ...x, if: { ...x.if, value: e.target.value } }),
                          'if.value',
                        )
                      }
                      {...controlProps(fieldId(`${p}.if.value`), err(`${p}.if.value`))}
                    />
                  </Field>
                )}
                <Field id={fieldId(`${p}.if.op`)} label="Test" error={err(`${p}.if.op`)}>
                  <select
                    className="select"
                    value={c.if.op}
                    onChange={(e) => {
                      const op = e.target.value as BranchOp;
                      edit(
                        k,
                        (x) => ({
                          ...x,
                          if: VALUELESS_OPS.includes(op)
                            ? { op, equals: true }
                            : {
                                value: x.if.value ?? '{{reply.text}}',
                                op,
                                equals: typeof x.if.equals === 'boolean' ? '' : x.if.equals,
                              },
                        }),
                        'if.op',
                      );
                    }}
                    {...controlProps(fieldId(`${p}.if.op`), err(`${p}.if.op`))}
                  >
                    {BRANCH_OPS.map((op) => (
                      <option key={op} value={op}>
                        {OP_LABELS[op]}
                      </option>
                    ))}
                  </select>
                </Field>
                {c.if.op === 'exists' ? null : c.if.op === 'is_open_now' ? (
                  <Field id={fieldId(`${p}.if.equals`)} label="When" error={err(`${p}.if.equals`)}>
                    <select
                      className="select"
                      value={c.if.equals === false ? 'closed' : 'open'}
                      onChange={(e) =>
                        edit(
                          k,
                          (x) => ({ ...x, if: { ...x.if, equals: e.target.value === 'open' } }),
                          'if.equals',
                        )
                      }
                      {...controlProps(fieldId(`${p}.if.equals`), err(`${p}.if.equals`))}
                    >
                      <option value="open">you are open now</option>
                      <option value="closed">you are closed now</option>
                    </select>
                  </Field>
                ) : (
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
              <StepTargetField
                steps={steps}
                self={index}
                value={c.goto}
                onChange={(goto) => edit(k, (x) => ({ ...x, goto }), 'goto')}
                id={fieldId(`${p}.goto`)}
                error={err(`${p}.goto`)}
                label="Then go to"
                emptyLabel="Choose a step…"
              />
            </li>
          );
        })}
      </ol>
      <p className="hint">
        The first condition that holds wins. {TEMPLATE_STRING_HINT} Numbers compare as numbers;
        “contains” ignores case; “open now” follows the workspace’s business hours.
      </p>
      <button
        type="button"
        className="button button-small"
        onClick={() => reshape([...conditions, structuredClone(NEW_CONDITION)])}
        data-testid={`${fieldId(at)}-add-condition`}
      >
        Add a condition
      </button>
      <StepTargetField {...target('else')} label="Otherwise, go to" emptyLabel="End the run" />
      {err(`${at}.conditions`) ? <p className="field-error">{err(`${at}.conditions`)}</p> : null}
    </div>
  );
}
