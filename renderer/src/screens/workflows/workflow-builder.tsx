import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useStore } from 'zustand';
import { stepLabel } from '../../../../shared/workflow-steps/index.ts';
import { api, ApiRequestError, errorMessage } from '../../api/client.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { focusElement, withoutErrorsAt } from '../../components/server-errors.ts';
import { plural } from '../../components/format.ts';
import { CloseIcon } from '../../components/icons.tsx';
import { useRightGate } from '../../components/needs-right.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useAction } from '../../components/use-action.ts';
import { useAgents } from '../../stores/agents.ts';
import { useInteractiveLists } from '../../stores/interactive-lists.ts';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { notify } from '../../stores/toasts.ts';
import { useWorkflows, type Workflow } from '../../stores/workflows.ts';
import { AddStep } from './canvas/add-step.tsx';
import { insertStep, removeStep, renameStep, type PathRef } from './canvas/flow-edits.ts';
import { problemsByNode, TRIGGER_NODE } from './canvas/flow-graph.ts';
import { createHistoryStore } from './canvas/history.ts';
import { DiscardDialog, useLeaveGuard } from './canvas/leave-guard.tsx';
import { StepForm } from './canvas/step-form.tsx';
import { TriggerFields } from './canvas/trigger-fields.tsx';
import { VersionHistory } from './canvas/version-history.tsx';
import { LazyWorkflowCanvas } from './canvas/lazy-canvas.tsx';
import { controlProps } from './step-fields.tsx';
import { definitionOf, draftFromDefinition, problemsOf, withTyped } from './workflow-definition.ts';
import {
  emptyDraft,
  fieldId,
  stepIndexOf,
  type StepDraft,
  type StepType,
  type TriggerDraft,
  type WorkflowDraft,
} from './workflow-draft.ts';
import { SecretDialog, WorkflowStatusChip } from './workflow-status.tsx';

const PANEL_ID = 'wf-panel';

/** The trigger's fields that show their own problems; the panel lists the others. */
const TRIGGER_FIELDS = ['trigger.keywords', 'trigger.event', 'trigger.listId', 'trigger.to'];
const under = (param: string, field: string) => param === field || param.startsWith(`${field}.`);

type Selection = { kind: 'node'; id: string } | { kind: 'add'; at: PathRef; where: string } | null;

/** What the builder edits of a workflow: its pending draft when it has one, else what runs. */
const draftFromWorkflow = (workflow: Workflow): WorkflowDraft =>
  draftFromDefinition(workflow.draft ?? workflow);

/** What saving a draft would send, as a string: unsaved changes are a difference in it. */
const savedForm = (draft: WorkflowDraft): string => JSON.stringify(definitionOf(draft));

/** Whether a workflow signs requests: only its webhook steps use the signing secret. */
const hasWebhookStep = (draft: Pick<WorkflowDraft, 'steps'>): boolean =>
  draft.steps.some((step) => step.type === 'webhook');

/** Keywords and labels typed beside their chips become chips (saving keeps them, not loses them). */
function withTypedAdded(draft: WorkflowDraft): WorkflowDraft {
  const trigger: TriggerDraft = draft.trigger.keywordText.trim()
    ? {
        ...draft.trigger,
        keywords: withTyped(draft.trigger.keywords, draft.trigger.keywordText),
        keywordText: '',
      }
    : draft.trigger;
  const steps = draft.steps.map((step): StepDraft => {
    if (!step.typed || !Object.values(step.typed).some((t) => t?.trim())) return step;
    const { typed, ...rest } = step;
    const out: Record<string, unknown> = { ...rest };
    for (const [field, text] of Object.entries(typed)) {
      out[field] = withTyped(out[field] as string[] | undefined, text);
    }
    return out as unknown as StepDraft;
  });
  return trigger === draft.trigger && steps.every((s, i) => s === draft.steps[i])
    ? draft
    : { ...draft, trigger, steps };
}

