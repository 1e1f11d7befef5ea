import { useEffect, useState } from 'react';
import { errorMessage } from '../../api/client.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { campaignsApi, type Campaign } from '../../stores/campaigns-api.ts';
import { hrefFor } from '../../stores/route.ts';
import { CampaignWizard } from './campaign-wizard.tsx';
import { newCampaignEditor } from './editor-parts.tsx';

const newEditor = newCampaignEditor('campaigns');

/** The editor's key: a new campaign's editor stays mounted as its address turns into its id. */
export const editorKey = newEditor.key;

type Loaded =
  | { id: string; state: 'loading' }
  | { id: string; state: 'ready'; campaign: Campaign }
  | { id: string; state: 'error'; error: string };

/** The wizard for a new campaign (`campaignId` null) or for a draft, read first. */
export function CampaignEditor({ campaignId }: { campaignId: string | null }) {
  // The draft this editor was opened on; a new campaign keeps its form once saved.
  const [openedOn] = useState(campaignId);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!openedOn) return;
    let cancelled = false;
    campaignsApi.get(openedOn).then(
      (campaign) => !cancelled && setLoaded({ id: openedOn, state: 'ready', campaign }),
      (e: unknown) =>
        !cancelled && setLoaded({ id: openedOn, state: 'error', error: errorMessage(e) }),
    );
    return () => {
      cancelled = true;
    };
  }, [openedOn, attempt]);

  if (!openedOn) return <CampaignWizard campaign={null} onCreated={newEditor.created} />;

  const back = (
    <a href={hrefFor('campaigns')} className="link-button">
      ← Campaigns
    </a>
  );
  if (!loaded || loaded.state === 'loading') {
    return (
      <div className="screen" aria-busy="true" data-testid="campaign-wizard-loading">
        <PageHeader eyebrow={back} title="Edit draft campaign" description="Loading the draft…" />
      </div>
    );
  }
  if (loaded.state === 'error') {
    return (
      <div className="screen">
        <PageHeader
          eyebrow={back}
          title="Edit draft campaign"
          description="The draft could not be opened."
        />
        <ErrorBanner message={loaded.error} onRetry={() => setAttempt((n) => n + 1)} />
      </div>
    );
  }
  if (loaded.campaign.status !== 'draft') {
    return (
      <div className="screen" data-testid="campaign-not-draft">
        <PageHeader
          eyebrow={back}
          title={loaded.campaign.name}
          description="This campaign was launched: only drafts can be edited."
        />
        <p>
          <a href={hrefFor('campaigns', loaded.campaign.id)} className="button">
            See its progress
          </a>
        </p>
      </div>
    );
  }
  return <CampaignWizard campaign={loaded.campaign} />;
}
