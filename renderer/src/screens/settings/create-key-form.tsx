import { useState, type FormEvent } from 'react';
import type { CreatedKey } from '../../../../shared/schemas/index.ts';
import { ApiRequestError, errorMessage, type Environment } from '../../api/client.ts';
import { FormError } from '../../components/form-error.tsx';
import { useKeys } from '../../stores/keys.ts';

interface CreateKeyFormProps {
  defaultEnvironment: Environment;
  onCreated: (key: CreatedKey) => void;
}

export function CreateKeyForm({ defaultEnvironment, onCreated }: CreateKeyFormProps) {
  const create = useKeys((s) => s.create);
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<Environment>(defaultEnvironment);
  const [busy, setBusy] = useState(false);
  const [nameError, setNameError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNameError(null);
    setFormError(null);
    if (!name.trim()) {
      setNameError('Give the key a name, e.g. the app or person that will use it.');
      return;
    }
    setBusy(true);
    try {
      const created = await create({ name: name.trim(), environment });
      setName('');
      onCreated(created);
    } catch (e) {
      if (e instanceof ApiRequestError && e.param === 'name') setNameError(e.message);
      else setFormError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form-row" onSubmit={submit} noValidate data-testid="create-key-form">
      <div className="field field-grow">
        <label htmlFor="key-name">Key name</label>
        <input
          id="key-name"
          className={`input${nameError ? ' invalid' : ''}`}
          value={name}
          maxLength={100}
          placeholder="e.g. Shop backend"
          autoComplete="off"
          aria-invalid={nameError ? true : undefined}
          aria-describedby={nameError ? 'key-name-error' : undefined}
          onChange={(event) => setName(event.target.value)}
          data-testid="key-name"
        />
        {nameError ? (
          <p id="key-name-error" className="field-error">
            {nameError}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="key-environment">Environment</label>
        <select
          id="key-environment"
          className="select"
          value={environment}
          onChange={(event) => setEnvironment(event.target.value === 'live' ? 'live' : 'test')}
          data-testid="key-environment"
        >
          <option value="test">Test</option>
          <option value="live">Live</option>
        </select>
      </div>
      <div className="field field-action">
        <button
          type="submit"
          className="button button-primary"
          disabled={busy}
          data-testid="create-key"
        >
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
      <FormError error={formError} />
    </form>
  );
}
