import { useState } from 'react';
import type { EndpointGroup } from '../../api/openapi.ts';
import { SearchField } from '../../components/search-field.tsx';

export function MethodBadge({ method }: { method: string }) {
  return <span className={`method method-${method.toLowerCase()}`}>{method}</span>;
}

interface EndpointListProps {
  groups: EndpointGroup[];
  selected: string | null;
  onSelect: (key: string) => void;
}

export function EndpointList({ groups, selected, onSelect }: EndpointListProps) {
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const shown = groups
    .map((g) => ({
      ...g,
      endpoints: g.endpoints.filter(
        (e) =>
          !needle ||
          e.key.toLowerCase().includes(needle) ||
          e.summary.toLowerCase().includes(needle) ||
          g.tag.toLowerCase().includes(needle),
      ),
    }))
    .filter((g) => g.endpoints.length > 0);

  return (
    <nav className="endpoint-list card card-flush" aria-label="Endpoints">
      <SearchField
        className="endpoint-search search-input"
        value={filter}
        onChange={setFilter}
        placeholder="Filter endpoints"
        label="Filter endpoints"
        testId="endpoint-filter"
      />
      <div className="endpoint-scroll">
        {shown.length === 0 ? <p className="empty-state small">No endpoint matches.</p> : null}
        {shown.map((group) => (
          <div key={group.tag} className="endpoint-group">
            <div className="endpoint-group-title">{group.tag}</div>
            {group.endpoints.map((endpoint) => (
              <button
                key={endpoint.key}
                type="button"
                className={`endpoint-item${selected === endpoint.key ? ' selected' : ''}`}
                aria-current={selected === endpoint.key ? 'true' : undefined}
                onClick={() => onSelect(endpoint.key)}
                title={endpoint.summary}
                data-testid={`endpoint-${endpoint.key}`}
              >
                <span className="endpoint-line">
                  <MethodBadge method={endpoint.method} />
                  <span className="endpoint-path">{endpoint.path}</span>
                </span>
                {endpoint.summary ? (
                  <span className="endpoint-summary">{endpoint.summary}</span>
                ) : null}
              </button>
            ))}
          </div>
        ))}
      </div>
    </nav>
  );
}
