import { create } from 'zustand';
import { isFinalCampaign, type RecipientStatus } from '../../../shared/campaign-rules.ts';
import type { Page } from '../api/client.ts';
import { events } from '../api/events.ts';
import { progressEvent, statusEvent } from './campaigns.ts';
import { campaignsApi, type CampaignRecipient } from './campaigns-api.ts';
import {
  createStatusFilteredList,
  emptyPagedList,
  type PagedListMeta,
  type StatusFilteredActions,
} from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

/** A recipient row; a campaign has one per contact, so the contact's id names the row. */
export type RecipientRow = CampaignRecipient & { id: string };

export type RecipientFilter = RecipientStatus | '';

/**
 * The recipients table of the open campaign: paged by cursor, filtered by status. Progress
 * events say the rows have moved on; the table then offers to read them again rather than
 * jumping under the reader's eyes (it does so by itself once the campaign ends).
 */
interface RecipientsState extends PagedListMeta, StatusFilteredActions<RecipientFilter> {
  campaignId: string | null;
  recipients: RecipientRow[];
  statusFilter: RecipientFilter;
  /** Progress was reported since the rows shown were read. */
  outdated: boolean;
  show: (campaignId: string) => void;
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
  const list = createStatusFilteredList({
    set,
    get,
    read: async (query) => withIds(await campaignsApi.recipients(get().campaignId ?? '', query)),
    pageSize: RECIPIENTS_PAGE_SIZE,
    rows: (s) => s.recipients,
    withRows: (recipients) => ({ recipients }),
  });

  return {
    ...empty(),
    campaignId: null,
    statusFilter: '',
    ...list.actions,

    show: (campaignId) => {
      if (campaignId === get().campaignId) return;
      list.invalidate();
      set({ ...empty(), campaignId, statusFilter: '' });
    },

    load: async () => {
      if (!get().campaignId) return;
      set({ outdated: false });
      await list.load();
    },

    reset: () => {
      list.invalidate();
      set({ ...empty(), campaignId: null, statusFilter: '' });
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
