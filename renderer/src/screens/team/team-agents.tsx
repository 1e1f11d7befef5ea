import { useState, type FormEvent } from 'react';
import { CAPACITY_MAX } from '../../../../shared/capacity.ts';
import type { TeamAgent } from '../../../../shared/schemas/together.ts';
import { errorMessage } from '../../api/client.ts';
import { Avatar } from '../../components/avatar.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { FormDialog } from '../../components/form-dialog.tsx';
import { ROLE_LABELS } from '../../components/member-labels.ts';
import { PRESENCE_LABELS, PresenceDot, WithPresence } from '../../components/presence-dot.tsx';
import { RowsTable } from '../../components/table.tsx';
import { useAction } from '../../components/use-action.ts';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { usePresence } from '../../stores/presence.ts';
import { selectMemberId, useSession } from '../../stores/session.ts';
import { useTeam } from '../../stores/team.ts';
import { notify } from '../../stores/toasts.ts';

/** The live presence once the stream's list is read; the team view's own answer before that. */
function useLiveStatus(agent: TeamAgent): TeamAgent['status'] {
  return usePresence((s) =>
    s.status === 'ready' ? (s.statuses[agent.id] ?? 'offline') : agent.status,
  );
}

const held = (agent: TeamAgent): number =>
  agent.conversations.open + agent.conversations.pending + agent.conversations.snoozed;

const conversationsWord = (n: number): string => (n === 1 ? 'conversation' : 'conversations');

/** Whether they take turns in auto-assignment, and if not, why. */
function turnsText(agent: TeamAgent): string {
  if (agent.autoAssignable) return 'Yes';
  if (!agent.active) return 'No: deactivated';
  if (agent.role !== 'agent') return 'No: assigns by hand';
  return 'No: capacity 0';
}

