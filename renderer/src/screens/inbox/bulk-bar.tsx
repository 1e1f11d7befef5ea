import { MAX_LABEL_LENGTH, MAX_LABELS, splitLabels } from '../../../../shared/labels.ts';
import { useEffect, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { api, errorMessage, type PatchConversation } from '../../api/client.ts';
import { isAssignable, useAgents } from '../../stores/agents.ts';
import { selectMemberId, useSession } from '../../stores/session.ts';
import { conversationTitle, knownConversation, useInbox } from '../../stores/inbox.ts';
import './inbox-list.css';

/** Requests in flight at once: quick for a page of rows, gentle on the core. */
const CONCURRENCY = 4;
/** A run that went through leaves its report this long after it ends (one that failed stays). */
export const BULK_DONE_VISIBLE_MS = 4000;

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
 * The list follows by itself through the conversation.updated events. The selection outlives a
 * run (label, then assign, with one selection): it ends with Clear selection or Escape, and a row
 * leaves it when it leaves the list (a resolved one leaves the Open tab).
 *
 * The bar floats over the list's lower edge, so ticking a row never moves the rows; `onHeight`
 * reports its height (0 when hidden) so the list can scroll its last rows out from under it.
 */
export function BulkBar({ onHeight }: { onHeight: (height: number) => void }) {
  const selection = useInbox((s) => s.selection);
  const clearSelection = useInbox((s) => s.clearSelection);
  const agents = useAgents((s) => s.agents);
  const meId = useSession(selectMemberId);
  const [job, setJob] = useState<Job | null>(null);
  const [label, setLabel] = useState('');
  const bar = useRef<HTMLDivElement>(null);
  const shown = selection.size > 0 || job !== null;

  // A run that went through reports it, then leaves by itself; a failure stays until dismissed.
  const settled = job !== null && !job.running && job.failures.length === 0;
  useEffect(() => {
    if (!settled) return;
    const timer = window.setTimeout(() => setJob(null), BULK_DONE_VISIBLE_MS);
    return () => window.clearTimeout(timer);
  }, [settled, job]);

  useLayoutEffect(() => {
    const element = bar.current;
    if (!shown || !element) {
      onHeight(0);
      return;
    }
    const observer = new ResizeObserver(() => onHeight(element.offsetHeight));
    observer.observe(element);
    onHeight(element.offsetHeight);
    return () => observer.disconnect();
  }, [shown, onHeight]);

  if (!shown) return null;

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
    // The selection stays as it is, ready for the next action (or another try of what failed).
    setJob({ verb, total: ids.length, done, failures, running: false });
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
    <div
      ref={bar}
      className="bulk-bar"
      role="region"
      aria-label="Bulk actions"
      data-testid="bulk-bar"
    >
      {selection.size > 0 ? (
        <div className="bulk-bar-actions">
          <div className="bulk-bar-line">
            <span className="bulk-bar-count" data-testid="bulk-count">
              {selection.size} selected
            </span>
            <button
              type="button"
              className="link-button bulk-clear"
              disabled={running}
              onClick={() => {
                clearSelection();
                setJob(null);
              }}
              title="Clear selection (Esc)"
              aria-keyshortcuts="Escape"
              data-testid="bulk-clear"
            >
              Clear selection
            </button>
            <button
              type="button"
              className="button button-small bulk-resolve"
              disabled={running}
              onClick={() => void run('Resolving', { status: 'resolved' })}
              data-testid="bulk-resolve"
            >
              Resolve
            </button>
          </div>
          <div className="bulk-bar-line">
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
                aria-label="Add the label"
                data-testid="bulk-label-add"
              >
                Add
              </button>
            </form>
          </div>
        </div>
      ) : null}
      {job ? (
        <div
          className="bulk-progress"
          data-testid="bulk-progress"
          data-auto-dismiss-ms={settled ? BULK_DONE_VISIBLE_MS : undefined}
        >
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
