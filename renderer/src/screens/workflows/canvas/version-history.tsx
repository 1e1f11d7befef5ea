/**
 * A workflow's versions, newest first: each activation's name, trigger and steps, when and by
 * whom; "Restore as draft" puts one in the draft (the active version keeps running until the
 * draft is activated).
 */
import { useEffect, useState } from 'react';
import { api, errorMessage, type Workflow } from '../../../api/client.ts';
import type { WorkflowVersion } from '../../../../../shared/schemas/workflows.ts';
import { Dialog } from '../../../components/dialog.tsx';
import { FormError } from '../../../components/form-error.tsx';
import { formatDateTime, plural } from '../../../components/format.ts';
import { useAction } from '../../../components/use-action.ts';
import { useRightGate } from '../../../components/needs-right.tsx';
import { draftFromDefinition } from '../workflow-definition.ts';
import { triggerSummary, triggerTitle } from './flow-words.ts';

const byWhom = (v: WorkflowVersion): string =>
  v.activatedBy?.name ??
  (v.activatedBy?.kind === 'api_key' ? 'an API key' : v.activatedBy ? 'Parley' : 'someone');

export function VersionHistory({
  workflow,
  onClose,
  onRestore,
}: {
  workflow: Workflow;
  onClose: () => void;
  /** Restores a version as the draft (after asking, when the editor has unsaved changes). */
  onRestore: (version: number) => Promise<void>;
}) {
  const [versions, setVersions] = useState<WorkflowVersion[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const { gate } = useRightGate('automation.write');

  useEffect(() => {
    let live = true;
    api.workflows.versions(workflow.id).then(
      (page) => live && setVersions(page.data),
      (e: unknown) => live && setLoadError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [workflow.id]);

  return (
    <Dialog
      title={`Versions of “${workflow.name}”`}
      onClose={onClose}
      dismissible={!busy}
      testId="wf-versions-dialog"
      footer={
        <button type="button" className="button" onClick={onClose} disabled={busy}>
          Close
        </button>
      }
    >
      <p className="dialog-lead">
        Each activation saves a version. Restoring one makes it the draft: the active version keeps
        running until you activate the draft.
      </p>
      <FormError error={loadError ?? error} testId="wf-versions-error" />
      {versions === null && !loadError ? <p className="hint">Loading versions…</p> : null}
      {versions?.length === 0 ? (
        <p className="hint" data-testid="wf-versions-none">
          No version yet: it has never been activated.
        </p>
      ) : null}
      {versions && versions.length > 0 ? (
        <ol className="wf-versions" data-testid="wf-versions">
          {versions.map((v) => {
            const trigger = draftFromDefinition(v).trigger;
            const live = v.version === workflow.version && workflow.status === 'active';
            return (
              <li
                key={v.version}
                className="wf-version"
                data-testid="wf-version"
                data-version={v.version}
              >
                <div>
                  <strong>
                    Version {v.version}
                    {live ? <span className="badge wstatus-active">Running</span> : null}
                  </strong>
                  <div>
                    {v.name} · {triggerTitle(trigger)} ({triggerSummary(trigger)}) ·{' '}
                    {plural(v.steps.length, 'step')}
                  </div>
                  <div className="hint">
                    Activated {formatDateTime(v.activatedAt)} by {byWhom(v)}
                  </div>
                </div>
                <button
                  type="button"
                  className="button button-small"
                  {...gate}
                  disabled={busy || gate.disabled}
                  onClick={() => void run(() => onRestore(v.version))}
                  data-testid="wf-version-restore"
                >
                  Restore as draft<span className="visually-hidden"> (version {v.version})</span>
                </button>
              </li>
            );
          })}
        </ol>
      ) : null}
    </Dialog>
  );
}
