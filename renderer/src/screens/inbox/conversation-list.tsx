import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { Agent, ConversationStatus } from '../../../../shared/schemas/index.ts';
import { CloseIcon, PlusIcon, SlidersIcon } from '../../components/icons.tsx';
import { SearchField } from '../../components/search-field.tsx';
import { Tab } from '../../components/tab.tsx';
import { useDebounced } from '../../components/use-debounced.ts';
import { useNow } from '../../components/use-now.ts';
import { useAgents } from '../../stores/agents.ts';
import { selectMemberId, useSession } from '../../stores/session.ts';
import { useInbox, type AssigneeFilter } from '../../stores/inbox.ts';
import { useThread } from '../../stores/thread.ts';
import { notifyError } from '../../stores/toasts.ts';
import { BulkBar } from './bulk-bar.tsx';
import { ConversationRow, ROW_HEIGHT } from './conversation-row.tsx';
import { EmptyInbox } from './empty-inbox.tsx';
import './inbox-list.css';
import { NewConversationDialog } from './new-conversation-dialog.tsx';
import { useViewingByConversation } from './thread-viewers.tsx';
import { step } from './use-inbox-shortcuts.ts';

/** Start fetching the next page this many rows before the end comes into view. */
const LOAD_AHEAD = 40;
const SEARCH_DEBOUNCE_MS = 250;

const TABS: { status: ConversationStatus; label: string }[] = [
  { status: 'open', label: 'Open' },
  { status: 'pending', label: 'Pending' },
  { status: 'snoozed', label: 'Snoozed' },
  { status: 'resolved', label: 'Resolved' },
];

const ASSIGNEE_CHIPS: { value: AssigneeFilter; label: string }[] = [
  { value: 'me', label: 'Mine' },
  { value: 'unassigned', label: 'Unassigned' },
  { value: 'all', label: 'All' },
];

const formatCount = (n: number): string =>
  n >= 100_000
    ? `${Math.floor(n / 1000)}k`
    : n >= 10_000
      ? `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`
      : n.toLocaleString('en-US');

const ASSIGNEE_NAMES: Record<Exclude<AssigneeFilter, 'all'>, string> = {
  me: 'Mine',
  unassigned: 'Unassigned',
};

/** The filters in force besides the status tab and the search, as removable chips. */
function ActiveFilters({ clearLabel }: { clearLabel: () => void }) {
  const filters = useInbox((s) => s.filters);
  const setFilters = useInbox((s) => s.setFilters);
  const chips: { key: string; text: string; remove: () => void }[] = [];
  if (filters.assignee !== 'all') {
    chips.push({
      key: 'assignee',
      text: ASSIGNEE_NAMES[filters.assignee],
      remove: () => setFilters({ assignee: 'all' }),
    });
  }
  if (filters.label) {
    chips.push({
      key: 'label',
      text: `Label: ${filters.label}`,
      remove: () => {
        clearLabel();
        setFilters({ label: '' });
      },
    });
  }
  if (filters.unread) {
    chips.push({ key: 'unread', text: 'Unread', remove: () => setFilters({ unread: false }) });
  }
  if (chips.length === 0) return null;
  return (
    <ul className="inbox-active-filters" aria-label="Filters in force">
      {chips.map((chip) => (
        <li key={chip.key}>
          <button
            type="button"
            className="chip chip-small active-filter"
            aria-label={`Remove the filter ${chip.text}`}
            onClick={chip.remove}
            data-testid="active-filter"
          >
            {chip.text}
            <CloseIcon />
          </button>
        </li>
      ))}
    </ul>
  );
}

/**
 * The assignee, label and unread filters, in a panel under the Filters button: folded away, the
 * list keeps its height for conversations (six and more at 1024×700).
 */
