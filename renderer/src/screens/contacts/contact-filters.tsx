import { useEffect, useState } from 'react';
import { SearchIcon } from '../../components/icons.tsx';
import { plural } from '../../components/format.ts';
import { useContacts, type ContactFilters as Filters } from '../../stores/contacts.ts';

const DEBOUNCE_MS = 300;

/** Keeps typing responsive: the store (and the request) follows the input after a pause. */
function useDebouncedFilter(name: keyof Filters) {
  const stored = useContacts((s) => s.filters[name]);
  const setFilters = useContacts((s) => s.setFilters);
  const [value, setValue] = useState(stored);

  useEffect(() => {
    const timer = window.setTimeout(() => setFilters({ [name]: value }), DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [name, value, setFilters]);

  return [value, setValue] as const;
}

export function ContactFilters() {
  const [q, setQ] = useDebouncedFilter('q');
  const [label, setLabel] = useDebouncedFilter('label');
  const count = useContacts((s) => s.contacts.length);
  const more = useContacts((s) => s.nextCursor !== null);
  const status = useContacts((s) => s.status);

  return (
    <div className="toolbar">
      <div className="search-input">
        <SearchIcon />
        <input
          type="search"
          className="input"
          placeholder="Search name, phone or email"
          aria-label="Search contacts"
          value={q}
          onChange={(event) => setQ(event.target.value)}
          data-testid="contacts-search"
        />
      </div>
      <input
        type="search"
        className="input input-label-filter"
        placeholder="Filter by label"
        aria-label="Filter by label"
        value={label}
        onChange={(event) => setLabel(event.target.value)}
        data-testid="contacts-label-filter"
      />
      <span className="toolbar-meta" data-testid="contacts-count" aria-live="polite">
        {status === 'loading'
          ? 'Loading…'
          : more
            ? `${count.toLocaleString('en-US')} shown · scroll for more`
            : plural(count, 'contact')}
      </span>
    </div>
  );
}
