import { useRef, useState, type KeyboardEvent } from 'react';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { FilterToolbar } from '../../components/filter-toolbar.tsx';
import { formatClockSeconds, formatDateTime, formatDayTime } from '../../components/format.ts';
import { SyncIcon } from '../../components/icons.tsx';
import { VirtualTable } from '../../components/virtual-table.tsx';
import type { EmailMessage } from '../../stores/email-api.ts';
import { useEmailRecipients, type EmailRecipientFilter } from '../../stores/email-recipients.ts';
import { EMAIL_STATUS_LABELS, EMAIL_STATUSES } from './email-format.ts';
import { EmailStatusChip } from './email-status.tsx';

const FILTERS: readonly EmailRecipientFilter[] = ['', ...EMAIL_STATUSES];

/** The virtual table's row height, to scroll a row not drawn yet into reach. */
const ROW_HEIGHT = 48;
const PAGE_ROWS = 8;

/** Where a key moves the focus from a row (the index is clamped to the rows there are). */
const ROW_KEYS: Record<string, (index: number, last: number) => number> = {
  ArrowDown: (i) => i + 1,
  ArrowUp: (i) => i - 1,
  PageDown: (i) => i + PAGE_ROWS,
  PageUp: (i) => i - PAGE_ROWS,
  Home: () => 0,
  End: (_, last) => last,
};

/** A moment in a row: the clock (to the second) today, the day too otherwise. */
function Time({ at }: { at: string | null }) {
  const date = at ? new Date(at) : null;
  if (!at || !date || Number.isNaN(date.getTime())) return <span className="muted">—</span>;
  const today = date.toDateString() === new Date().toDateString();
  return (
    <time dateTime={at} title={formatDateTime(at)}>
      {today ? formatClockSeconds(date) : formatDayTime(date)}
    </time>
  );
}

/** What went wrong (the server's own answer on hover), or that they unsubscribed. */
function Outcome({ email }: { email: EmailMessage }) {
  if (email.error) {
    return (
      <span
        className="email-recipient-error"
        title={email.smtpResponse ?? email.error.message}
        data-testid="email-recipient-error"
      >
        {email.error.message} <code className="muted">{email.error.code}</code>
      </span>
    );
  }
  if (email.unsubscribedAt) {
    return (
      <span className="muted" title={formatDateTime(email.unsubscribedAt)}>
        Unsubscribed
      </span>
    );
  }
  return <span className="muted">—</span>;
}

