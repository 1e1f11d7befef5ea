import { CAMPAIGN_STATUSES } from '../../../../shared/campaign-rules.ts';
import { formatDateTime } from '../../components/format.ts';
import { PlusIcon } from '../../components/icons.tsx';
import { ListIntro } from '../../components/list-intro.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import type { Column } from '../../components/table.tsx';
import type { Campaign } from '../../stores/campaigns-api.ts';
import {
  CAMPAIGN_STATUS_LABELS,
  useCampaigns,
  type CampaignStatusFilter,
} from '../../stores/campaigns.ts';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { formatCount } from './campaign-format.ts';
import { CampaignStatusChip } from './campaign-status.tsx';
import { CampaignTable } from './campaign-table.tsx';
import { ProgressBar } from './progress-bar.tsx';
import { ReadOnlyNote, useRightGate } from '../../components/needs-right.tsx';

/** Where a campaign's row leads: a draft to its editor, any other to its progress. */
export const campaignHref = (campaign: Pick<Campaign, 'id' | 'status'>): string =>
  hrefFor('campaigns', campaign.status === 'draft' ? `${campaign.id}/edit` : campaign.id);

function Intro({ onCreate }: { onCreate: () => void }) {
  return (
    <ListIntro
      right="campaigns.write"
      title="Message many customers at once"
      createLabel="Create your first campaign"
      onCreate={onCreate}
      testId="campaigns-empty"
      createTestId="campaigns-create-first"
      className="campaigns-intro"
    >
      <p>
        A campaign sends one approved <a href={hrefFor('templates')}>template</a> to a group of
        contacts, or to everyone with a label — a sale, a price change, a delivery notice. Each
        message is filled in for its recipient from their contact details.
      </p>
      <p>
        Parley paces the sending to what your account may send, retries what the channel refuses for
        a moment, and shows live who got it, who read it and who could not be reached. You can
        pause, resume or cancel it at any time.
      </p>
    </ListIntro>
  );
}

function Metrics({ campaign }: { campaign: Campaign }) {
  const m = campaign.metrics;
  if (campaign.status === 'draft' || m.total === 0) {
    return (
      <td className="num muted" colSpan={5}>
        {campaign.status === 'draft'
          ? 'Not launched'
          : campaign.status === 'scheduled' && campaign.scheduledFor
            ? `Starts ${formatDateTime(campaign.scheduledFor)}`
            : '—'}
      </td>
    );
  }
  return (
    <>
      <td className="num" data-testid="campaign-total">
        {formatCount(m.total)}
      </td>
      <td className="num" data-testid="campaign-sent">
        {formatCount(m.sent)}
      </td>
      <td className="num">{formatCount(m.delivered)}</td>
      <td className="num">{formatCount(m.read)}</td>
      <td className={`num${m.failed > 0 ? ' campaigns-failed' : ''}`}>{formatCount(m.failed)}</td>
    </>
  );
}

const FILTERS: readonly CampaignStatusFilter[] = ['', ...CAMPAIGN_STATUSES];

const COLUMNS: Column[] = [
  'Name',
  'Status',
  { label: 'Progress', className: 'campaigns-progress-col' },
  { label: 'Recipients', className: 'num' },
  { label: 'Sent', className: 'num' },
  { label: 'Delivered', className: 'num' },
  { label: 'Read', className: 'num' },
  { label: 'Failed', className: 'num' },
  'Updated',
];

export function CampaignList() {
  const navigate = useRoute((s) => s.navigate);
  const create = () => navigate('campaigns', 'new');
  const { gate } = useRightGate('campaigns.write');

  return (
    <div className="screen" data-testid="screen-campaigns">
      <PageHeader
        title="Campaigns"
        description="Send an approved template to many contacts at once, paced to your account's limits, and follow every message live."
        actions={
          <button
            type="button"
            className="button button-primary"
            {...gate}
            onClick={create}
            data-testid="campaign-new"
          >
            <PlusIcon />
            New campaign
          </button>
        }
      />

      <ReadOnlyNote right="campaigns.write" what="campaigns" />
      <CampaignTable
        store={useCampaigns}
        label="Campaigns"
        noun="campaign"
        filters={FILTERS}
        labels={CAMPAIGN_STATUS_LABELS}
        intro={<Intro onCreate={create} />}
        testIds={{ filter: 'campaign-filter', table: 'campaigns-table', empty: 'campaigns-none' }}
        className="campaigns-table"
        columns={COLUMNS}
        row={(campaign) => (
          <tr key={campaign.id} data-testid="campaign-row" data-campaign-id={campaign.id}>
            <td className="campaigns-name-cell">
              <a href={campaignHref(campaign)} className="cell-strong" data-testid="campaign-link">
                {campaign.name}
              </a>
              <div className="muted small mono truncate">{campaign.templateName}</div>
            </td>
            <td>
              <CampaignStatusChip status={campaign.status} />
            </td>
            <td className="campaigns-progress-col">
              {campaign.status === 'draft' || campaign.metrics.total === 0 ? (
                <span className="muted">—</span>
              ) : (
                <ProgressBar progress={campaign.metrics} label={`Progress of ${campaign.name}`} />
              )}
            </td>
            <Metrics campaign={campaign} />
            <td className="nowrap muted">{formatDateTime(campaign.updatedAt)}</td>
          </tr>
        )}
      />
    </div>
  );
}
