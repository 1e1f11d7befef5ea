import { useEffect, useMemo } from 'react';
import { api } from '../../api/client.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { ExportButton } from '../../components/export-button.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { PagedTable } from '../../components/table.tsx';
import { useCan } from '../../components/use-can.ts';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { auditQuery, useAudit } from '../../stores/audit.ts';
import { useKeys } from '../../stores/keys.ts';
import { useMembers } from '../../stores/members.ts';
import { ACTION_FAMILIES, actionWords, actorWords, targetWords } from './audit-words.ts';

const COLUMNS = ['Time', 'Who', 'What', 'On', 'Address'];

interface Option {
  value: string;
  label: string;
}

/** One of the trail's filters as a select: '' (its first option) for any. */
function FilterSelect({
  filter,
  label,
  options,
}: {
  filter: 'actor' | 'action';
  label: string;
  options: readonly Option[];
}) {
  const value = useAudit((s) => s.filters[filter]);
  const setFilters = useAudit((s) => s.setFilters);
  const id = `audit-${filter}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        className="select"
        value={value}
        onChange={(event) => setFilters({ [filter]: event.target.value })}
        data-testid={id}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

const ACTION_OPTIONS: readonly Option[] = [{ value: '', label: 'Everything' }, ...ACTION_FAMILIES];

function Filters() {
  const filters = useAudit((s) => s.filters);
  const setFilters = useAudit((s) => s.setFilters);
  const members = useMembers((s) => s.members);
  const membersStatus = useMembers((s) => s.status);
  const loadMembers = useMembers((s) => s.load);
  // The actor filter names members; an admin may read them (the audit right goes with it).
  useEffect(() => {
    if (membersStatus === 'idle') void loadMembers();
  }, [membersStatus, loadMembers]);
  const filtered = Boolean(filters.actor || filters.action || filters.since);
  const actors = useMemo<Option[]>(
    () => [
      { value: '', label: 'Anyone' },
      ...members.map((m) => ({
        value: m.id,
        label: m.active ? m.name : `${m.name} (deactivated)`,
      })),
      { value: 'cli', label: 'Command line' },
      { value: 'system', label: 'Parley' },
    ],
    [members],
  );

  return (
    <div className="toolbar" role="group" aria-label="Filter the audit trail">
      <FilterSelect filter="actor" label="Who" options={actors} />
      <FilterSelect filter="action" label="What" options={ACTION_OPTIONS} />
      <div className="field">
        <label htmlFor="audit-since">Since</label>
        <input
          id="audit-since"
          className="input"
          type="date"
          value={filters.since}
          onChange={(event) => setFilters({ since: event.target.value })}
          data-testid="audit-since"
        />
      </div>
      {filtered ? (
        <div className="field field-action">
          <button
            type="button"
            className="button"
            onClick={() => setFilters({ actor: '', action: '', since: '' })}
            data-testid="audit-clear"
          >
            Clear filters
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** Settings → Audit: who did what and when (kept 400 days), newest first. */
export function AuditScreen() {
  const entries = useAudit((s) => s.entries);
  const status = useAudit((s) => s.status);
  const error = useAudit((s) => s.error);
  const load = useAudit((s) => s.load);
  const loadMore = useAudit((s) => s.loadMore);
  const nextCursor = useAudit((s) => s.nextCursor);
  const loadingMore = useAudit((s) => s.loadingMore);
  const filtered = useAudit((s) => Boolean(s.filters.actor || s.filters.action || s.filters.since));

  useLoadWhenIdle(status, load);

  // API keys by name, not id: one list request, for a member who may read the keys.
  const canReadKeys = useCan('keys');
  const keys = useKeys((s) => s.keys);
  const keysStatus = useKeys((s) => s.status);
  const loadKeys = useKeys((s) => s.load);
  useEffect(() => {
    if (canReadKeys && keysStatus === 'idle') void loadKeys();
  }, [canReadKeys, keysStatus, loadKeys]);
  const keyNames = useMemo(() => new Map(keys.map((k) => [k.id, k.name])), [keys]);

  return (
    <div className="screen" data-testid="screen-audit">
      <PageHeader
        eyebrow="Settings"
        title="Audit"
        description="Sign-ins (and refused ones), member and role changes, API keys, money, settings, launches, exports and deletions: who did it, when, and from which address. Kept 400 days."
        actions={
          <ExportButton
            right="audit"
            load={() => api.audit.export(auditQuery(useAudit.getState().filters))}
            testId="audit-export"
          />
        }
      />
      <section className="card card-flush" aria-labelledby="audit-title">
        <h2 className="visually-hidden" id="audit-title">
          Audit trail
        </h2>
        <Filters />
        {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
        <PagedTable
          hasRows={entries.length > 0}
          empty={
            status === 'ready'
              ? filtered
                ? 'Nothing matches these filters.'
                : 'Nothing recorded yet.'
              : 'Loading…'
          }
          emptyTestId="audit-empty"
          testId="audit-table"
          columns={COLUMNS}
          nextCursor={nextCursor}
          loadingMore={loadingMore}
          loadMore={loadMore}
        >
          {entries.map((entry) => (
            <tr key={entry.id} data-testid="audit-row">
              <td className="nowrap">{formatDateTime(entry.createdAt)}</td>
              <td className="cell-strong" data-testid="audit-actor-cell">
                {actorWords(entry.actor, keyNames)}
              </td>
              <td data-testid="audit-action-cell" title={entry.action}>
                {actionWords(entry.action)}
              </td>
              <td className="cell-wrap">{targetWords(entry.target, keyNames)}</td>
              <td className="nowrap">{entry.address ?? '—'}</td>
            </tr>
          ))}
        </PagedTable>
      </section>
    </div>
  );
}