/** Everyone the campaign emails, virtualised (a campaign may have 100,000), by status. */
export function EmailRecipientsTable() {
  const tableRef = useRef<HTMLDivElement>(null);
  const recipients = useEmailRecipients((s) => s.recipients);
  const status = useEmailRecipients((s) => s.status);
  const error = useEmailRecipients((s) => s.error);
  const filter = useEmailRecipients((s) => s.statusFilter);
  const setFilter = useEmailRecipients((s) => s.setStatusFilter);
  const outdated = useEmailRecipients((s) => s.outdated);
  const nextCursor = useEmailRecipients((s) => s.nextCursor);
  const loadingMore = useEmailRecipients((s) => s.loadingMore);
  const loadMore = useEmailRecipients((s) => s.loadMore);
  const load = useEmailRecipients((s) => s.load);

  const loading = status === 'idle' || status === 'loading';

  // The rows hold nothing to tab to: the table is one tab stop (the row last focused), and the
  // arrow, page, Home and End keys move between rows, scrolling them into view.
  const [focusIndex, setFocusIndex] = useState(0);
  const tabStop = Math.min(focusIndex, Math.max(0, recipients.length - 1));
  const rowElement = (index: number) =>
    tableRef.current?.querySelector<HTMLElement>(`[aria-rowindex="${index + 1}"]`) ?? null;
  const moveFocus = (event: KeyboardEvent<HTMLDivElement>, index: number) => {
    const last = recipients.length - 1;
    const to = ROW_KEYS[event.key]?.(index, last);
    if (to === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    const target = Math.max(0, Math.min(last, to));
    setFocusIndex(target);
    const shown = rowElement(target);
    if (shown) {
      shown.focus();
      return;
    }
    // Not rendered yet (virtualised): scroll it near, then focus it once drawn.
    const scroller = tableRef.current?.querySelector('.vtable-scroll');
    if (scroller) scroller.scrollTop = target * ROW_HEIGHT;
    window.requestAnimationFrame(() =>
      window.requestAnimationFrame(() => rowElement(target)?.focus()),
    );
  };

  return (
    <section
      className="card card-flush campaign-recipients"
      aria-labelledby="email-recipients-title"
    >
      <div className="card-header">
        <h2 id="email-recipients-title" className="card-title">
          Recipients
        </h2>
        <button
          type="button"
          className={`button button-small${outdated ? ' button-primary' : ''}`}
          onClick={() => void load()}
          disabled={status === 'loading'}
          data-testid="email-recipients-refresh"
        >
          <SyncIcon />
          {outdated ? 'New results — refresh' : 'Refresh'}
        </button>
      </div>
      <FilterToolbar
        label="Filter recipients by status"
        options={FILTERS}
        value={filter}
        onChange={setFilter}
        labels={EMAIL_STATUS_LABELS}
        testId={(value) => `email-recipient-filter-${value || 'all'}`}
      >
        {loading
          ? 'Loading…'
          : nextCursor
            ? `${recipients.length.toLocaleString('en-US')} shown · scroll for more`
            : `${recipients.length.toLocaleString('en-US')} recipient${recipients.length === 1 ? '' : 's'}`}
      </FilterToolbar>
      {status === 'error' && error ? (
        <ErrorBanner message={error} onRetry={() => void load()} />
      ) : null}
      <div ref={tableRef} className="email-recipients-body">
        <VirtualTable
          label="Recipients"
          gridClassName="email-recipients-grid"
          columns={
            <>
              <div role="columnheader">Address</div>
              <div role="columnheader">Status</div>
              <div role="columnheader">Sent</div>
              <div role="columnheader" className="col-optional">
                Delivered
              </div>
              <div role="columnheader">Opened</div>
              <div role="columnheader">Clicked</div>
              <div role="columnheader">Problem</div>
            </>
          }
          rows={recipients}
          nextCursor={nextCursor}
          loadingMore={loadingMore}
          loadMore={loadMore}
          scrollClassName="recipients-scroll"
          scrollTestId="email-recipients-scroll"
          emptyTestId="email-recipients-empty"
          empty={
            loading
              ? 'Loading recipients…'
              : filter
                ? `No ${EMAIL_STATUS_LABELS[filter].toLowerCase()} recipients.`
                : 'No recipients: they are fixed when the campaign starts sending.'
          }
          renderRow={(email, rowProps) => (
            <div
              key={email.id}
              className="vtable-row email-recipients-grid"
              {...rowProps}
              tabIndex={rowProps['aria-rowindex'] - 1 === tabStop ? 0 : -1}
              onFocus={() => setFocusIndex(rowProps['aria-rowindex'] - 1)}
              onKeyDown={(event) => moveFocus(event, rowProps['aria-rowindex'] - 1)}
              data-testid="email-recipient-row"
              data-status={email.status}
            >
              <div role="cell" className="truncate" title={email.to}>
                {email.to}
              </div>
              <div role="cell">
                <EmailStatusChip status={email.status} />
              </div>
              <div role="cell" className="nowrap">
                <Time at={email.sentAt} />
              </div>
              <div role="cell" className="nowrap col-optional">
                <Time at={email.deliveredAt} />
              </div>
              <div role="cell" className="nowrap">
                <Time at={email.openedAt} />
              </div>
              <div role="cell" className="nowrap">
                <Time at={email.clickedAt} />
              </div>
              <div role="cell" className="truncate">
                <Outcome email={email} />
              </div>
            </div>
          )}
        />
      </div>
    </section>
  );
}
