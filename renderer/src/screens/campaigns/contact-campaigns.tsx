import { useEffect } from 'react';
import { formatDateTime } from '../../components/format.ts';
import { useContactCampaigns } from '../../stores/campaigns-contact.ts';
import { hrefFor } from '../../stores/route.ts';
import { explainError } from './campaign-format.ts';
import { RecipientStatusChip } from './campaign-status.tsx';
import './campaigns.css';

/** The inbox contact panel's campaigns: the latest this contact was sent, and how each went. */
export function ContactCampaigns({ contactId }: { contactId: string }) {
  const campaigns = useContactCampaigns((s) => s.campaigns);
  const status = useContactCampaigns((s) => s.status);
  const shownFor = useContactCampaigns((s) => s.contactId);
  const show = useContactCampaigns((s) => s.show);

  useEffect(() => show(contactId), [contactId, show]);

  if (shownFor !== contactId || status === 'idle' || status === 'loading') {
    return <p className="muted small">Loading campaigns…</p>;
  }
  if (status === 'error') {
    return <p className="muted small">Campaigns could not be loaded.</p>;
  }
  if (campaigns.length === 0) {
    return (
      <p className="muted small" data-testid="contact-campaigns-none">
        Not in any campaign yet.
      </p>
    );
  }
  return (
    <ul className="panel-list" data-testid="contact-campaigns">
      {campaigns.map((campaign) => {
        const outcome = campaign.recipient;
        const error = outcome?.error ? explainError(outcome.error) : null;
        return (
          <li
            key={campaign.id}
            className="panel-list-item contact-campaign"
            data-testid="contact-campaign"
          >
            <span className="panel-list-main">
              <a href={hrefFor('campaigns', campaign.id)} className="truncate">
                {campaign.name}
              </a>
              <span className="muted small">
                {formatDateTime(outcome?.updatedAt ?? campaign.launchedAt ?? campaign.createdAt)}
              </span>
              {error && outcome?.error ? (
                <span className="small contact-campaign-error" title={error.explanation}>
                  {error.title} <code>{outcome.error.code}</code>
                  <span className="visually-hidden">: {error.explanation}</span>
                </span>
              ) : null}
            </span>
            {outcome ? <RecipientStatusChip status={outcome.status} /> : null}
          </li>
        );
      })}
    </ul>
  );
}