/** An agent's capacity, saved when the field is left or Enter is pressed. */
function CapacityField({ agent }: { agent: TeamAgent }) {
  const setCapacity = useTeam((s) => s.setCapacity);
  const [value, setValue] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = `team-capacity-${agent.id}`;
  const shown = value ?? String(agent.capacity);

  const save = async () => {
    if (value === null || busy) return;
    const capacity = Number(value);
    if (!/^\d+$/.test(value.trim()) || capacity > CAPACITY_MAX) {
      setError(`A whole number from 0 to ${CAPACITY_MAX}.`);
      return;
    }
    if (capacity === agent.capacity) {
      setValue(null);
      setError(null);
      return;
    }
    setBusy(true);
    try {
      await setCapacity(agent.id, capacity);
      setValue(null);
      setError(null);
      notify('success', `${agent.name} now takes up to ${capacity} open conversations.`);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="team-capacity">
      <input
        id={id}
        className={`input input-small team-capacity-input${error ? ' invalid' : ''}`}
        inputMode="numeric"
        value={shown}
        disabled={busy}
        aria-label={`Capacity of ${agent.name} (open conversations)`}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => {
          setValue(event.target.value);
          setError(null);
        }}
        onBlur={() => void save()}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            void save();
          } else if (event.key === 'Escape' && value !== null) {
            event.preventDefault();
            setValue(null);
            setError(null);
          }
        }}
        data-testid="team-capacity"
      />
      {error ? (
        <p className="field-error" id={`${id}-error`} data-testid="team-capacity-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function AgentRow({
  agent,
  isMe,
  onReassign,
}: {
  agent: TeamAgent;
  isMe: boolean;
  onReassign: (agent: TeamAgent) => void;
}) {
  const status = useLiveStatus(agent);
  const total = held(agent);
  return (
    <tr
      className={agent.active ? undefined : 'row-muted'}
      data-testid="team-agent-row"
      data-member-id={agent.id}
      data-status={status}
    >
      <td>
        <span className="menu-person">
          <WithPresence memberId={agent.id} status={status}>
            <Avatar name={agent.name} colorKey={agent.id} size="small" />
          </WithPresence>
          <span className="menu-person-text">
            <span className="cell-strong" data-testid="team-agent-name">
              {agent.name}
              {isMe ? <span className="muted"> (you)</span> : null}
            </span>
            <span className="muted small">
              {ROLE_LABELS[agent.role]}
              {agent.active ? '' : ' · deactivated'}
            </span>
          </span>
        </span>
      </td>
      <td className="nowrap" data-testid="team-agent-status">
        <span className="team-status">
          <PresenceDot status={status} spoken={false} />
          {PRESENCE_LABELS[status]}
        </span>
      </td>
      <td className="num" data-testid="team-agent-open">
        {agent.conversations.open}
      </td>
      <td className="num" data-testid="team-agent-pending">
        {agent.conversations.pending}
      </td>
      <td className="num" data-testid="team-agent-snoozed">
        {agent.conversations.snoozed}
      </td>
      <td>
        {agent.role === 'agent' ? (
          <CapacityField key={agent.capacity} agent={agent} />
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="nowrap" data-testid="team-agent-turns">
        {turnsText(agent)}
      </td>
      <td className="col-actions">
        <button
          type="button"
          className="button button-small"
          disabled={total === 0}
          title={
            total === 0
              ? 'Nothing to reassign: no open, pending or snoozed conversations.'
              : undefined
          }
          aria-label={`Reassign all of ${agent.name}’s conversations`}
          onClick={() => onReassign(agent)}
          data-testid="team-reassign"
        >
          Reassign all…
        </button>
      </td>
    </tr>
  );
}

/** Where "Reassign all" sends an agent's conversations: a teammate, in turn, or nobody. */
function ReassignDialog({ agent, onClose }: { agent: TeamAgent; onClose: () => void }) {
  const agents = useTeam((s) => s.agents.data);
  const reassignAll = useTeam((s) => s.reassignAll);
  const statuses = usePresence((s) => s.statuses);
  const [to, setTo] = useState('round_robin');
  const { busy, error, run } = useAction();
  const others = agents.filter((a) => a.active && a.id !== agent.id);
  const total = held(agent);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const result = await reassignAll(agent.id, to);
      const left = result.unassigned > 0 ? `, ${result.unassigned} left unassigned` : '';
      notify(
        'success',
        `Moved ${result.moved} ${conversationsWord(result.moved)} from ${agent.name}${left}.`,
      );
      onClose();
    });
  };

  return (
    <FormDialog
      title={`Reassign all of ${agent.name}’s conversations`}
      onClose={onClose}
      onSubmit={submit}
      submitLabel={busy ? 'Reassigning…' : `Reassign ${total} ${conversationsWord(total)}`}
      submitTestId="team-reassign-confirm"
      busy={busy}
      error={error}
      size="small"
      testId="team-reassign-dialog"
      lead={
        <p className="dialog-lead">
          {agent.name} holds {agent.conversations.open} open, {agent.conversations.pending} pending
          and {agent.conversations.snoozed} snoozed. All of them move at once; resolved ones keep
          their assignee. Each new assignee is notified.
        </p>
      }
    >
      <div className="field">
        <label htmlFor="team-reassign-to">Move them to</label>
        <select
          id="team-reassign-to"
          className="select"
          value={to}
          onChange={(event) => setTo(event.target.value)}
          data-testid="team-reassign-to"
        >
          <option value="round_robin">
            In turn, to the online agents with room (the rest unassigned)
          </option>
          <option value="unassigned">Nobody: leave them unassigned</option>
          {others.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name} ({PRESENCE_LABELS[statuses[a.id] ?? a.status].toLowerCase()})
            </option>
          ))}
        </select>
      </div>
    </FormDialog>
  );
}

/**
 * The admin's view of the team (README "Working together"): who is online, what each holds, how
 * much auto-assignment gives each agent, and "Reassign all" for one who leaves for the day.
 */
export function TeamAgents() {
  const { data: agents, status, error } = useTeam((s) => s.agents);
  const load = useTeam((s) => s.loadAgents);
  const meId = useSession(selectMemberId);
  const [reassigning, setReassigning] = useState<TeamAgent | null>(null);

  useLoadWhenIdle(status, load);

  return (
    <section className="card card-flush" aria-labelledby="team-agents-title">
      <div className="card-header">
        <div>
          <h2 className="card-title" id="team-agents-title">
            The team now
          </h2>
          <p className="hint">
            Conversations each member holds in this mode. Capacity is how many open ones
            auto-assignment gives an agent at most.
          </p>
        </div>
      </div>
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
      <RowsTable
        hasRows={agents.length > 0}
        empty={status === 'ready' ? 'No members yet.' : 'Loading the team…'}
        emptyTestId="team-agents-empty"
        testId="team-agents"
        columns={[
          'Member',
          'Status',
          { label: 'Open', className: 'num' },
          { label: 'Pending', className: 'num' },
          { label: 'Snoozed', className: 'num' },
          'Capacity',
          'Takes turns',
        ]}
        actions
      >
        {agents.map((agent) => (
          <AgentRow
            key={agent.id}
            agent={agent}
            isMe={agent.id === meId}
            onReassign={setReassigning}
          />
        ))}
      </RowsTable>
      {reassigning ? (
        <ReassignDialog agent={reassigning} onClose={() => setReassigning(null)} />
      ) : null}
    </section>
  );
}
