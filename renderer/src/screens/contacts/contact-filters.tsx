import { useState } from 'react';
import { plural } from '../../components/format.ts';
import { SearchField } from '../../components/search-field.tsx';
import { useDebounced } from '../../components/use-debounced.ts';
import { useContacts, type ContactFilters as Filters } from '../../stores/contacts.ts';

const DEBOUNCE_MS = 300;

/** Keeps typing responsive: the store (and the request) follows the input after a pause. */
function useDebouncedFilter(name: keyof Filters) {
  const stored = useContacts((s) => s.filters[name]);
  const setFilters = useContacts((s) => s.setFilters);
  const [value, setValue] = useState(stored);
  useDebounced(value, (settled) => setFilters({ [name]: settled }), DEBOUNCE_MS);

  return [value, setValue] as const;
}

export function ContactFilters() {
  const [q, setQ] = useDebouncedFilter('q');
  const [label, setLabel] = useDebouncedFilter('label');
  const count = useContacts((s) => s.contacts.length);
  const total = useContacts((s) => s.total);
  const more = useContacts((s) => s.nextCursor !== null);
  const status = useContacts((s) => s.status);

  return (
    <div className="toolbar">
      <SearchField
        value={q}
        onChange={setQ}
        placeholder="Search name, phone or email"
        label="Search contacts"
        testId="contacts-search"
      />
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
          : total !== null
            ? plural(total, 'contact')
            : more
              ? `${count.toLocaleString('en-US')} shown · scroll for more`
              : plural(count, 'contact')}
      </span>
    </div>
  );
}
