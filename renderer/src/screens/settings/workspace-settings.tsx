import { useEffect } from 'react';
import { DEFAULT_CAPACITY } from '../../../../shared/capacity.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { hrefFor } from '../../stores/route.ts';
import { useWallet } from '../../stores/wallet.ts';
import { useWorkspaceSettings } from '../../stores/workspace-settings.ts';
import { AssignmentSettings } from '../team/assignment-settings.tsx';
import { PublicUrlSection, WalletSection, WebhooksSection } from './workspace-fields.tsx';
import { BusinessHoursSection } from './workspace-hours.tsx';
import { NamesSection } from './workspace-names.tsx';
import { RetentionSection } from './workspace-retention.tsx';
import './workspace-settings.css';

/**
 * Settings → Workspace (design.md §8, README "Workspace settings"), for admins: its names and
 * its business account's, what the workspace allows and how it behaves — private webhook targets, the low-balance threshold,
 * assignment, the public URL (`PATCH /api/workspace/settings`), business hours (`PUT
 * /settings/business-hours`), each in force at once — and the desk's retention periods,
 * read-only.
 */
export function WorkspaceSettingsScreen() {
  const { data: settings, status, error } = useWorkspaceSettings((s) => s.settings);
  const load = useWorkspaceSettings((s) => s.load);
  const refreshBalance = useWallet((s) => s.refreshBalance);
  useLoadWhenIdle(status, load);
  // The Wallet card says where the balance stands against the threshold.
  useEffect(() => void refreshBalance(), [refreshBalance]);

  return (
    <div className="screen" data-testid="screen-workspace">
      <PageHeader
        eyebrow="Settings"
        title="Workspace"
        description="How this workspace is named and behaves, for test and live mode alike: what webhooks may reach, when the wallet warns, how conversations find an agent, the address the internet reaches it by, and when the business is open. Each change is in force at once and in the audit trail."
      />
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
      {settings ? (
        <div className="ws-grid">
          <NamesSection settings={settings} />
          <WebhooksSection settings={settings} />
          <WalletSection settings={settings} />
          <AssignmentSettings title="Team">
            <p className="hint" data-testid="ws-capacity-note">
              How many open conversations each agent takes before auto-assignment passes them by
              (new members start at {DEFAULT_CAPACITY}) is set per agent, with who is online, on{' '}
              <a href={hrefFor('settings/team')}>Settings → Team</a>.
            </p>
          </AssignmentSettings>
          <PublicUrlSection settings={settings} />
        </div>
      ) : status !== 'error' ? (
        <p className="hint" aria-busy="true">
          Loading…
        </p>
      ) : null}
      <BusinessHoursSection />
      <RetentionSection />
    </div>
  );
}
