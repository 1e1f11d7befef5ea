import type { Environment } from '../api/client.ts';
import { useSession } from '../stores/session.ts';

const MODES: { value: Environment; label: string }[] = [
  { value: 'test', label: 'Test' },
  { value: 'live', label: 'Live' },
];

/** Test/Live switch: scopes everything shown to one environment, like a payments dashboard. */
export function ModeSwitch() {
  const environment = useSession((s) => s.environment);
  const setEnvironment = useSession((s) => s.setEnvironment);
  return (
    <div className="segmented mode-switch" role="group" aria-label="Environment">
      {MODES.map((mode) => (
        <button
          key={mode.value}
          type="button"
          className={`segment segment-${mode.value}${environment === mode.value ? ' selected' : ''}`}
          aria-pressed={environment === mode.value}
          data-testid={`mode-${mode.value}`}
          onClick={() => setEnvironment(mode.value)}
        >
          <span className="segment-dot" aria-hidden="true" />
          {mode.label}
        </button>
      ))}
    </div>
  );
}
