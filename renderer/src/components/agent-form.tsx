import { useId, useState, type FormEvent } from 'react';
import type { Agent } from '../../../shared/schemas/index.ts';
import { ApiRequestError, errorMessage } from '../api/client.ts';
import { useAgents } from '../stores/agents.ts';
import { FormError } from './form-error.tsx';

interface AgentFormProps {
  submitLabel: string;
  /** Called with the new agent once created (and chosen, when `actAs`). */
  onCreated?: (agent: Agent) => void;
  /** Whether the desk acts as the new agent at once (adding yourself). */
  actAs?: boolean;
  onCancel?: () => void;
  autoFocus?: boolean;
}

/** Name and email of a new agent (POST /agents); the API's message shows beside its field. */
export function AgentForm({
  submitLabel,
  onCreated,
  actAs = true,
  onCancel,
  autoFocus,
}: AgentFormProps) {
  const create = useAgents((s) => s.create);
  const choose = useAgents((s) => s.choose);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const formId = useId();
  const [error, setError] = useState<{ message: string; param?: string | undefined } | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setError(null);
    setBusy(true);
    try {
      const agent = await create({ name: name.trim(), email: email.trim() });
      if (actAs) choose(agent.id);
      onCreated?.(agent);
    } catch (e) {
      setError({
        message: errorMessage(e),
        param: e instanceof ApiRequestError ? e.param : undefined,
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form-stack agent-form" onSubmit={submit} noValidate data-testid="agent-form">
      <div className="field">
        <label htmlFor={`${formId}-name`}>Name</label>
        <input
          id={`${formId}-name`}
          className="input"
          value={name}
          autoComplete="name"
          placeholder="Ann Lee"
          autoFocus={autoFocus}
          aria-invalid={error?.param === 'name'}
          onChange={(event) => setName(event.target.value)}
          data-testid="agent-name"
        />
      </div>
      <div className="field">
        <label htmlFor={`${formId}-email`}>Email</label>
        <input
          id={`${formId}-email`}
          className="input"
          type="email"
          value={email}
          autoComplete="email"
          placeholder="ann@example.com"
          aria-invalid={error?.param === 'email'}
          onChange={(event) => setEmail(event.target.value)}
          data-testid="agent-email"
        />
      </div>
      <FormError error={error?.message ?? null} testId="agent-error" />
      <div className="agent-form-actions">
        {onCancel ? (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
        <button
          type="submit"
          className="button button-primary"
          disabled={busy || !name.trim() || !email.trim()}
          data-testid="agent-submit"
        >
          {busy ? 'Adding…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
