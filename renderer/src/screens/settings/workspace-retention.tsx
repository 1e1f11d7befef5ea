import type { RetentionKind } from '../../api/client.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { plural } from '../../components/format.ts';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useWorkspaceSettings } from '../../stores/workspace-settings.ts';

/** What each period keeps, in the words of README "Retention". */
const KIND_WORDS: Readonly<Record<RetentionKind, string>> = {
  events: 'Events (the live stream’s history, webhook payloads)',
  deliveries: 'Webhook delivery log',
  deadJobs: 'Background jobs that failed for good',
  businessEvents: 'Business events sent to workflows (kept for de-duplication)',
  workflowRuns: 'Ended workflow runs and their steps',
  emailBodies: 'Bodies of transactional emails once sent (the record stays)',
  webhookRejects: 'WhatsApp webhook items that could not be read',
  media: 'Media files: photos, voice notes, documents (the message stays)',
};

const days = (n: number) => plural(n, 'day');

/**
 * Retention, read-only: the periods are the desk's, for every workspace in its data folder, and
 * whoever runs Parley sets them where it starts (environment variables). A workspace cannot
 * change how long a shared store keeps its history, so this says what they are and how.
 */
export function RetentionSection() {
  const { data, status, error } = useWorkspaceSettings((s) => s.retention);
  const load = useWorkspaceSettings((s) => s.loadRetention);
  useLoadWhenIdle(status, load);

  return (
    <section
      className="card card-flush"
      aria-labelledby="ws-retention-title"
      data-testid="ws-retention"
    >
      <div className="card-header">
        <h2 className="card-title" id="ws-retention-title">
          Retention
        </h2>
      </div>
      <p className="hint ws-retention-note">
        How long this desk keeps history that only grows. The periods apply to every workspace on
        this computer and are set by whoever runs Parley, with an environment variable when it
        starts (for example <code>PARLEY_RETENTION_EVENTS_DAYS=60</code>), so they are shown here,
        not changed. Contacts, conversations, messages, campaigns and the wallet ledger are kept
        until you delete them.
      </p>
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
      {data ? (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">What</th>
                <th scope="col">Kept</th>
                <th scope="col">Set by</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((r) => (
                <tr key={r.kind} data-testid="ws-retention-row" data-kind={r.kind}>
                  <td>{KIND_WORDS[r.kind]}</td>
                  <td>
                    {days(r.days)}
                    {r.days !== r.defaultDays ? (
                      <span className="muted"> (default {days(r.defaultDays)})</span>
                    ) : null}
                  </td>
                  <td>
                    <code>{r.variable}</code>
                  </td>
                </tr>
              ))}
              {data.fixed.map((r) => (
                <tr key={r.what} data-testid="ws-retention-row">
                  <td>{r.what[0]!.toUpperCase() + r.what.slice(1)}</td>
                  <td>{days(r.days)}</td>
                  <td className="muted">Fixed</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : status !== 'error' ? (
        <p className="hint ws-retention-note" aria-busy="true">
          Loading…
        </p>
      ) : null}
    </section>
  );
}
