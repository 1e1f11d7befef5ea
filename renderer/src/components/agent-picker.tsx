import { useState } from 'react';
import { selectMe, useAgents } from '../stores/agents.ts';
import { AgentForm } from './agent-form.tsx';
import { Avatar } from './avatar.tsx';
import { Dialog } from './dialog.tsx';
import { Dropdown, MenuButton } from './dropdown.tsx';
import { PlusIcon } from './icons.tsx';

/** "Who am I" in the top bar: the agent this desk replies and assigns as, switchable. */
export function AgentPicker() {
  const agents = useAgents((s) => s.agents);
  const status = useAgents((s) => s.status);
  const me = useAgents(selectMe);
  const choose = useAgents((s) => s.choose);
  const [adding, setAdding] = useState(false);

  if (status !== 'ready') return null;

  return (
    <>
      {me ? (
        <Dropdown
          align="right"
          className="agent-trigger"
          // No label of its own: the name is what the button shows ("Agent Ann Lee"), so speech
          // input can say it; aria-haspopup tells that it opens the switch.
          testId="agent-picker"
          trigger={
            <>
              <Avatar name={me.name} colorKey={me.id} size="small" />
              <span className="agent-trigger-text">
                <span className="agent-trigger-label">Agent</span>{' '}
                <span className="agent-trigger-name" data-testid="current-agent">
                  {me.name}
                </span>
              </span>
              <span className="caret" aria-hidden="true" />
            </>
          }
        >
          {(close) => (
            <>
              <div className="menu-heading">Reply and assign as</div>
              <div className="menu-scroll">
                {agents.map((agent) => (
                  <MenuButton
                    key={agent.id}
                    checked={agent.id === me.id}
                    onSelect={() => {
                      choose(agent.id);
                      close();
                    }}
                    testId="agent-option"
                  >
                    <span className="menu-person">
                      <Avatar name={agent.name} colorKey={agent.id} size="small" />
                      <span className="menu-person-text">
                        <span className="truncate">{agent.name}</span>
                        <span className="muted small truncate">{agent.email}</span>
                      </span>
                    </span>
                  </MenuButton>
                ))}
              </div>
              <div className="menu-section">
                <MenuButton
                  onSelect={() => {
                    close();
                    setAdding(true);
                  }}
                  testId="add-agent"
                >
                  Add agent…
                </MenuButton>
              </div>
            </>
          )}
        </Dropdown>
      ) : (
        <button
          type="button"
          className="button button-small"
          onClick={() => setAdding(true)}
          data-testid="add-agent"
        >
          <PlusIcon />
          Add agent
        </button>
      )}
      {adding ? (
        <Dialog
          title="Add an agent"
          onClose={() => setAdding(false)}
          size="small"
          testId="add-agent-dialog"
        >
          <p className="dialog-lead">
            Agents reply to customers and take conversations. The desk acts as the new agent once
            added; switch back any time from this menu.
          </p>
          <AgentForm
            submitLabel="Add agent"
            onCreated={() => setAdding(false)}
            onCancel={() => setAdding(false)}
            autoFocus
          />
        </Dialog>
      ) : null}
    </>
  );
}
