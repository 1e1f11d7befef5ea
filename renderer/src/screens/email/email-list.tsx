import { formatDateTime, formatDayTime, plural } from '../../components/format.ts';
import { PlusIcon } from '../../components/icons.tsx';
import { ListIntro } from '../../components/list-intro.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import type { Column } from '../../components/table.tsx';
import {
  EMAIL_CAMPAIGN_STATUS_LABELS,
  EMAIL_CAMPAIGN_STATUSES,
  useEmailCampaigns,
  type EmailStatusFilter,
} from '../../stores/email.ts';
import type { EmailCampaign } from '../../stores/email-api.ts';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { formatCount, formatShare } from '../campaigns/campaign-format.ts';
import { CampaignTable } from '../campaigns/campaign-table.tsx';
import { canDoEmail } from './email-format.ts';
import { EmailProgressBar } from './email-progress-bar.tsx';
import { EmailCampaignStatusChip } from './email-status.tsx';
import { EmailTabs } from './email-tabs.tsx';
import { ReadOnlyNote, useRightGate } from '../../components/needs-right.tsx';

/** Where a campaign's row leads: a draft to its editor, any other to its progress. */
export const emailCampaignHref = (campaign: Pick<EmailCampaign, 'id' | 'status'>): string =>
  hrefFor('email', campaign.status === 'draft' ? `${campaign.id}/edit` : campaign.id);

function Intro({ onCreate }: { onCreate: () => void }) {
  return (
    <ListIntro
      right="campaigns.write"
      title="Email your customers"
      createLabel="Create your first email campaign"
      onCreate={onCreate}
      testId="email-empty"
      createTestId="email-create-first"
      className="campaigns-intro"
    >
      <p>
        An email campaign sends one email — a newsletter, an offer, an announcement — to a group of
        contacts or everyone with a label, filled in for each from their contact details. Contacts
        without an email address, and those who unsubscribed, are left out.
      </p>
      <p>
        Parley sends at the rate you set, shows live who received, opened and clicked it, and adds
        an unsubscribe link to every email. Before going live, set up your mail server in{' '}
        <a href={hrefFor('email', 'settings')}>settings</a>; test mode needs nothing.
      </p>
    </ListIntro>
  );
}

/** A moment this year without the year ("Nov 3, 09:00"), another year's with it. */
function formatWhen(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '—';
  return at.getFullYear() === new Date().getFullYear() ? formatDayTime(at) : formatDateTime(iso);
}

/** When: the launch (or the planned start, or the creation) of the campaign. */
function When({ campaign }: { campaign: EmailCampaign }) {
  const [label, at] = campaign.launchedAt
    ? ['Launched', campaign.launchedAt]
    : campaign.status === 'scheduled' && campaign.scheduledFor
      ? ['Starts', campaign.scheduledFor]
      : ['Created', campaign.createdAt];
  return (
    <>
      <div className="muted small">{label}</div>
      <span title={formatDateTime(at)}>{formatWhen(at)}</span>
    </>
  );
}

/** A count, and under it its share of what it is counted against ("96%"). */
function Share({ value, of, testId }: { value: number; of: number; testId: string }) {
  return (
    <td className="num">
      <span data-testid={testId}>{formatCount(value)}</span>
      <div className="muted small">{formatShare(value, of)}</div>
    </td>
  );
}

function Counts({ campaign }: { campaign: EmailCampaign }) {
  const c = campaign.counts;
  if (c.total === 0) {
    return (
      <td className="num muted" colSpan={5}>
        {canDoEmail('edit', campaign.status) ? 'Not sent yet' : '—'}
      </td>
    );
  }
  return (
    <>
      <Share value={c.sent} of={c.total} testId="email-row-sent" />
      <Share value={c.delivered} of={c.sent} testId="email-row-delivered" />
      <Share value={c.opened} of={c.delivered} testId="email-row-opened" />
      <Share value={c.clicked} of={c.delivered} testId="email-row-clicked" />
      <td
        className={`num${c.bounced > 0 ? ' campaigns-failed' : ''}`}
        data-testid="email-row-bounced"
      >
        {formatCount(c.bounced)}
      </td>
    </>
  );
}

const FILTERS: readonly EmailStatusFilter[] = ['', ...EMAIL_CAMPAIGN_STATUSES];

const COLUMNS: Column[] = [
  'Name',
  'Status',
  { label: 'Progress', className: 'campaigns-progress-col' },
  { label: 'Sent', className: 'num' },
  { label: 'Delivered', className: 'num' },
  { label: 'Opened', className: 'num' },
  { label: 'Clicked', className: 'num' },
  { label: 'Bounced', className: 'num' },
  'When',
];

/** The Email screen's first part: every email campaign of this mode, live from the stream. */
export function EmailList() {
  const navigate = useRoute((s) => s.navigate);
  const create = () => navigate('email', 'new');
  const { gate } = useRightGate('campaigns.write');

  return (
    <div className="screen screen-wide" data-testid="screen-email">
      <PageHeader
        title="Email"
        description="Send an email to many contacts at once and see who received, opened and clicked it."
        actions={
          <button
            type="button"
            className="button button-primary"
            {...gate}
            onClick={create}
            data-testid="email-new"
          >
            <PlusIcon />
            New email campaign
          </button>
        }
      />
      <EmailTabs current="campaigns" />
      <ReadOnlyNote right="campaigns.write" what="email campaigns" />

      <CampaignTable
        store={useEmailCampaigns}
        label="Email campaigns"
        noun="email campaign"
        filters={FILTERS}
        labels={EMAIL_CAMPAIGN_STATUS_LABELS}
        intro={<Intro onCreate={create} />}
        testIds={{ filter: 'email-filter', table: 'email-table', empty: 'email-none' }}
        className="campaigns-table email-table"
        columns={COLUMNS}
        row={(campaign) => (
          <tr key={campaign.id} data-testid="email-row" data-campaign-id={campaign.id}>
            <td className="campaigns-name-cell">
              <a
                href={emailCampaignHref(campaign)}
                className="cell-strong"
                data-testid="email-link"
              >
                {campaign.name}
              </a>
              <div className="muted small truncate" title={campaign.subject}>
                {campaign.subject}
              </div>
            </td>
            <td>
              <EmailCampaignStatusChip status={campaign.status} />
            </td>
            <td className="campaigns-progress-col">
              {campaign.counts.total === 0 ? (
                <span className="muted">—</span>
              ) : (
                <>
                  <EmailProgressBar
                    counts={campaign.counts}
                    label={`Progress of ${campaign.name}`}
                  />
                  <div className="muted small" data-testid="email-row-total">
                    {plural(campaign.counts.total, 'recipient')}
                  </div>
                </>
              )}
            </td>
            <Counts campaign={campaign} />
            <td className="nowrap email-when">
              <When campaign={campaign} />
            </td>
          </tr>
        )}
      />
    </div>
  );
}