function FilterPanel({
  id,
  label,
  setLabel,
  onClose,
}: {
  id: string;
  label: string;
  setLabel: (label: string) => void;
  onClose: (refocus: boolean) => void;
}) {
  const filters = useInbox((s) => s.filters);
  const knownLabels = useInbox((s) => s.knownLabels);
  const setFilters = useInbox((s) => s.setFilters);
  const hasMe = useSession((s) => selectMemberId(s) !== null);
  const panel = useRef<HTMLDivElement>(null);

  // A click elsewhere folds it (the toggle button handles its own clicks).
  useEffect(() => {
    const onDown = (event: MouseEvent) => {
      const target = event.target as Node;
      if (panel.current?.contains(target)) return;
      if ((target as Element).closest?.('[data-testid="inbox-filters-toggle"]')) return;
      onClose(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [onClose]);

  return (
    <div
      ref={panel}
      id={id}
      className="inbox-filter-panel"
      role="group"
      aria-label="Filters"
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        // Esc folds the panel only: the inbox's own Escape must not also act.
        event.preventDefault();
        event.stopPropagation();
        onClose(true);
      }}
      data-testid="inbox-filter-panel"
    >
      <div className="segmented-chips" role="group" aria-label="Assignee">
        {ASSIGNEE_CHIPS.map((chip) => {
          const disabled = chip.value === 'me' && !hasMe;
          return (
            <button
              key={chip.value}
              type="button"
              className={`filter-chip${filters.assignee === chip.value ? ' selected' : ''}`}
              aria-pressed={filters.assignee === chip.value}
              disabled={disabled}
              onClick={() => setFilters({ assignee: chip.value })}
              data-testid={`assignee-filter-${chip.value}`}
            >
              {chip.label}
            </button>
          );
        })}
      </div>
      <div className="inbox-filter-row">
        <input
          className="input input-small label-filter"
          value={label}
          list="inbox-known-labels"
          placeholder="Label"
          aria-label="Filter by label"
          onChange={(event) => setLabel(event.target.value)}
          data-testid="label-filter"
        />
        <datalist id="inbox-known-labels">
          {knownLabels.map((l) => (
            <option key={l} value={l} />
          ))}
        </datalist>
        <button
          type="button"
          className="filter-chip unread-toggle"
          aria-pressed={filters.unread}
          onClick={() => setFilters({ unread: !filters.unread })}
          data-testid="unread-filter"
        >
          Unread only
        </button>
      </div>
    </div>
  );
}

function ListFilters() {
  const filters = useInbox((s) => s.filters);
  const counts = useInbox((s) => s.counts);
  const setFilters = useInbox((s) => s.setFilters);
  const selectStatus = useInbox((s) => s.selectStatus);
  const [composing, setComposing] = useState(false);
  const [panelOpen, setPanelOpen] = useState(false);
  const [q, setQ] = useState(filters.q);
  const [label, setLabel] = useState(filters.label);
  const panelId = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  const active =
    (filters.assignee !== 'all' ? 1 : 0) + (filters.label ? 1 : 0) + (filters.unread ? 1 : 0);

  useDebounced(q, (value) => setFilters({ q: value.trim() }), SEARCH_DEBOUNCE_MS);
  useDebounced(label, (value) => setFilters({ label: value.trim() }), SEARCH_DEBOUNCE_MS);

  const closePanel = useCallback((refocus: boolean) => {
    setPanelOpen(false);
    if (refocus) toggle.current?.focus();
  }, []);

  return (
    <div className="inbox-list-head">
      <div className="inbox-head-row">
        <SelectAllLoaded />
        <SearchField
          className="inbox-search"
          value={q}
          onChange={setQ}
          placeholder="Search"
          label="Search conversations"
          onKeyDown={(event) => {
            if (event.key === 'Enter') setFilters({ q: q.trim() });
          }}
          testId="inbox-search"
        >
          <kbd className="kbd" aria-hidden="true">
            /
          </kbd>
        </SearchField>
        <button
          ref={toggle}
          type="button"
          className={`button button-small inbox-filters-toggle${active ? ' active' : ''}`}
          aria-expanded={panelOpen}
          aria-controls={panelOpen ? panelId : undefined}
          title="Filter by assignee, label or unread"
          onClick={() => setPanelOpen((open) => !open)}
          data-testid="inbox-filters-toggle"
        >
          <SlidersIcon />
          <span className="visually-hidden">Filters</span>
          {active ? (
            <span className="inbox-filters-count">
              {active}
              <span className="visually-hidden"> in force</span>
            </span>
          ) : null}
        </button>
        <button
          type="button"
          className="button button-small new-conversation-button"
          aria-label="New conversation"
          title="New conversation"
          onClick={() => setComposing(true)}
          data-testid="new-conversation"
        >
          <PlusIcon />
        </button>
      </div>
      {panelOpen ? (
        <FilterPanel id={panelId} label={label} setLabel={setLabel} onClose={closePanel} />
      ) : null}
      <ActiveFilters clearLabel={() => setLabel('')} />
      {composing ? <NewConversationDialog onClose={() => setComposing(false)} /> : null}
      <div className="inbox-tabs" role="tablist" aria-label="Status">
        {TABS.map((tab) => {
          const selected = filters.status === tab.status;
          const count = counts?.[tab.status];
          return (
            <Tab
              key={tab.status}
              selected={selected}
              // Always a fresh read, even of the current tab: the agent asked to see it now.
              onSelect={() => selectStatus(tab.status)}
              className="inbox-tab"
              title={
                count === undefined
                  ? undefined
                  : `${count.toLocaleString('en-US')} ${tab.label.toLowerCase()}`
              }
              testId={`status-tab-${tab.status}`}
            >
              <span className="inbox-tab-count" data-testid={`status-count-${tab.status}`}>
                {count === undefined ? '–' : formatCount(count)}
              </span>
              <span className="inbox-tab-label">{tab.label}</span>
            </Tab>
          );
        })}
      </div>
    </div>
  );
}

/** Ticks every loaded row (or none): bulk actions apply to what is ticked. */
function SelectAllLoaded() {
  const loaded = useInbox((s) => s.conversations.length);
  const ticked = useInbox((s) => s.conversations.filter((c) => s.selection.has(c.id)).length);
  const toggleAllLoaded = useInbox((s) => s.toggleAllLoaded);
  return (
    <label className="select-all" title="Select all loaded conversations">
      <input
        type="checkbox"
        checked={loaded > 0 && ticked === loaded}
        ref={(input) => {
          if (input) input.indeterminate = ticked > 0 && ticked < loaded;
        }}
        disabled={loaded === 0}
        onChange={toggleAllLoaded}
        data-testid="select-all"
      />
      <span className="visually-hidden">Select all loaded conversations</span>
    </label>
  );
}

function EmptyList() {
  const status = useInbox((s) => s.status);
  const filters = useInbox((s) => s.filters);
  const counts = useInbox((s) => s.counts);
  const error = useInbox((s) => s.error);
  const load = useInbox((s) => s.load);
  if (status === 'loading' || status === 'idle') {
    return (
      <div className="inbox-empty" aria-busy="true">
        Loading conversations…
      </div>
    );
  }
  if (status === 'error') {
    return (
      <div className="inbox-empty" role="alert">
        <p>{error ?? 'The conversations could not be loaded.'}</p>
        <button type="button" className="button button-small" onClick={() => void load()}>
          Try again
        </button>
      </div>
    );
  }
  const filtered = filters.q || filters.label || filters.assignee !== 'all' || filters.unread;
  const none = counts !== null && Object.values(counts).every((n) => n === 0);
  if (!filtered && none) return <EmptyInbox />;
  return (
    <div className="inbox-empty" data-testid="inbox-empty">
      {filtered ? (
        <p>No {filters.status} conversations match these filters.</p>
      ) : filters.status === 'open' ? (
        <>
          <p className="inbox-empty-title">All caught up</p>
          <p>New messages from customers land here.</p>
        </>
      ) : (
        <p>No {filters.status} conversations.</p>
      )}
    </div>
  );
}

/** The virtualised list of conversations: only the rows in view (plus a few) are in the DOM. */
export function ConversationList() {
  const conversations = useInbox((s) => s.conversations);
  const nextCursor = useInbox((s) => s.nextCursor);
  const loadingMore = useInbox((s) => s.loadingMore);
  const loadMore = useInbox((s) => s.loadMore);
  const filters = useInbox((s) => s.filters);
  const selectedId = useThread((s) => s.conversationId);
  const open = useThread((s) => s.open);
  const selection = useInbox((s) => s.selection);
  const toggleSelected = useInbox((s) => s.toggleSelected);
  const agentList = useAgents((s) => s.agents);
  const meId = useSession(selectMemberId);
  const viewing = useViewingByConversation();
  const now = useNow(30_000);
  const scrollRef = useRef<HTMLDivElement>(null);
  // The bulk bar floats over the list's lower edge: the list scrolls its last rows out from under it.
  const [bulkHeight, setBulkHeight] = useState(0);

  const agents = useMemo(
    () => new Map<string, Agent>(agentList.map((a) => [a.id, a])),
    [agentList],
  );
  const onSelect = useCallback((id: string) => open(id), [open]);

  const rowCount = conversations.length + (nextCursor ? 1 : 0);
  // TanStack Virtual returns fresh functions each render by design; nothing here is memoised on them.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 6,
    getItemKey: (index) => conversations[index]?.id ?? 'loader',
    scrollPaddingEnd: bulkHeight,
  });
  const items = virtualizer.getVirtualItems();
  const lastVisible = items.length > 0 ? items[items.length - 1]!.index : -1;

  useEffect(() => {
    if (nextCursor && !loadingMore && lastVisible >= conversations.length - LOAD_AHEAD) {
      loadMore().catch(notifyError);
    }
  }, [lastVisible, conversations.length, nextCursor, loadingMore, loadMore]);

  // Another tab, filter or search starts from the top.
  useEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [filters]);

  // Keep the selected row in view (j / k walk past the edge).
  const selectedIndex = selectedId ? conversations.findIndex((c) => c.id === selectedId) : -1;
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
    // Only a new selection scrolls; re-sorting under a reading agent must not.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selectedId]);

  return (
    <section className="inbox-list" aria-label="Conversations">
      <ListFilters />
      <div
        className="inbox-list-scroll"
        ref={scrollRef}
        style={bulkHeight ? { paddingBottom: bulkHeight } : undefined}
        // A listbox must hold options: with none, the empty state is plain text, not a widget.
        role={conversations.length > 0 ? 'listbox' : undefined}
        aria-label={conversations.length > 0 ? 'Conversations' : undefined}
        aria-activedescendant={selectedIndex >= 0 ? `conversation-${selectedId}` : undefined}
        tabIndex={conversations.length > 0 ? 0 : undefined}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            step(event.key === 'ArrowDown' ? 1 : -1);
          } else if (event.key === ' ' && selectedId) {
            // Space ticks the current row for a bulk action (shift+Space: the range to it).
            event.preventDefault();
            toggleSelected(selectedId, event.shiftKey);
          }
        }}
        data-testid="conversation-list"
      >
        {conversations.length === 0 ? (
          <EmptyList />
        ) : (
          <div className="inbox-list-body" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const conversation = conversations[item.index];
              if (!conversation) {
                const style = { height: item.size, transform: `translateY(${item.start}px)` };
                return (
                  <div key="loader" className="conv-row conv-loader" style={style}>
                    Loading more…
                  </div>
                );
              }
              return (
                <ConversationRow
                  key={conversation.id}
                  conversation={conversation}
                  selected={conversation.id === selectedId}
                  agents={agents}
                  meId={meId}
                  now={now}
                  index={item.index}
                  top={item.start}
                  onSelect={onSelect}
                  checked={selection.has(conversation.id)}
                  onToggle={toggleSelected}
                  viewing={viewing.get(conversation.id) ?? null}
                  query={filters.q}
                />
              );
            })}
          </div>
        )}
      </div>
      <BulkBar onHeight={setBulkHeight} />
    </section>
  );
}
