import { channelFieldId, type Provider } from './channel-draft.ts';

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
