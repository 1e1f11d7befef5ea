import { Fragment } from 'react';
import { ForbiddenPage } from '../../components/forbidden-page.tsx';
import { useCan } from '../../components/use-can.ts';
import { useRoute } from '../../stores/route.ts';
import { useSession } from '../../stores/session.ts';
import { EmailDetail } from './email-detail.tsx';
import { EmailEditor, emailEditorKey } from './email-editor.tsx';
import { EmailList } from './email-list.tsx';
import { EmailSettingsView } from './email-settings.tsx';
// The campaigns' styles: status chips, progress bars, funnel, chart and tables are shared.
import '../campaigns/campaigns.css';
import './email.css';

type View =
  | { kind: 'list' }
  | { kind: 'settings' }
  | { kind: 'editor'; campaignId: string | null }
  | { kind: 'detail'; campaignId: string };

/** `#/email`, `#/email/settings`, `#/email/new`, `#/email/<id>` and `#/email/<id>/edit`. */
function viewOf(subPath: string | null): View {
  if (!subPath) return { kind: 'list' };
  if (subPath === 'settings') return { kind: 'settings' };
  if (subPath === 'new') return { kind: 'editor', campaignId: null };
  const [id, page] = subPath.split('/');
  if (id && page === 'edit') return { kind: 'editor', campaignId: id };
  return { kind: 'detail', campaignId: id ?? subPath };
}

/** The email settings, or which right they need. */
function EmailSettings() {
  const allowed = useCan('email_settings.read');
  if (!allowed) return <ForbiddenPage title="Email settings" right="email_settings.read" />;
  return <EmailSettingsView />;
}

function EmailView({ view }: { view: View }) {
  switch (view.kind) {
    case 'list':
      return <EmailList />;
    case 'settings':
      return <EmailSettings />;
    case 'editor':
      return <EmailEditor key={emailEditorKey(view.campaignId)} campaignId={view.campaignId} />;
    case 'detail':
      return <EmailDetail key={view.campaignId} campaignId={view.campaignId} />;
  }
}

export function EmailScreen() {
  const subPath = useRoute((s) => s.subPath);
  // A mode or workspace switch starts the screen afresh: its campaigns and settings belong to
  // the scope it was opened in.
  const scope = useSession((s) => `${s.environment}:${s.workspaceId ?? ''}`);
  return (
    <Fragment key={scope}>
      <EmailView view={viewOf(subPath)} />
    </Fragment>
  );
}
