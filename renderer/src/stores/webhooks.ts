import { create } from 'zustand';
import type {
  CreatedWebhook,
  CreateWebhookBody,
  DeliveryStatus,
  UpdateWebhookBody,
  Webhook,
  WebhookDelivery,
} from '../../../shared/schemas/webhooks.ts';
import { api, ApiRequestError, errorMessage, type Page } from '../api/client.ts';
import {
  createPagedList,
  createStatusFilteredList,
  emptyPagedList,
  type PagedListMeta,
  type StatusFilteredActions,
} from './paged-list.ts';
import { createRequestGuard, registerScopedStore, type LoadStatus } from './scope.ts';

export type { CreatedWebhook, DeliveryStatus, Webhook, WebhookDelivery };
export type DeliveryFilter = DeliveryStatus | '';

const PAGE_SIZE = 50;

/**
 * A first page read again (a quiet refresh) over the rows shown: its rows replace theirs, and
 * older rows already loaded below it (later pages) stay, with the cursor that follows them.
 */
export function overFirstPage<T extends { id: string }>(
  shown: { rows: T[]; nextCursor: string | null },
  page: Page<T>,
): { rows: T[]; nextCursor: string | null } {
  const last = page.data.at(-1)?.id;
  const fresh = new Set(page.data.map((row) => row.id));
  const older =
    page.nextCursor && last ? shown.rows.filter((row) => !fresh.has(row.id) && row.id < last) : [];
  return {
    rows: [...page.data, ...older],
    nextCursor: older.length > 0 ? shown.nextCursor : page.nextCursor,
  };
}

/** The endpoints of this workspace and mode, each with its newest delivery. */
interface WebhooksState extends PagedListMeta {
  webhooks: Webhook[];
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  /** Reads the first page again without showing a load (the newest deliveries move). */
  refresh: () => Promise<void>;
  /** Resolves with the secret, which is shown once and never kept here. */
  create: (body: CreateWebhookBody) => Promise<CreatedWebhook>;
  update: (id: string, body: UpdateWebhookBody) => Promise<Webhook>;
  remove: (id: string) => Promise<void>;
  /** A fresher copy of an endpoint (its log page changed it). */
  apply: (webhook: Webhook) => void;
  reset: () => void;
}

const noWebhooks = () => ({ ...emptyPagedList(), webhooks: [] as Webhook[] });

export const useWebhooks = create<WebhooksState>()((set, get) => {
  const list = createPagedList({
    set,
    get,
    first: () => api.webhooks.list({ limit: PAGE_SIZE }),
    next: (cursor) => api.webhooks.list({ limit: PAGE_SIZE, cursor }),
    rows: (s) => s.webhooks,
    withRows: (webhooks) => ({ webhooks }),
  });
  return {
    ...noWebhooks(),
    load: list.load,
    loadMore: list.loadMore,

    refresh: async () => {
      if (get().status !== 'ready') return;
      const isCurrent = list.guard.start();
      const page = await api.webhooks.list({ limit: PAGE_SIZE });
      if (!isCurrent()) return;
      set((s) => {
        const { rows, nextCursor } = overFirstPage(
          { rows: s.webhooks, nextCursor: s.nextCursor },
          page,
        );
        return { webhooks: rows, nextCursor };
      });
    },

    create: async (body) => {
      const created = await api.webhooks.create(body);
      const { secret: _secret, ...webhook } = created;
      set((s) => ({ webhooks: [webhook, ...s.webhooks.filter((w) => w.id !== webhook.id)] }));
      return created;
    },

    update: async (id, body) => {
      const webhook = await api.webhooks.update(id, body);
      get().apply(webhook);
      useWebhookLog.getState().applyWebhook(webhook);
      return webhook;
    },

    remove: async (id) => {
      await api.webhooks.remove(id);
      set((s) => ({ webhooks: s.webhooks.filter((w) => w.id !== id) }));
    },

    apply: (webhook) =>
      set((s) => ({ webhooks: s.webhooks.map((w) => (w.id === webhook.id ? webhook : w)) })),

    reset: () => {
      list.invalidate();
      set(noWebhooks());
    },
  };
});

registerScopedStore(() => useWebhooks.getState().reset());

