import { useState } from 'react';
import { PageHeader } from '../../components/page-header.tsx';
import { RecordLoader } from '../../components/record-loader.tsx';
import { emailApi, type EmailCampaign } from '../../stores/email-api.ts';
import { hrefFor } from '../../stores/route.ts';
import { newCampaignEditor } from '../campaigns/editor-parts.tsx';
import { canDoEmail } from './email-format.ts';
import { EmailForm } from './email-form.tsx';

const newEditor = newCampaignEditor('email');

/** The editor's key: a new campaign's editor stays mounted as its address turns into its id. */
export const emailEditorKey = newEditor.key;

/** A launched campaign's address for editing: it can no longer be edited. */
function NotEditable({ campaign }: { campaign: EmailCampaign }) {
  return (
    <div className="screen" data-testid="email-not-editable">
      <PageHeader
        eyebrow={
          <a href={hrefFor('email')} className="link-button">
            ← Email
          </a>
        }
        title={campaign.name}
        description="This campaign has started sending: only drafts and scheduled campaigns can be edited."
      />
      <p>
        <a href={hrefFor('email', campaign.id)} className="button">
          See its progress
        </a>
      </p>
    </div>
  );
}

/** The editor for a new email campaign (`campaignId` null), or for a saved one, read first. */
export function EmailEditor({ campaignId }: { campaignId: string | null }) {
  // The campaign this editor was opened on; a new campaign keeps its form once saved.
  const [openedOn] = useState(campaignId);
  if (!openedOn) return <EmailForm campaign={null} onCreated={newEditor.created} />;
  return (
    <RecordLoader
      load={() => emailApi.get(openedOn)}
      back={{ href: hrefFor('email'), label: '← Email' }}
      title="Edit email campaign"
      loadingText="Loading the campaign…"
      failedText="The campaign could not be opened."
      testId="email-editor-loading"
    >
      {(campaign) =>
        canDoEmail('edit', campaign.status) ? (
          <EmailForm campaign={campaign} />
        ) : (
          <NotEditable campaign={campaign} />
        )
      }
    </RecordLoader>
  );
}
