import { RECIPIENT_STATUSES } from '../../../../shared/campaign-rules.ts';
import { api } from '../../api/client.ts';
import { formatDateTime } from '../../components/format.ts';
import {
  useCampaignRecipients,
  type RecipientFilter,
  type RecipientRow,
} from '../../stores/campaigns-recipients.ts';
import { explainError, formatSoon } from './campaign-format.ts';
import { RECIPIENT_STATUS_LABELS, RecipientStatusChip } from './campaign-status.tsx';
import { RecipientsCard } from './recipients-card.tsx';

const FILTERS: readonly RecipientFilter[] = ['', ...RECIPIENT_STATUSES];

const errorAnchor = (code: string): string => `recipient-error-${code.replace(/[^\w-]/g, '_')}`;

/** Opens the explanation of an error code below the table and brings it into view. */
function showExplanation(code: string): void {
  const entry = document.getElementById(errorAnchor(code));
  const details = entry?.closest('details');
  if (details) details.open = true;
  entry?.scrollIntoView({ block: 'center', behavior: 'smooth' });
}

function Outcome({ recipient }: { recipient: RecipientRow }) {
  const { error } = recipient;
  if (error) {
    const { title, explanation } = explainError(error);
    return (
      <span className="recipient-error" data-testid="recipient-error">
        <button
          type="button"
          className="link-button recipient-error-title"
          title={explanation}
          aria-describedby={errorAnchor(error.code)}
          onClick={() => showExplanation(error.code)}
        >
          {title}
        </button>{' '}
        <code className="muted">{error.code}</code>
      </span>
    );
  }
  if (recipient.status === 'retrying' && recipient.nextAttemptAt) {
    return <span className="muted">Next try at {formatSoon(recipient.nextAttemptAt)}</span>;
  }
  return <span className="muted">—</span>;
}

/** The error codes among the rows shown, explained once each (RECIPIENT_ERRORS). */
function ErrorLegend({ recipients }: { recipients: RecipientRow[] }) {
  const seen = new Map<string, { code: string; message: string }>();
  for (const r of recipients)
    if (r.error && !seen.has(r.error.code)) seen.set(r.error.code, r.error);
  if (seen.size === 0) return null;
  return (
    <details className="recipient-legend" open data-testid="recipient-error-legend">
      <summary>What these errors mean</summary>
      <dl>
        {[...seen.values()].map((error) => {
          const { title, explanation } = explainError(error);
          return (
            <div key={error.code} id={errorAnchor(error.code)} className="recipient-legend-item">
              <dt>
                {title} <code className="muted">{error.code}</code>
              </dt>
              <dd>{explanation}</dd>
            </div>
          );
        })}
      </dl>
    </details>
  );
}

/** Everyone the campaign reaches, by status, with the errors among them explained. */
export function RecipientsTable() {
  const recipients = useCampaignRecipients((s) => s.recipients);
  return (
    <RecipientsCard
      store={useCampaignRecipients}
      titleId="campaign-recipients-title"
      testIdPrefix=""
      exportCsv={api.campaigns.exportRecipients}
      filters={FILTERS}
      labels={RECIPIENT_STATUS_LABELS}
      gridClassName="recipients-grid"
      columns={
        <>
          <div role="columnheader">Phone</div>
          <div role="columnheader">Name</div>
          <div role="columnheader">Status</div>
          <div role="columnheader" className="num">
            Attempts
          </div>
          <div role="columnheader">Outcome</div>
          <div role="columnheader" className="col-optional">
            Updated
          </div>
        </>
      }
      noneYet="No recipients: they are fixed when the campaign is launched."
      cells={(recipient) => (
        <>
          <div role="cell" className="mono">
            {recipient.phone}
          </div>
          <div role="cell" className="truncate">
            {recipient.name ?? <span className="muted">—</span>}
          </div>
          <div role="cell">
            <RecipientStatusChip status={recipient.status} />
          </div>
          <div role="cell" className="num">
            {recipient.attempts}
          </div>
          <div role="cell" className="truncate">
            <Outcome recipient={recipient} />
          </div>
          <div role="cell" className="nowrap muted col-optional">
            {formatDateTime(recipient.updatedAt)}
          </div>
        </>
      )}
    >
      <ErrorLegend recipients={recipients} />
    </RecipientsCard>
  );
}
