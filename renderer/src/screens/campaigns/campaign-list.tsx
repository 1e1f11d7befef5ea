import { CAMPAIGN_STATUSES } from '../../../../shared/campaign-rules.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PlusIcon } from '../../components/icons.tsx';
import { LoadMore } from '../../components/load-more.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { EmptyState } from '../../components/table.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import type { Campaign } from '../../stores/campaigns-api.ts';
import { CAMPAIGN_STATUS_LABELS, useCampaigns } from '../../stores/campaigns.ts';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { formatCount } from './campaign-format.ts';
import { CampaignStatusChip } from './campaign-status.tsx';
import { ProgressBar } from './progress-bar.tsx';

/** Where a campaign's row leads: a draft to its editor, any other to its progress. */
export const campaignHref = (campaign: Pick<Campaign, 'id' | 'status'>): string =>
  hrefFor('campaigns', campaign.status === 'draft' ? `${campaign.id}/edit` : campaign.id);

function Intro({ onCreate }: { onCreate: () => void }) {
  return (
    <div className="campaigns-intro" data-testid="campaigns-empty">
      <h2 className="card-title">Message many customers at once</h2>
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
      <button
        type="button"
        className="button button-primary"
        onClick={onCreate}
        data-testid="campaigns-create-first"
      >
        <PlusIcon />
        Create your first campaign
      </button>
    </div>
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

export function CampaignList() {
  const campaigns = useCampaigns((s) => s.campaigns);
  const status = useCampaigns((s) => s.status);
  const error = useCampaigns((s) => s.error);
  const filter = useCampaigns((s) => s.statusFilter);
  const setFilter = useCampaigns((s) => s.setStatusFilter);
  const load = useCampaigns((s) => s.load);
  const nextCursor = useCampaigns((s) => s.nextCursor);
  const loadingMore = useCampaigns((s) => s.loadingMore);
  const loadMore = useCampaigns((s) => s.loadMore);
  const navigate = useRoute((s) => s.navigate);

  useLoadWhenIdle(status, load);

  const loading = status === 'idle' || status === 'loading';
  const create = () => navigate('campaigns', 'new');
  const nothingYet = !loading && status !== 'error' && campaigns.length === 0 && !filter;

  return (
    <div className="screen" data-testid="screen-campaigns">
      <PageHeader
        title="Campaigns"
        description="Send an approved template to many contacts at once, paced to your account's limits, and follow every message live."
        actions={
          <button
            type="button"
            className="button button-primary"
            onClick={create}
            data-testid="campaign-new"
          >
            <PlusIcon />
            New campaign
          </button>
        }
      />

      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}

      <section className="card card-flush" aria-label="Campaigns">
        {nothingYet ? (
          <Intro onCreate={create} />
        ) : (
          <>
            <div className="toolbar">
              <div className="filter-pills" role="group" aria-label="Filter by status">
                {(['', ...CAMPAIGN_STATUSES] as const).map((value) => (
                  <button
                    key={value || 'all'}
                    type="button"
                    className={`filter-pill${filter === value ? ' selected' : ''}`}
                    aria-pressed={filter === value}
                    onClick={() => setFilter(value)}
                    data-testid={`campaign-filter-${value || 'all'}`}
                  >
                    {value ? CAMPAIGN_STATUS_LABELS[value] : 'All'}
                  </button>
                ))}
              </div>
              <span className="toolbar-meta" aria-live="polite">
                {loading
                  ? 'Loading…'
                  : `${campaigns.length}${nextCursor ? '+' : ''} campaign${campaigns.length === 1 ? '' : 's'}`}
              </span>
            </div>
            {campaigns.length === 0 ? (
              <EmptyState testId="campaigns-none">
                {loading
                  ? 'Loading campaigns…'
                  : filter
                    ? `No ${CAMPAIGN_STATUS_LABELS[filter].toLowerCase()} campaigns.`
                    : 'No campaigns.'}
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className="table campaigns-table" data-testid="campaigns-table">
                  <thead>
                    <tr>
                      <th>Name</th>
                      <th>Status</th>
                      <th className="campaigns-progress-col">Progress</th>
                      <th className="num">Recipients</th>
                      <th className="num">Sent</th>
                      <th className="num">Delivered</th>
                      <th className="num">Read</th>
                      <th className="num">Failed</th>
                      <th>Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {campaigns.map((campaign) => (
                      <tr
                        key={campaign.id}
                        data-testid="campaign-row"
                        data-campaign-id={campaign.id}
                      >
                        <td className="campaigns-name-cell">
                          <a
                            href={campaignHref(campaign)}
                            className="cell-strong"
                            data-testid="campaign-link"
                          >
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
                            <ProgressBar
                              progress={campaign.metrics}
                              label={`Progress of ${campaign.name}`}
                            />
                          )}
                        </td>
                        <Metrics campaign={campaign} />
                        <td className="nowrap muted">{formatDateTime(campaign.updatedAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <LoadMore nextCursor={nextCursor} loadingMore={loadingMore} loadMore={loadMore} />
          </>
        )}
      </section>
    </div>
  );
}
