import { create } from 'zustand';
import { isFinalCampaign, type RecipientStatus } from '../../../shared/campaign-rules.ts';
import type { Page } from '../api/client.ts';
import { events } from '../api/events.ts';
import { progressEvent, statusEvent } from './campaigns.ts';
import { campaignsApi, type CampaignRecipient } from './campaigns-api.ts';
import { createPagedList, emptyPagedList, type PagedListMeta } from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

/** A recipient row; a campaign has one per contact, so the contact's id names the row. */
export type RecipientRow = CampaignRecipient & { id: string };

export type RecipientFilter = RecipientStatus | '';

/**
 * The recipients table of the open campaign: paged by cursor, filtered by status. Progress
 * events say the rows have moved on; the table then offers to read them again rather than
 * jumping under the reader's eyes (it does so by itself once the campaign ends).
 */
interface RecipientsState extends PagedListMeta {
  campaignId: string | null;
  recipients: RecipientRow[];
  filter: RecipientFilter;
  /** Progress was reported since the rows shown were read. */
  outdated: boolean;
  show: (campaignId: string) => void;
  setFilter: (filter: RecipientFilter) => void;
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  reset: () => void;
}

export const RECIPIENTS_PAGE_SIZE = 100;

const withIds = (page: Page<CampaignRecipient>): Page<RecipientRow> => ({
  ...page,
  data: page.data.map((r) => ({ ...r, id: r.contactId })),
});

const empty = () => ({
  ...emptyPagedList(),
  recipients: [] as RecipientRow[],
  outdated: false,
});

export const useCampaignRecipients = create<RecipientsState>()((set, get) => {
  const query = (cursor?: string) => ({
    status: get().filter,
    limit: RECIPIENTS_PAGE_SIZE,
    ...(cursor ? { cursor } : {}),
  });
  const list = createPagedList({
    set,
    get,
    first: async () => {
      set({ outdated: false });
      return withIds(await campaignsApi.recipients(get().campaignId ?? '', query()));
    },
    next: async (cursor) =>
      withIds(await campaignsApi.recipients(get().campaignId ?? '', query(cursor))),
    rows: (s) => s.recipients,
    withRows: (recipients) => ({ recipients }),
  });

  return {
    ...empty(),
    campaignId: null,
    filter: '',

    show: (campaignId) => {
      if (campaignId === get().campaignId) return;
      list.invalidate();
      set({ ...empty(), campaignId, filter: '' });
    },

    setFilter: (filter) => {
      if (filter === get().filter) return;
      set({ filter });
      void get().load();
    },

    load: async () => {
      if (get().campaignId) await list.load();
    },
    loadMore: list.loadMore,

    reset: () => {
      list.invalidate();
      set({ ...empty(), campaignId: null, filter: '' });
    },
  };
});

registerScopedStore(() => useCampaignRecipients.getState().reset());

events.subscribe('campaign.progress', (event) => {
  const found = progressEvent(event.data);
  const state = useCampaignRecipients.getState();
  if (found?.campaignId === state.campaignId && state.status === 'ready' && !state.outdated) {
    useCampaignRecipients.setState({ outdated: true });
  }
});

events.subscribe('campaign.status_updated', (event) => {
  const campaign = statusEvent(event.data);
  const state = useCampaignRecipients.getState();
  if (campaign?.id !== state.campaignId || state.status === 'idle') return;
  // Its end settles most rows (cancelled ones turn skipped): show them as they now are.
  if (isFinalCampaign(campaign.status)) void state.load();
  else useCampaignRecipients.setState({ outdated: true });
});
