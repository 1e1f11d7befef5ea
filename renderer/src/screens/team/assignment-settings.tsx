import type { ReactNode } from 'react';
import { CheckField } from '../../components/check-field.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { FormError } from '../../components/form-error.tsx';
import { useRightGate } from '../../components/needs-right.tsx';
import { useAction } from '../../components/use-action.ts';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { notify } from '../../stores/toasts.ts';
import { useWorkspaceSettings } from '../../stores/workspace-settings.ts';

type AssignmentSetting = 'autoAssign' | 'assignOnFirstReply';

const SAVED: Record<AssignmentSetting, [on: string, off: string]> = {
  autoAssign: ['Auto-assignment is on.', 'Auto-assignment is off.'],
  assignOnFirstReply: [
    'A first reply now assigns the conversation.',
    'A first reply no longer assigns the conversation.',
  ],
};

/**
 * How new work finds an agent: round-robin auto-assignment, and assign on first reply. Settings
 * → Team and Settings → Workspace both show it (one record, one card).
 */
export function AssignmentSettings({
  title = 'Assignment',
  children,
}: {
  title?: string;
  /** Under the settings, in the card. */
  children?: ReactNode;
}) {
  const { data: settings, status, error: loadError } = useWorkspaceSettings((s) => s.settings);
  const load = useWorkspaceSettings((s) => s.load);
  const update = useWorkspaceSettings((s) => s.update);
  const { gate } = useRightGate('workspace.manage');
  const { busy, error, run } = useAction();

  useLoadWhenIdle(status, load);

  const change = (key: AssignmentSetting, on: boolean) =>
    run(async () => {
      await update({ [key]: on });
      notify('success', SAVED[key][on ? 0 : 1]);
    });

  return (
    <section className="card" aria-labelledby="team-assignment-title" data-testid="team-assignment">
      <h2 className="card-title" id="team-assignment-title">
        {title}
      </h2>
      {settings ? (
        <div className="form-stack">
          <CheckField
            id="team-auto-assign"
            label="Assign new conversations automatically"
            checked={settings.autoAssign}
            disabled={busy}
            gate={gate}
            onChange={(on) => void change('autoAssign', on)}
            help={
              <>
                A customer’s message to an unassigned conversation goes to the next online agent
                with room (under their capacity), in turn. Admins and the owner do not take turns.
                With nobody online and free, it waits unassigned until the customer writes again.
              </>
            }
          />
          <CheckField
            id="team-assign-on-first-reply"
            label="Assign a conversation to whoever replies first"
            checked={settings.assignOnFirstReply}
            disabled={busy}
            gate={gate}
            onChange={(on) => void change('assignOnFirstReply', on)}
            help="A member’s reply to an unassigned conversation assigns it to them. Private notes do not."
          />
          <FormError error={error} testId="team-assignment-error" />
          {children}
        </div>
      ) : status === 'error' && loadError ? (
        <ErrorBanner message={loadError} onRetry={() => void load()} />
      ) : (
        <p className="hint" aria-busy="true">
          Loading…
        </p>
      )}
    </section>
  );
}
