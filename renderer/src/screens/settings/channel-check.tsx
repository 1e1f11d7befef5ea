import type { ChannelSettings } from '../../../../shared/schemas/channel.ts';
import { CheckNotRun, CheckResult } from '../../components/check-result.tsx';
import { formatDateTime } from '../../components/format.ts';

type LastCheck = NonNullable<ChannelSettings['lastCheck']>;
type NumberInfo = NonNullable<ChannelSettings['number']>;

/** Meta's quality rating, in words (Meta names it by colour). */
const QUALITY: Record<string, string> = {
  GREEN: 'High (green)',
  YELLOW: 'Medium (yellow)',
  RED: 'Low (red)',
  UNKNOWN: 'Not rated yet',
};

const count = new Intl.NumberFormat('en-US');

/**
 * The messaging limit. After a successful check, no tier means an unlimited one: that is how the
 * core paces live sends (TIER_UNLIMITED is stored as null).
 */
function tierText(tier: number | null): string {
  if (tier === null) return 'Unlimited';
  return `${count.format(tier)} business-initiated conversations per 24 h`;
}

/** What the last successful check read about the number. */
function NumberDetails({ number }: { number: NumberInfo }) {
  const rows: [string, string, string][] = [
    ['Verified name', number.verifiedName ?? '—', 'verified-name'],
    ['Phone number', number.displayPhoneNumber ?? '—', 'display-number'],
    [
      'Quality rating',
      number.qualityRating ? (QUALITY[number.qualityRating] ?? number.qualityRating) : '—',
      'quality',
    ],
    ['Messaging limit', tierText(number.messagingTier), 'tier'],
    [
      'Throughput',
      number.throughputMps === null
        ? 'Not known yet'
        : `${count.format(number.throughputMps)} messages a second`,
      'throughput',
    ],
  ];
  return (
    <dl className="channel-number" data-testid="channel-number">
      {rows.map(([term, value, id]) => (
        <div key={id}>
          <dt>{term}</dt>
          <dd data-testid={`channel-number-${id}`}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The check's classified outcome, as a title a person can act on. */
const OUTCOME_TITLE: Record<LastCheck['outcome'], string> = {
  connected: 'Connected',
  auth_failed: 'The token or the number was refused',
  tls_failed: 'No secure connection',
  unreachable: 'The connection failed',
  not_graph: 'That is not the Graph API',
};

/**
 * What the last check found, styled by whether it worked. The message quotes Meta's own words
 * only when the host is Meta's; for any other host it is the core's description.
 */
function CheckAnswer({ check }: { check: LastCheck }) {
  return (
    <CheckResult
      ok={check.ok}
      testId="channel-check-result"
      title={OUTCOME_TITLE[check.outcome]}
      aside={
        <span className="channel-check-time" data-testid="channel-check-time">
          <time dateTime={check.at}>{formatDateTime(check.at)}</time>
        </span>
      }
    >
      <p className="channel-check-label">What the check found:</p>
      <p className="channel-check-message" data-testid="channel-check-message">
        {check.message}
      </p>
    </CheckResult>
  );
}

export type CheckState = { kind: 'idle' } | { kind: 'running' } | { kind: 'error'; error: string };

interface ChannelCheckCardProps {
  settings: ChannelSettings;
  /** Whether the form has unsaved changes (saved before the check). */
  dirty: boolean;
  /** The Cloud API is chosen on screen (saved or not). */
  cloudApiChosen: boolean;
  busy: boolean;
  check: CheckState;
  onCheck: () => void;
}

export function ChannelCheckCard({
  settings,
  dirty,
  cloudApiChosen,
  busy,
  check,
  onCheck,
}: ChannelCheckCardProps) {
  // The check uses what is saved: a connection, or the Cloud API details saved just before.
  const canCheck = cloudApiChosen && (settings.connected || dirty);
  return (
    <aside className="card channel-check-card" aria-labelledby="channel-check-title">
      <h2 id="channel-check-title" className="card-title">
        Check the connection
      </h2>
      <p className="hint">
        Asks Meta about the phone number with the saved token, as sending would: its name, quality,
        messaging limit and throughput, which pace live sends.{' '}
        {dirty && cloudApiChosen ? 'Your changes are saved first.' : null}
      </p>
      <button
        type="button"
        className="button"
        onClick={onCheck}
        disabled={busy || check.kind === 'running' || !canCheck}
        aria-describedby={canCheck ? undefined : 'channel-check-needs'}
        data-testid="channel-check"
      >
        {check.kind === 'running' ? 'Checking…' : 'Check connection'}
      </button>
      {canCheck ? null : (
        <p className="hint" id="channel-check-needs">
          Choose the WhatsApp Cloud API and save its details first.
        </p>
      )}
      <div aria-live="polite" className="channel-check-answer">
        {check.kind === 'running' ? (
          <p className="hint" aria-busy="true">
            Asking Meta…
          </p>
        ) : null}
        {check.kind === 'error' ? (
          <CheckNotRun testId="channel-check-error" error={check.error} />
        ) : null}
        {check.kind !== 'running' && settings.lastCheck ? (
          <CheckAnswer check={settings.lastCheck} />
        ) : null}
      </div>
      {/* A failed check leaves the last answer's details behind: they no longer hold. */}
      {settings.number && settings.lastCheck?.ok ? (
        <NumberDetails number={settings.number} />
      ) : null}
    </aside>
  );
}
