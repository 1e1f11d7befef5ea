import { MAX_LABEL_LENGTH, MAX_LABELS, splitLabels } from '../../../../shared/labels.ts';
import { useState, type FormEvent } from 'react';
import { api, errorMessage, type PatchConversation } from '../../api/client.ts';
import { isAssignable, useAgents } from '../../stores/agents.ts';
import { selectMemberId, useSession } from '../../stores/session.ts';
import { conversationTitle, knownConversation, useInbox } from '../../stores/inbox.ts';
import './inbox-list.css';

/** Requests in flight at once: quick for a page of rows, gentle on the core. */
const CONCURRENCY = 4;

interface Failure {
  id: string;
  title: string;
  message: string;
}

interface Job {
  verb: string;
  total: number;
  done: number;
  failures: Failure[];
  running: boolean;
}

/**
 * Applies one change to every ticked conversation through the ordinary PATCH endpoint, a few at
 * a time, with progress and each failure named (one conversation's error does not stop the rest).
 * The list follows by itself through the conversation.updated events.
 */
export function BulkBar() {
  const selection = useInbox((s) => s.selection);
  const clearSelection = useInbox((s) => s.clearSelection);
  const agents = useAgents((s) => s.agents);
  const meId = useSession(selectMemberId);
  const [job, setJob] = useState<Job | null>(null);
  const [label, setLabel] = useState('');

  if (selection.size === 0 && !job) return null;

  const run = async (verb: string, body: PatchConversation) => {
    const ids = [...selection];
    const failures: Failure[] = [];
    let done = 0;
    setJob({ verb, total: ids.length, done, failures: [], running: true });
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < ids.length) {
        const id = ids[next++]!;
        const known = knownConversation(id);
        try {
          const updated = await api.conversations.patch(id, body);
          useInbox.getState().apply(updated);
        } catch (e) {
          failures.push({
            id,
            title: known ? conversationTitle(known) : id,
            message: errorMessage(e),
          });
        }
        done += 1;
        setJob({ verb, total: ids.length, done, failures: [...failures], running: true });
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, worker));
    setJob({ verb, total: ids.length, done, failures, running: false });
    // What failed stays ticked, ready for another try.
    const failed = new Set(failures.map((f) => f.id));
    useInbox.setState({ selection: failed, selectionAnchor: null });
  };

  const addLabel = (event: FormEvent) => {
    event.preventDefault();
    // The one label rule (commas or semicolons separate); the server merges them with each
    // conversation's current labels, so none set meanwhile by someone else is lost.
    const labels = splitLabels(label);
    if (labels.length === 0) return;
    setLabel('');
    void run(`Labelling “${labels.join(', ')}”`, { addLabels: labels });
  };

  const running = job?.running ?? false;
  return (
    <div className="bulk-bar" role="region" aria-label="Bulk actions" data-testid="bulk-bar">
      {selection.size > 0 ? (
        <div className="bulk-bar-actions">
          <span className="bulk-bar-count" data-testid="bulk-count">
            {selection.size} selected
          </span>
          <button
            type="button"
            className="button button-small"
            disabled={running}
            onClick={() => void run('Resolving', { status: 'resolved' })}
            data-testid="bulk-resolve"
          >
            Resolve
          </button>
          <select
            className="input input-small bulk-assign"
            aria-label="Assign the selected conversations"
            value=""
            disabled={running}
            onChange={(event) => {
              const value = event.target.value;
              if (!value) return;
              const assignee = value === 'none' ? null : value;
              const name = assignee ? agents.find((a) => a.id === assignee)?.name : null;
              void run(name ? `Assigning to ${name}` : 'Unassigning', { assignee });
            }}
            data-testid="bulk-assign"
          >
            <option value="">Assign…</option>
            {agents.filter(isAssignable).map((a) => (
              <option key={a.id} value={a.id}>
                {a.id === meId ? `${a.name} (me)` : a.name}
              </option>
            ))}
            <option value="none">Unassigned</option>
          </select>
          <form className="bulk-label" onSubmit={addLabel}>
            <input
              className="input input-small"
              value={label}
              placeholder="Label"
              aria-label="Label to add to the selected conversations"
              maxLength={MAX_LABELS * (MAX_LABEL_LENGTH + 2)}
              disabled={running}
              onChange={(event) => setLabel(event.target.value)}
              data-testid="bulk-label-input"
            />
            <button
              type="submit"
              className="button button-small"
              disabled={running || !label.trim()}
              data-testid="bulk-label-add"
            >
              Add label
            </button>
          </form>
          <button
            type="button"
            className="link-button bulk-clear"
            disabled={running}
            onClick={() => {
              clearSelection();
              setJob(null);
            }}
            data-testid="bulk-clear"
          >
            Clear
          </button>
        </div>
      ) : null}
      {job ? (
        <div className="bulk-progress" data-testid="bulk-progress">
          <div className="bulk-progress-line">
            <span role="status" data-testid="bulk-status">
              {job.running
                ? `${job.verb}: ${job.done} of ${job.total}…`
                : `${job.verb}: ${job.total - job.failures.length} of ${job.total} done` +
                  (job.failures.length ? `, ${job.failures.length} failed` : '')}
            </span>
            {!job.running ? (
              <button
                type="button"
                className="link-button"
                onClick={() => setJob(null)}
                data-testid="bulk-dismiss"
              >
                Dismiss
              </button>
            ) : null}
          </div>
          <progress
            className="bulk-progress-bar"
            max={job.total}
            value={job.done}
            aria-label={`${job.verb} progress`}
          />
          {job.failures.length > 0 ? (
            <ul className="bulk-failures" data-testid="bulk-failures">
              {job.failures.map((f) => (
                <li key={f.id} data-testid="bulk-failure">
                  <strong>{f.title}</strong>: {f.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
