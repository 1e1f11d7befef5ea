import { useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { STEP_TYPES, stepLabel } from '../../../../shared/workflow-steps/index.ts';
import { ApiRequestError, errorMessage } from '../../api/client.ts';
import { CountedField } from '../../components/counted-field.tsx';
import { EditorSection } from '../../components/editor-section.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { focusElement, withoutErrorsAt } from '../../components/server-errors.ts';
import { plural } from '../../components/format.ts';
import { EditorSave } from '../../components/editor-save.tsx';
import { moved } from '../../components/item-tools.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { notify } from '../../stores/toasts.ts';
import { useWorkflows, type Workflow } from '../../stores/workflows.ts';
import { controlProps, Field } from './step-fields.tsx';
import { StepCard } from './step-card.tsx';
import { StepPaths } from './step-paths.tsx';
import { definitionOf, draftFromWorkflow, newStep, problemsOf } from './workflow-definition.ts';
import {
  blockerMessage,
  emptyDraft,
  fieldId,
  stepIndexOf,
  type StepDraft,
  type StepType,
  type WorkflowDraft,
} from './workflow-draft.ts';
import { SecretDialog, StatusActions, WorkflowStatusChip } from './workflow-status.tsx';

const FORM_ID = 'workflow-form';

/** What starts a workflow, as the builder offers it. */
const TRIGGER_CHOICES: { type: WorkflowDraft['triggerType']; label: ReactNode }[] = [
  { type: 'event', label: 'When an event arrives' },
  {
    type: 'manual',
    label: (
      <>
        Only when started by hand (Test run, or <code>POST /workflows/trigger</code>)
      </>
    ),
  },
];

/** Brings the field a param names into view and focus (a step without one: its card). */
function focusParam(param: string): void {
  window.requestAnimationFrame(() => {
    const index = stepIndexOf(param);
    focusElement(
      document.getElementById(fieldId(param)) ??
        (index !== null ? document.getElementById(fieldId(`steps.${index}.title`)) : null),
    );
  });
}

/** Builds a new workflow (`workflow` null) or the next version of one, as a flow of steps. */
export function WorkflowBuilder({ workflow: initial }: { workflow: Workflow | null }) {
  const create = useWorkflows((s) => s.create);
  const update = useWorkflows((s) => s.update);
  const navigate = useRoute((s) => s.navigate);

  const [workflow, setWorkflow] = useState<Workflow | null>(initial);
  const [draft, setDraft] = useState<WorkflowDraft>(() =>
    initial ? draftFromWorkflow(initial) : emptyDraft(),
  );
  // Blank fields say so once the user has been there (or tried to save).
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [attempted, setAttempted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [addType, setAddType] = useState<StepType>('send_template');
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);

  const problems = useMemo(() => problemsOf(draft), [draft]);
  const touch = (what: string) => setTouched((t) => (t.has(what) ? t : new Set(t).add(what)));
  const visible = (param: string): boolean => {
    if (attempted) return true;
    const index = stepIndexOf(param);
    if (index === null) return touched.has(param);
    const step = draft.steps[index];
    return step !== undefined && touched.has(step.key);
  };
  const shown = [
    ...Object.entries(serverErrors).map(([param, message]) => ({ param, message })),
    ...problems.filter((p) => visible(p.param) && !(p.param in serverErrors)),
  ];
  const errorFor = (param: string) => shown.find((p) => p.param === param)?.message;

  const edited = (param: string) => {
    setServerErrors((errors) => withoutErrorsAt(errors, param));
    setFormError(null);
  };
  const editSteps = (steps: StepDraft[], param: string) => {
    setDraft((d) => ({ ...d, steps }));
    edited(param);
  };
  const editStep = (index: number, patch: Partial<StepDraft>, param: string) => {
    const step = draft.steps[index]!;
    touch(step.key);
    editSteps(
      draft.steps.map((s, i) => (i === index ? { ...s, ...patch } : s)),
      param,
    );
  };

  const first = problems[0];
  const blocker = first
    ? `${blockerMessage(first)}${problems.length > 1 ? ` (and ${plural(problems.length - 1, 'more problem')})` : ''}`
    : null;
  const showFirstProblem = () => {
    if (!first) return;
    setAttempted(true);
    focusParam(first.param);
  };

  const leave = () => navigate('workflows');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (first) return showFirstProblem();
    setBusy(true);
    setFormError(null);
    const body = definitionOf(draft);
    try {
      if (workflow) {
        const saved = await update(workflow.id, body);
        setWorkflow(saved);
        notify('success', `Saved version ${saved.version} of “${saved.name}”.`);
      } else {
        const created = await create(body);
        setSecret({ id: created.id, secret: created.secret });
      }
    } catch (e) {
      // The core checks the same rules; what it says about a field goes on that step and field.
      if (
        e instanceof ApiRequestError &&
        e.param &&
        (e.param === 'name' || e.param.startsWith('trigger') || stepIndexOf(e.param) !== null)
      ) {
        setServerErrors({ [e.param]: e.message });
        focusParam(e.param);
      } else {
        setFormError(errorMessage(e));
      }
    } finally {
      setBusy(false);
    }
  };

  const addStep = () => {
    const step = newStep(draft.steps, addType);
    editSteps([...draft.steps, step], 'steps');
    window.requestAnimationFrame(() =>
      document
        .getElementById(fieldId(`steps.${draft.steps.length}.title`))
        ?.scrollIntoView({ block: 'center' }),
    );
  };

  const title = workflow ? workflow.name : 'New workflow';
  return (
    <div
      className="screen screen-wide"
      data-testid="workflow-builder"
      data-workflow-id={workflow?.id}
    >
      <PageHeader
        eyebrow={
          <a href={hrefFor('workflows')} className="link-button">
            ← Workflows
          </a>
        }
        title={title}
        titleClassName="title-with-badge"
        description={
          workflow ? (
            <>
              Version {workflow.version} <WorkflowStatusChip status={workflow.status} />. Saving
              saves version {workflow.version + 1}; runs in flight finish on theirs.{' '}
              <a href={hrefFor('workflows', `${workflow.id}/runs`)} data-testid="wf-runs-link">
                Run history
              </a>
            </>
          ) : (
            'Steps that run for one customer when an event arrives (or when you start them): send messages, wait for a reply, branch on it, call your server, label the conversation.'
          )
        }
        actions={
          <EditorSave
            right="automation.write"
            formId={FORM_ID}
            onCancel={leave}
            busy={busy}
            blocker={blocker}
            onShowProblem={showFirstProblem}
            testIdPrefix="wf"
            before={workflow ? <StatusActions workflow={workflow} onChange={setWorkflow} /> : null}
          >
            {busy ? 'Saving…' : workflow ? `Save version ${workflow.version + 1}` : 'Save workflow'}
          </EditorSave>
        }
      />

      {formError ? <ErrorBanner message={formError} testId="wf-form-error" /> : null}

      <form id={FORM_ID} className="wf-form" onSubmit={submit} noValidate data-testid="wf-form">
        <section className="card editor-form">
          <EditorSection title="Name and trigger">
            <CountedField
              id={fieldId('name')}
              label="Name"
              value={draft.name}
              max={200}
              error={errorFor('name')}
              onChange={(name) => {
                setDraft((d) => ({ ...d, name }));
                edited('name');
              }}
              onBlur={() => touch('name')}
              placeholder="Abandoned cart follow-up"
              testId={fieldId('name')}
            />
            <fieldset className="wf-trigger">
              <legend>Starts</legend>
              {TRIGGER_CHOICES.map(({ type, label }) => (
                <label key={type} className="radio">
                  <input
                    type="radio"
                    name="trigger"
                    checked={draft.triggerType === type}
                    onChange={() => setDraft((d) => ({ ...d, triggerType: type }))}
                    data-testid={`wf-trigger-type-${type}`}
                  />
                  {label}
                </label>
              ))}
            </fieldset>
            {draft.triggerType === 'event' ? (
              <Field
                id={fieldId('trigger.event')}
                label="Event name"
                error={errorFor('trigger.event')}
                hint={
                  <>
                    Your shop sends it with{' '}
                    <code>POST /api/events {'{event, phone, payload}'}</code>; its payload is{' '}
                    <code>{'{{payload.X}}'}</code> in the steps.
                  </>
                }
              >
                <input
                  className={`input mono${errorFor('trigger.event') ? ' invalid' : ''}`}
                  value={draft.event}
                  placeholder="cart.abandoned"
                  spellCheck={false}
                  onChange={(e) => {
                    const event = e.target.value;
                    setDraft((d) => ({ ...d, event }));
                    edited('trigger.event');
                  }}
                  onBlur={() => touch('trigger.event')}
                  {...controlProps(fieldId('trigger.event'), errorFor('trigger.event'))}
                />
              </Field>
            ) : null}
          </EditorSection>
        </section>

        <section className="wf-flow" aria-labelledby="wf-steps-heading">
          <div className="editor-section-head">
            <h2 id="wf-steps-heading">Steps</h2>
            <span className="hint">
              {plural(draft.steps.length, 'step')} · run top to bottom unless a step says where to
              go
            </span>
          </div>
          <div className="wf-start" aria-hidden="true">
            {draft.triggerType === 'event'
              ? `When ${draft.event || 'the event'} arrives`
              : 'When started'}
          </div>
          <ol className="wf-steps" id={fieldId('steps')}>
            {draft.steps.map((step, i) => (
              <li key={step.key} className="wf-step-item" data-testid="wf-step-item">
                <StepCard
                  steps={draft.steps}
                  index={i}
                  problems={shown.filter((p) => stepIndexOf(p.param) === i)}
                  onChange={(patch, param) => editStep(i, patch, param)}
                  onMove={(by) => editSteps(moved(draft.steps, i, by), 'steps')}
                  onRemove={() =>
                    editSteps(
                      draft.steps.filter((_, k) => k !== i),
                      'steps',
                    )
                  }
                  onTouch={() => touch(step.key)}
                />
                <StepPaths steps={draft.steps} index={i} />
              </li>
            ))}
          </ol>
          {errorFor('steps') ? (
            <p className="field-error" data-testid="wf-steps-error">
              {errorFor('steps')}
            </p>
          ) : null}
          <div className="wf-add card">
            <label htmlFor="wf-add-type">Add a step</label>
            <select
              id="wf-add-type"
              className="select"
              value={addType}
              onChange={(e) => setAddType(e.target.value as StepType)}
              data-testid="wf-add-type"
            >
              {STEP_TYPES.map((type) => (
                <option key={type} value={type}>
                  {stepLabel(type)}
                </option>
              ))}
            </select>
            <button type="button" className="button" onClick={addStep} data-testid="wf-add-step">
              Add step
            </button>
          </div>
        </section>
      </form>

      {secret ? (
        <SecretDialog
          secret={secret.secret}
          onClose={() => {
            setSecret(null);
            navigate('workflows', secret.id);
          }}
        />
      ) : null}
    </div>
  );
}
