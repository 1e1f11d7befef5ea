import { useEffect, useState } from 'react';
import type { Group } from '../../../../shared/schemas/index.ts';
import { api, errorMessage, scopeGeneration } from '../../api/client.ts';

/** The core's largest page, and how many of them the picker reads at most (2,000 groups). */
const PAGE = 200;
const MAX_PAGES = 10;

export interface Groups {
  groups: Group[];
  status: 'loading' | 'ready' | 'error';
  error: string | null;
}

/** The workspace's contact groups, by name, read once when the wizard opens. */
export function useGroups(): Groups {
  const [state, setState] = useState<Groups>({ groups: [], status: 'loading', error: null });
  useEffect(() => {
    let cancelled = false;
    const generation = scopeGeneration();
    (async () => {
      const groups: Group[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < MAX_PAGES; i++) {
        const page = await api.groups.list({ limit: PAGE, cursor });
        groups.push(...page.data);
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      return groups.sort((a, b) => a.name.localeCompare(b.name));
    })().then(
      (groups) => {
        if (!cancelled && generation === scopeGeneration()) {
          setState({ groups, status: 'ready', error: null });
        }
      },
      (e: unknown) => {
        if (!cancelled) setState({ groups: [], status: 'error', error: errorMessage(e) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, []);
  return state;
}
