import { Fragment } from 'react';
import { useRoute } from '../../stores/route.ts';
import { useSession } from '../../stores/session.ts';
import { CampaignDetail } from './campaign-detail.tsx';
import { CampaignEditor, editorKey } from './campaign-editor.tsx';
import { CampaignList } from './campaign-list.tsx';
import './campaigns.css';

type View =
  | { kind: 'list' }
  | { kind: 'editor'; campaignId: string | null }
  | { kind: 'detail'; campaignId: string };

/** `#/campaigns`, `#/campaigns/new`, `#/campaigns/<id>` and `#/campaigns/<id>/edit`. */
function viewOf(subPath: string | null): View {
  if (!subPath) return { kind: 'list' };
  if (subPath === 'new') return { kind: 'editor', campaignId: null };
  const [id, page] = subPath.split('/');
  if (id && page === 'edit') return { kind: 'editor', campaignId: id };
  return { kind: 'detail', campaignId: id ?? subPath };
}

function CampaignsView({ view }: { view: View }) {
  switch (view.kind) {
    case 'list':
      return <CampaignList />;
    case 'editor':
      return <CampaignEditor key={editorKey(view.campaignId)} campaignId={view.campaignId} />;
    case 'detail':
      return <CampaignDetail key={view.campaignId} campaignId={view.campaignId} />;
  }
}

export function CampaignsScreen() {
  const subPath = useRoute((s) => s.subPath);
  // A mode or workspace switch starts the screen afresh: its groups, templates and campaign
  // belong to the scope it was opened in.
  const scope = useSession((s) => `${s.environment}:${s.workspaceId ?? ''}`);
  return (
    <Fragment key={scope}>
      <CampaignsView view={viewOf(subPath)} />
    </Fragment>
  );
}