/** The workflow's state in a line: "Draft", "Active — v3 · unsaved changes". */
function statusLine(workflow: Workflow | null, dirty: boolean): string {
  const base = !workflow
    ? 'New — not saved yet'
    : workflow.status === 'draft'
      ? 'Draft — never active yet'
      : `${workflow.status === 'active' ? 'Active' : workflow.status === 'paused' ? 'Paused' : 'Archived'} — v${workflow.version}`;
  return [
    base,
    workflow?.draft ? 'draft changes, not active yet' : null,
    dirty ? 'unsaved changes' : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Builds a new workflow (`workflow` null) or edits one's draft, on a canvas. */
export function WorkflowBuilder({ workflow: initial }: { workflow: Workflow | null }) {
  const [workflow, setWorkflow] = useState<Workflow | null>(initial);
  const [history] = useState(() =>
    createHistoryStore<WorkflowDraft>(initial ? draftFromWorkflow(initial) : emptyDraft()),
  );
  const draft = useStore(history, (s) => s.history.present);
  const canUndo = useStore(history, (s) => s.history.past.length > 0);
  const canRedo = useStore(history, (s) => s.history.future.length > 0);
  const [saved, setSaved] = useState(() => savedForm(draft));
  const dirty = savedForm(draft) !== saved;

  const [chosen, setSelection] = useState<Selection>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ id: string; secret: string; rotated: boolean } | null>(
    null,
  );
  const [dialog, setDialog] = useState<'versions' | 'discard-draft' | 'rotate-secret' | null>(null);
  /** A workflow just created with nothing to show first: its own page opens once it is saved. */
  const [openCreated, setOpenCreated] = useState<string | null>(null);
  const [restoreAsk, setRestoreAsk] = useState<number | null>(null);
  const [announcement, setAnnouncement] = useState('');
  // The name's problem shows once the user has been there or tried to save (a new page starts blank).
  const [nameVisited, setNameVisited] = useState(!!initial);
  const { busy, run } = useAction();
  const { gate } = useRightGate('automation.write');
  const { confirmLeave, dialog: leaveDialog } = useLeaveGuard(dirty);
  const panel = useRef<HTMLElement>(null);
  // A step the history took away (the undo of an added step) is no longer open.
  const selectedStep =
    chosen?.kind === 'node' ? draft.steps.findIndex((s) => s.key === chosen.id) : -1;
  const selection: Selection =
    chosen?.kind === 'node' && chosen.id !== TRIGGER_NODE && selectedStep < 0 ? null : chosen;

  const lists = useInteractiveLists((s) => s.library);
  const ensureLists = useInteractiveLists((s) => s.ensureLibrary);
  const agents = useAgents((s) => s.agents);
  const ensureAgents = useAgents((s) => s.ensureLoaded);
  // The nodes name the lists and members the steps name.
  useEffect(() => ensureLists(), [ensureLists]);
  useEffect(() => ensureAgents(), [ensureAgents]);
  const names = useMemo(
    () => ({
      list: (id: string) => lists.find((l) => l.id === id)?.name,
      member: (id: string) => agents.find((a) => a.id === id)?.name,
    }),
    [lists, agents],
  );

  const problems = useMemo(() => {
    const local = problemsOf(draft).filter((p) => !(p.param in serverErrors));
    return [
      ...Object.entries(serverErrors).map(([param, message]) => ({ param, message })),
      ...local,
    ];
  }, [draft, serverErrors]);
  const byNode = useMemo(() => problemsByNode(draft.steps, problems), [draft.steps, problems]);
  /** A trigger field's problem, its items' included (`trigger.keywords.2`). */
  const triggerError = (param: string) => problems.find((p) => under(p.param, param))?.message;
  const errorFor = (param: string) =>
    param === 'name' && !nameVisited && !('name' in serverErrors)
      ? undefined
      : problems.find((p) => p.param === param)?.message;

  // ---- editing ----------------------------------------------------------------------------
  const edited = (param: string) => {
    setServerErrors((errors) => withoutErrorsAt(errors, param));
    setFormError(null);
  };
  /** An edit of the draft; `param` names what changed (typing in one field is one undo step). */
  const edit = (update: (d: WorkflowDraft) => WorkflowDraft, param: string | null) => {
    history.getState().edit(update, param);
    if (param) edited(param);
  };
  const editStep = (key: string, patch: Partial<StepDraft>, param: string) =>
    edit(
      (d) => ({ ...d, steps: d.steps.map((s) => (s.key === key ? { ...s, ...patch } : s)) }),
      param,
    );
  const editTrigger = (patch: Partial<TriggerDraft>, param: string) =>
    edit((d) => ({ ...d, trigger: { ...d.trigger, ...patch } }), param);

  const focusPanel = () =>
    window.requestAnimationFrame(() => panel.current?.querySelector<HTMLElement>('h2')?.focus());
  const focusNode = (id: string) =>
    window.requestAnimationFrame(() =>
      document.querySelector<HTMLElement>(`[data-flow-node="${CSS.escape(id)}"]`)?.focus(),
    );

  const open = (id: string) => {
    setSelection({ kind: 'node', id });
    focusPanel();
  };
  const closePanel = () => {
    const id = selection?.kind === 'node' ? selection.id : TRIGGER_NODE;
    setSelection(null);
    focusNode(id);
  };
  const add = (at: PathRef, where: string) => {
    setSelection({ kind: 'add', at, where });
  };
  const choose = (at: PathRef, type: StepType) => {
    const { steps, key } = insertStep(draft.steps, at, type);
    edit((d) => ({ ...d, steps }), null);
    setAnnouncement(`Added a step: ${stepLabel(type)}.`);
    open(key);
  };
  const remove = (key: string) => {
    const index = draft.steps.findIndex((s) => s.key === key);
    if (index < 0) return;
    edit((d) => ({ ...d, steps: removeStep(d.steps, key) }), null);
    setSelection(null);
    setAnnouncement(
      `Removed step ${index + 1}, ${stepLabel(draft.steps[index]!.type)}. Undo with Ctrl+Z.`,
    );
    focusNode(TRIGGER_NODE);
  };
  const undo = () => history.getState().undo();
  const redo = () => history.getState().redo();

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (document.querySelector('dialog[open]')) return;
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    if (mod && key === 'z') {
      event.preventDefault();
      if (event.shiftKey) redo();
      else undo();
    } else if (mod && key === 'y') {
      event.preventDefault();
      redo();
    } else if (
      event.key === 'Escape' &&
      selection &&
      panel.current?.contains(event.target as Node)
    ) {
      event.preventDefault();
      closePanel();
    }
  };

  // ---- problems -------------------------------------------------------------------------------
  const first = problems[0];
  const showProblem = (param: string) => {
    const index = stepIndexOf(param);
    if (param === 'name') {
      setNameVisited(true);
      window.requestAnimationFrame(() => focusElement(document.getElementById(fieldId('name'))));
      return;
    }
    setSelection({ kind: 'node', id: index === null ? TRIGGER_NODE : draft.steps[index]!.key });
    window.requestAnimationFrame(() =>
      focusElement(
        document.getElementById(fieldId(param)) ??
          panel.current?.querySelector<HTMLElement>('input, select, textarea') ??
          null,
      ),
    );
  };

  // ---- saving -------------------------------------------------------------------------------
  const landed = (fresh: Workflow, form: string) => {
    setWorkflow(fresh);
    setSaved(form);
    useWorkflows.getState().apply(fresh);
  };
  const refused = (e: unknown) => {
    // The core checks the same rules; what it says about a field goes on that node and field.
    if (
      e instanceof ApiRequestError &&
      e.param &&
      (e.param === 'name' || e.param.startsWith('trigger') || stepIndexOf(e.param) !== null)
    ) {
      setServerErrors({ [e.param]: e.message });
      showProblem(e.param);
      return true;
    }
    setFormError(errorMessage(e));
    return true;
  };

  /** Saves the draft (a new workflow is created as one); null when it cannot be saved. */
  const saveDraft = async (): Promise<Workflow | null> => {
    if (first) {
      showProblem(first.param);
      return null;
    }
    const complete = withTypedAdded(draft);
    if (complete !== draft) edit(() => complete, null);
    const body = definitionOf(complete);
    const form = JSON.stringify(body);
    setFormError(null);
    if (!workflow) {
      const created = await api.workflows.create({ ...body, status: 'draft' });
      landed(created, form);
      // Its secret is shown once, where its webhook steps need it; its page opens after.
      if (hasWebhookStep(complete))
        setSecret({ id: created.id, secret: created.secret, rotated: false });
      else setOpenCreated(created.id);
      return created;
    }
    const fresh = await api.workflows.saveDraft(workflow.id, body);
    landed(fresh, form);
    return fresh;
  };

  // The workflow just created opens on its own page (the address said "new") once the builder
  // holds nothing unsaved, after the action (a save, or a save and its activation) ended.
  const opened = useRef<string | null>(null);
  useEffect(() => {
    if (!openCreated || dirty || busy || opened.current === openCreated) return;
    opened.current = openCreated;
    useRoute.getState().navigate('workflows', openCreated);
  }, [openCreated, dirty, busy]);

  const onSave = () =>
    void run(async () => {
      const fresh = await saveDraft();
      if (fresh && workflow) notify('success', `Saved the draft of “${fresh.name}”.`);
    }, refused);

  const onActivate = () =>
    void run(async () => {
      let target = workflow;
      if (!target || dirty) target = await saveDraft();
      if (!target) return;
      const active = await api.workflows.activate(target.id);
      landed(active, savedForm(draftFromWorkflow(active)));
      notify('success', `“${active.name}” is active: version ${active.version} starts runs.`);
    }, refused);

  const onDeactivate = () =>
    void run(async () => {
      if (!workflow) return;
      const paused = await api.workflows.deactivate(workflow.id);
      setWorkflow(paused);
      useWorkflows.getState().apply(paused);
      notify('success', `“${paused.name}” is paused: it starts no runs; runs in flight go on.`);
    }, refused);

  /** Puts a workflow's definition in the editor afresh (nothing to undo, nothing unsaved). */
  const reload = (fresh: Workflow) => {
    const next = draftFromWorkflow(fresh);
    history.getState().reset(next);
    setSelection(null);
    setServerErrors({});
    landed(fresh, savedForm(next));
  };

  const restore = async (version: number) => {
    if (!workflow) return;
    reload(await api.workflows.restoreVersion(workflow.id, version));
    setDialog(null);
    setRestoreAsk(null);
    notify('success', `Version ${version} is the draft now; activate it to run it.`);
  };

  // ---- view ---------------------------------------------------------------------------------
  const selectedIndex = selectedStep;
  const panelBody =
    selection?.kind === 'add' ? (
      <AddStep where={selection.where} onChoose={(type) => choose(selection.at, type)} />
    ) : selection?.kind === 'node' && selection.id === TRIGGER_NODE ? (
      <div className="wf-trigger-form" data-testid="wf-trigger-form">
        <header className="wf-panel-head">
          <h2 tabIndex={-1}>Trigger</h2>
          <p className="hint">What starts a run for a customer.</p>
        </header>
        <TriggerFields trigger={draft.trigger} onChange={editTrigger} error={triggerError} />
        {(byNode.get(TRIGGER_NODE) ?? [])
          .filter((p) => !TRIGGER_FIELDS.some((f) => under(p.param, f)))
          .map((p) => (
            <p key={p.message} className="field-error">
              {p.message}
            </p>
          ))}
        <button
          type="button"
          className="button button-small"
          onClick={() => add({ step: null }, 'right after the trigger')}
          data-testid="wf-trigger-add-step"
        >
          Add a step right after the trigger
        </button>
      </div>
    ) : selectedIndex >= 0 ? (
      <StepForm
        steps={draft.steps}
        index={selectedIndex}
        problems={byNode.get(draft.steps[selectedIndex]!.key) ?? []}
        onChange={(patch, param) => editStep(draft.steps[selectedIndex]!.key, patch, param)}
        onRename={(id) =>
          edit(
            (d) => ({ ...d, steps: renameStep(d.steps, d.steps[selectedIndex]!.key, id) }),
            `steps.${selectedIndex}.id`,
          )
        }
        onRemove={() => remove(draft.steps[selectedIndex]!.key)}
        onAdd={add}
      />
    ) : null;

  const hasDraft = !!workflow?.draft;
  const canActivate = !workflow || workflow.status !== 'active' || hasDraft || dirty;
  const title = draft.name.trim() || (workflow ? workflow.name : 'New workflow');

  return (
    <div
      className="screen screen-wide screen-fill wf-builder"
      data-testid="workflow-builder"
      data-workflow-id={workflow?.id}
      onKeyDown={onKeyDown}
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
          <span className="wf-status-line">
            {workflow ? <WorkflowStatusChip status={workflow.status} /> : null}
            <span data-testid="wf-status-line">{statusLine(workflow, dirty)}</span>
          </span>
        }
        actions={
          <div className="wf-actions">
            {hasDraft ? (
              <button
                type="button"
                className="button"
                {...gate}
                disabled={busy || gate.disabled}
                onClick={() => setDialog('discard-draft')}
                data-testid="wf-discard-draft"
              >
                Discard draft
              </button>
            ) : null}
            {workflow?.status === 'active' ? (
              <button
                type="button"
                className="button"
                {...gate}
                disabled={busy || gate.disabled}
                onClick={onDeactivate}
                data-testid="wf-deactivate"
              >
                Deactivate
              </button>
            ) : null}
            {/* Cancel only when there is something to cancel: a new workflow, or unsaved edits. */}
            {!workflow || dirty ? (
              <button
                type="button"
                className="button"
                onClick={() => useRoute.getState().navigate('workflows')}
                data-testid="wf-cancel"
              >
                Cancel
              </button>
            ) : null}
            <button
              type="button"
              className="button"
              {...gate}
              disabled={busy || gate.disabled || (!!workflow && !dirty)}
              onClick={onSave}
              data-testid="wf-save"
            >
              {busy ? 'Saving…' : 'Save draft'}
            </button>
            {canActivate ? (
              <button
                type="button"
                className="button button-primary"
                {...gate}
                disabled={busy || gate.disabled}
                onClick={onActivate}
                data-testid="wf-activate"
              >
                {hasDraft || (workflow?.status === 'active' && dirty)
                  ? 'Activate changes'
                  : 'Activate'}
              </button>
            ) : null}
          </div>
        }
      />

      {formError ? <ErrorBanner message={formError} testId="wf-form-error" /> : null}

      <div className="wf-toolbar">
        <div className="wf-name">
          <label htmlFor={fieldId('name')}>Name</label>
          <input
            className={`input${errorFor('name') ? ' invalid' : ''}`}
            value={draft.name}
            maxLength={200}
            placeholder="Orders after hours"
            onChange={(e) => {
              const name = e.target.value;
              edit((d) => ({ ...d, name }), 'name');
            }}
            onBlur={() => setNameVisited(true)}
            {...controlProps(fieldId('name'), errorFor('name'))}
          />
        </div>
        <div className="wf-history-buttons">
          {(
            [
              ['Undo', undo, canUndo, 'Control+Z'],
              ['Redo', redo, canRedo, 'Control+Shift+Z'],
            ] as const
          ).map(([label, onClick, can, keys]) => (
            <button
              key={label}
              type="button"
              className="button button-small"
              onClick={onClick}
              disabled={!can}
              aria-keyshortcuts={keys}
              data-testid={`wf-${label.toLowerCase()}`}
            >
              {label}
            </button>
          ))}
        </div>
        {workflow ? (
          <div className="wf-history-buttons">
            <button
              type="button"
              className="button button-small"
              onClick={() => setDialog('versions')}
              data-testid="wf-versions"
            >
              Versions
            </button>
            <a
              href={hrefFor('workflows', `${workflow.id}/runs`)}
              className="button button-small"
              data-testid="wf-runs-link"
            >
              Run history
            </a>
            {hasWebhookStep(draft) ? (
              <button
                type="button"
                className="button button-small"
                {...gate}
                onClick={() => setDialog('rotate-secret')}
                data-testid="wf-rotate-secret"
              >
                Rotate secret
              </button>
            ) : null}
          </div>
        ) : null}
        <p className="wf-problems" aria-live="polite" data-testid="wf-problems">
          {first ? (
            <>
              <span className="wf-problems-count">{plural(problems.length, 'problem')}</span> —{' '}
              <button
                type="button"
                className="link-button"
                onClick={() => showProblem(first.param)}
                data-testid="wf-show-problem"
              >
                show first
              </button>
            </>
          ) : (
            <span className="wf-problems-none">No problems</span>
          )}
        </p>
      </div>
      {errorFor('name') ? (
        <p className="field-error" id={`${fieldId('name')}-error`} data-testid="wf-name-error">
          {errorFor('name')}
        </p>
      ) : null}

      <div className={`wf-builder-body${selection ? ' has-selection' : ''}`}>
        <LazyWorkflowCanvas
          draft={draft}
          problems={problems}
          selected={selection?.kind === 'node' ? selection.id : null}
          onSelect={open}
          onAdd={add}
          onRemove={remove}
          names={names}
          panelId={PANEL_ID}
          label="The workflow: trigger and steps"
        />
        <aside
          className={`wf-panel card${selection ? '' : ' wf-panel-empty'}`}
          id={PANEL_ID}
          ref={panel}
          aria-label="Edit the selected step"
          data-testid="wf-panel"
        >
          {selection ? (
            <button
              type="button"
              className="icon-button wf-panel-close"
              onClick={closePanel}
              aria-label="Close the panel"
              data-testid="wf-panel-close"
            >
              <CloseIcon />
            </button>
          ) : null}
          {panelBody ?? (
            <p className="hint">
              Choose the trigger or a step on the canvas to edit it; press + on a path to add a step
              there.
            </p>
          )}
        </aside>
      </div>
      <p className="visually-hidden" aria-live="polite" data-testid="wf-announcement">
        {announcement}
      </p>

      {leaveDialog}
      {restoreAsk !== null ? (
        <DiscardDialog
          what="Restoring a version replaces the changes you have not saved."
          discardLabel={`Restore version ${restoreAsk}`}
          onKeep={() => setRestoreAsk(null)}
          onDiscard={() => void run(() => restore(restoreAsk), refused)}
        />
      ) : null}
      {dialog === 'versions' && workflow ? (
        <VersionHistory
          workflow={workflow}
          onClose={() => setDialog(null)}
          onRestore={async (version) => {
            if (dirty) setRestoreAsk(version);
            else await restore(version);
          }}
        />
      ) : null}
      {dialog === 'discard-draft' && workflow ? (
        <ConfirmDialog
          title="Discard the draft?"
          onClose={() => setDialog(null)}
          onConfirm={async () => reload(await api.workflows.discardDraft(workflow.id))}
          doneMessage={`The draft is gone; version ${workflow.version} is what you edit now.`}
          confirmLabel="Discard draft"
          busyLabel="Discarding…"
          testId="wf-discard-draft-dialog"
          confirmTestId="wf-discard-draft-confirm"
        >
          The changes saved as a draft go; the builder shows version {workflow.version} as it runs.
        </ConfirmDialog>
      ) : null}
      {dialog === 'rotate-secret' && workflow ? (
        <ConfirmDialog
          title="Rotate the signing secret?"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const rotated = await api.workflows.rotateSecret(workflow.id);
            setSecret({ id: rotated.id, secret: rotated.secret, rotated: true });
          }}
          doneMessage={`“${workflow.name}” signs with a new secret.`}
          confirmLabel="Rotate secret"
          busyLabel="Rotating…"
          testId="wf-rotate-secret-dialog"
          confirmTestId="wf-rotate-secret-confirm"
        >
          The webhook steps sign with a new secret from their next request on, and the old one stops
          working at once: your server needs the new one, which is shown once.
        </ConfirmDialog>
      ) : null}
      {secret ? (
        <SecretDialog
          secret={secret.secret}
          rotated={secret.rotated}
          onClose={() => {
            setSecret(null);
            if (!secret.rotated) {
              confirmLeave(() => useRoute.getState().navigate('workflows', secret.id));
            }
          }}
        />
      ) : null}
    </div>
  );
}
