import { AgentForm } from '../../components/agent-form.tsx';
import { PersonIcon } from '../../components/icons.tsx';

/** First run: the workspace has no agents, so the desk asks who is answering. */
export function AgentSetupCard() {
  return (
    <div className="agent-setup" data-testid="agent-setup">
      <div className="agent-setup-card">
        <span className="inbox-placeholder-icon" aria-hidden="true">
          <PersonIcon />
        </span>
        <h2>Add yourself as an agent</h2>
        <p className="muted">
          Replies, notes and assignments are signed with an agent. Add yourself to start answering
          customers; teammates can be added later from the top bar.
        </p>
        <AgentForm submitLabel="Add me and start" autoFocus />
      </div>
    </div>
  );
}
