import { create } from 'zustand';
import type {
  CreateTemplateBody,
  EditTemplateBody,
  Template,
  TemplateStatus,
} from '../../../shared/schemas/index.ts';
import { api, scopeGeneration, type ReviewDecision } from '../api/client.ts';
import { events } from '../api/events.ts';
import {
  createStatusFilteredList,
  emptyPagedList,
  withFresherRow,
  type PagedListMeta,
  type StatusFilteredActions,
} from './paged-list.ts';
import { registerScopedStore } from './scope.ts';
import { notify } from './toasts.ts';

export type StatusFilter = TemplateStatus | '';

interface TemplatesState extends PagedListMeta, StatusFilteredActions<StatusFilter> {
  templates: Template[];
  statusFilter: StatusFilter;
  create: (body: CreateTemplateBody) => Promise<Template>;
  edit: (id: string, body: EditTemplateBody) => Promise<Template>;
  remove: (id: string) => Promise<void>;
  /** Reconciles with the provider; resolves with how many pending reviews it completed. */
  sync: () => Promise<number>;
  review: (id: string, decision: ReviewDecision, reason?: string) => Promise<void>;
  /** Puts a fresher copy of a template into the list (from an answer or an event). */
  apply: (template: Template) => void;
  reset: () => void;
}

const PAGE_SIZE = 50;

const emptyList = (): Pick<TemplatesState, 'templates' | keyof PagedListMeta> => ({
  ...emptyPagedList(),
  templates: [],
});

/** An answer or event older than what is shown must not roll a status back. */
const newer = (current: Template, next: Template): Template =>
  Date.parse(next.updatedAt) < Date.parse(current.updatedAt) ? current : next;

export const useTemplates = create<TemplatesState>()((set, get) => {
  const list = createStatusFilteredList({
    set,
    get,
    read: (query) => api.templates.list(query),
    pageSize: PAGE_SIZE,
    rows: (s) => s.templates,
    withRows: (templates) => ({ templates }),
  });

  return {
    ...emptyList(),
    statusFilter: '',
    ...list.actions,

    create: async (body) => {
      const { template } = await api.templates.create(body);
      get().apply(template);
      return template;
    },

    edit: async (id, body) => {
      const template = await api.templates.edit(id, body);
      get().apply(template);
      return template;
    },

    remove: async (id) => {
      await api.templates.remove(id);
      set((s) => ({ templates: s.templates.filter((t) => t.id !== id) }));
    },

    sync: async () => {
      const generation = scopeGeneration();
      const result = await api.templates.sync();
      if (generation === scopeGeneration()) {
        for (const template of result.templates) get().apply(template);
      }
      return result.reviewed;
    },

    review: async (id, decision, reason) => {
      await api.simulator.review(id, reason ? { decision, reason } : { decision });
      // The status change arrives on the event stream; fetch it too in case the stream is down.
      const template = await api.templates.get(id);
      get().apply(template);
    },

    apply: (template) => {
      set((s) => {
        const templates = withFresherRow(s.templates, template, s, newer);
        return templates === s.templates ? s : { templates };
      });
    },

    reset: () => {
      list.invalidate();
      set(emptyList());
    },
  };
});

registerScopedStore(() => useTemplates.getState().reset());

const STATUS_WORDS: Partial<Record<TemplateStatus, string>> = {
  APPROVED: 'was approved',
  REJECTED: 'was rejected',
  PAUSED: 'was paused',
  DISABLED: 'was disabled',
};

events.subscribe('template.status_updated', (event) => {
  const template = event.data.template as Template | undefined;
  if (!template?.id) return;
  const known = useTemplates.getState().templates.some((t) => t.id === template.id);
  useTemplates.getState().apply(template);
  const words = STATUS_WORDS[template.status];
  if (known && words && event.data.previousStatus !== template.status) {
    notify(
      template.status === 'APPROVED' ? 'success' : 'info',
      `Template “${template.name}” ${words}.`,
    );
  }
});

export const STATUS_LABELS: Record<TemplateStatus, string> = {
  PENDING: 'Pending',
  APPROVED: 'Approved',
  REJECTED: 'Rejected',
  PAUSED: 'Paused',
  DISABLED: 'Disabled',
};