/** One endpoint and its delivery log, newest first, filtered by status. */
interface WebhookLogState extends PagedListMeta, StatusFilteredActions<DeliveryFilter> {
  webhookId: string | null;
  webhook: Webhook | null;
  webhookStatus: LoadStatus;
  webhookError: string | null;
  notFound: boolean;
  deliveries: WebhookDelivery[];
  statusFilter: DeliveryFilter;
  /** Opens an endpoint's page (its log loads when the page asks). */
  show: (webhookId: string) => void;
  /** Reads the endpoint and the log's first page again, without showing a load. */
  refresh: () => Promise<void>;
  /**
   * Sends the delivery's event now: a waiting delivery is tried at once (its row changes), an
   * ended one gets a new delivery (a row at the top).
   */
  redeliver: (deliveryId: string) => Promise<WebhookDelivery>;
  applyWebhook: (webhook: Webhook) => void;
  reset: () => void;
}

const noLog = () => ({
  ...emptyPagedList(),
  deliveries: [] as WebhookDelivery[],
  webhook: null,
  webhookStatus: 'idle' as LoadStatus,
  webhookError: null,
  notFound: false,
});

export const useWebhookLog = create<WebhookLogState>()((set, get) => {
  const list = createStatusFilteredList({
    set,
    get,
    read: (query) => api.webhooks.deliveries(get().webhookId ?? '', query),
    pageSize: PAGE_SIZE,
    rows: (s) => s.deliveries,
    withRows: (deliveries) => ({ deliveries }),
  });
  const webhookGuard = createRequestGuard();

  const readWebhook = async (quiet: boolean): Promise<void> => {
    const id = get().webhookId;
    if (!id) return;
    const isCurrent = webhookGuard.start();
    if (!quiet) set({ webhookStatus: 'loading', webhookError: null, notFound: false });
    try {
      const webhook = await api.webhooks.get(id);
      if (!isCurrent()) return;
      set({ webhook, webhookStatus: 'ready' });
      useWebhooks.getState().apply(webhook);
    } catch (e) {
      if (!isCurrent()) return;
      const notFound = e instanceof ApiRequestError && e.status === 404;
      if (!quiet || notFound)
        set({ webhookStatus: 'error', webhookError: errorMessage(e), notFound });
    }
  };

  return {
    ...noLog(),
    webhookId: null,
    statusFilter: '',
    ...list.actions,

    show: (webhookId) => {
      if (webhookId === get().webhookId) return;
      list.invalidate();
      webhookGuard.invalidate();
      set({ ...noLog(), webhookId, statusFilter: '' });
      void readWebhook(false);
    },

    refresh: async () => {
      const { webhookId, status, statusFilter } = get();
      if (!webhookId) return;
      const reads: Promise<void>[] = [readWebhook(true)];
      if (status === 'ready') {
        const isCurrent = list.guard.start();
        reads.push(
          api.webhooks
            .deliveries(webhookId, { status: statusFilter, limit: PAGE_SIZE })
            .then((page) => {
              if (!isCurrent()) return;
              set((s) => {
                const { rows, nextCursor } = overFirstPage(
                  { rows: s.deliveries, nextCursor: s.nextCursor },
                  page,
                );
                return { deliveries: rows, nextCursor };
              });
            }),
        );
      }
      await Promise.all(reads);
    },

    redeliver: async (deliveryId) => {
      const webhookId = get().webhookId;
      if (!webhookId) throw new Error('No endpoint is open.');
      const delivery = await api.webhooks.redeliver(webhookId, deliveryId);
      set((s) => {
        if (s.webhookId !== webhookId) return s;
        // A delivery that was waiting is tried now (the same one); an ended one gets a new one.
        if (s.deliveries.some((d) => d.id === delivery.id)) {
          return { deliveries: s.deliveries.map((d) => (d.id === delivery.id ? delivery : d)) };
        }
        if (s.statusFilter && s.statusFilter !== delivery.status) return s;
        return { deliveries: [delivery, ...s.deliveries] };
      });
      return delivery;
    },

    applyWebhook: (webhook) => {
      if (webhook.id === get().webhookId) set({ webhook });
    },

    reset: () => {
      list.invalidate();
      webhookGuard.invalidate();
      set({ ...noLog(), webhookId: null, statusFilter: '' });
    },
  };
});

registerScopedStore(() => useWebhookLog.getState().reset());
