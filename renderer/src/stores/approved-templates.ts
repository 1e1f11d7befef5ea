import { create } from 'zustand';
import type { Template } from '../../../shared/schemas/index.ts';
import { api, scopeGeneration } from '../api/client.ts';
import { events } from '../api/events.ts';
import { registerScopedStore, type LoadStatus } from './scope.ts';

/** Approved templates, for the composers' pickers (contacts drawer, inbox); kept live by events. */
interface ApprovedTemplatesState {
  approved: Template[];
  status: LoadStatus;
  /** Loads once per scope; later calls are no-ops unless the last load failed. */
  ensureLoaded: () => void;
  load: () => Promise<void>;
  reset: () => void;
}

const byName = (a: Template, b: Template): number => a.name.localeCompare(b.name);

export const useApprovedTemplates = create<ApprovedTemplatesState>()((set, get) => ({
  approved: [],
  status: 'idle',

  ensureLoaded: () => {
    const { status, load } = get();
    if (status === 'idle' || status === 'error') void load();
  },

  load: async () => {
    const generation = scopeGeneration();
    set({ status: 'loading' });
    try {
      const page = await api.templates.list({ status: 'APPROVED', limit: 200 });
      if (generation === scopeGeneration()) {
        set({ approved: page.data.slice().sort(byName), status: 'ready' });
      }
    } catch {
      if (generation === scopeGeneration()) set({ status: 'error' });
    }
  },

  reset: () => set({ approved: [], status: 'idle' }),
}));

registerScopedStore(() => useApprovedTemplates.getState().reset());

events.subscribe('template.status_updated', (event) => {
  const template = event.data.template as Template | undefined;
  if (!template?.id) return;
  useApprovedTemplates.setState((s) => {
    if (s.status !== 'ready') return s;
    const others = s.approved.filter((t) => t.id !== template.id);
    return {
      approved: template.status === 'APPROVED' ? [...others, template].sort(byName) : others,
    };
  });
});

/** Whether an approved template can be sent now (test templates at once, live after a wait). */
export const isUsable = (template: Template, now: number): boolean =>
  template.status === 'APPROVED' &&
  (template.usableAt === null || Date.parse(template.usableAt) <= now);
