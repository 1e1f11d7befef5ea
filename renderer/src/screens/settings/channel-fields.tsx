import type { ReactNode } from 'react';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { channelFieldId, type Provider, type SecretMode } from './channel-draft.ts';

interface TextSettingProps {
  param: string;
  label: ReactNode;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
  hint?: ReactNode;
  placeholder?: string;
  type?: 'text' | 'url';
  inputMode?: 'numeric';
  mono?: boolean;
}

export function TextSetting({
  param,
  label,
  value,
  error,
  onChange,
  hint,
  placeholder,
  type = 'text',
  inputMode,
  mono = false,
}: TextSettingProps) {
  const id = channelFieldId(param);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        inputMode={inputMode}
        className={`input${mono ? ' mono' : ''}${error ? ' invalid' : ''}`}
        value={value}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
        {...errorAria(id, error, hint && !error ? `${id}-hint` : undefined)}
        onChange={(event) => onChange(event.target.value)}
        data-testid={id}
      />
      <FieldError fieldId={id} message={error} />
      {hint && !error ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

interface SecretSettingProps {
  param: string;
  label: string;
  /** One is saved (the core never sends it back). */
  isSet: boolean;
  mode: SecretMode;
  value: string;
  error: string | undefined;
  onMode: (mode: SecretMode) => void;
  onChange: (value: string) => void;
  hint?: ReactNode;
}

/** A write-only secret: "set" or "not set", kept unless the user replaces it. */
export function SecretSetting({
  param,
  label,
  isSet,
  mode,
  value,
  error,
  onMode,
  onChange,
  hint,
}: SecretSettingProps) {
  const id = channelFieldId(param);
  const state = (
    <span
      className={`badge ${isSet ? 'channel-secret-set' : 'channel-secret-unset'}`}
      data-testid={`${id}-state`}
    >
      {isSet ? 'Set' : 'Not set'}
    </span>
  );
  if (isSet && mode === 'keep') {
    return (
      <div className="field">
        <span className="field-label" id={`${id}-label`}>
          {label}
        </span>
        <div className="channel-secret-row" role="group" aria-labelledby={`${id}-label`}>
          {state}
          <span className="hint">Saved, and never shown again.</span>
          <button
            type="button"
            className="button button-small"
            onClick={() => onMode('replace')}
            data-testid={`${id}-replace`}
          >
            Replace
          </button>
        </div>
        {hint ? <p className="hint">{hint}</p> : null}
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>
        {label} {state}
      </label>
      <input
        id={id}
        type="password"
        className={`input${error ? ' invalid' : ''}`}
        value={value}
        spellCheck={false}
        autoComplete="new-password"
        {...errorAria(id, error, hint && !error ? `${id}-hint` : undefined)}
        onChange={(event) => onChange(event.target.value)}
        data-testid={id}
      />
      <FieldError fieldId={id} message={error} />
      {hint && !error ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {isSet ? (
        <p>
          <button
            type="button"
            className="link-button"
            onClick={() => onMode('keep')}
            data-testid={`${id}-keep`}
          >
            Keep the saved one
          </button>
        </p>
      ) : null}
    </div>
  );
}

const PROVIDERS: { value: Provider; label: string; help: string }[] = [
  {
    value: 'simulated',
    label: 'Simulated',
    help: 'Live messages are delivered and read by the simulator; nothing reaches WhatsApp.',
  },
  {
    value: 'cloud_api',
    label: 'WhatsApp Cloud API',
    help: 'Live messages go to your customers through Meta, from your business number.',
  },
];

/** Simulated or the Cloud API, as two cards. */
export function ProviderChoice({
  value,
  onChange,
}: {
  value: Provider;
  onChange: (provider: Provider) => void;
}) {
  return (
    <fieldset className="radio-list" id={channelFieldId('provider')}>
      <legend className="visually-hidden">Live messages go through</legend>
      {PROVIDERS.map((p) => (
        <label key={p.value} className={`radio-card${value === p.value ? ' selected' : ''}`}>
          <input
            type="radio"
            name="channel-provider"
            value={p.value}
            checked={value === p.value}
            onChange={() => onChange(p.value)}
            data-testid={`channel-provider-${p.value}`}
          />
          <span>
            <span className="radio-title">{p.label}</span>
            <span className="hint">{p.help}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
