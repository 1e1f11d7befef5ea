import { create } from 'zustand';
import { errorMessage } from '../api/client.ts';
import { events } from '../api/events.ts';
import { progressEvent, statusEvent } from './campaigns.ts';
import { campaignsApi, type ContactCampaign } from './campaigns-api.ts';
import { createRequestGuard, registerScopedStore, type LoadStatus } from './scope.ts';

/**
 * The campaigns the inbox's open contact was a recipient of (the contact panel), with how each
 * went for them. Read when the contact changes, and again (at most every few seconds) when one
 * of those campaigns reports progress, which is when that contact's outcome may have moved.
 */
interface ContactCampaignsState {
  contactId: string | null;
  campaigns: ContactCampaign[];
  status: LoadStatus;
  error: string | null;
  show: (contactId: string) => void;
  load: () => Promise<void>;
  reset: () => void;
}

export const CONTACT_CAMPAIGNS_LIMIT = 5;
const REFRESH_EVERY_MS = 5_000;

export const useContactCampaigns = create<ContactCampaignsState>()((set, get) => {
  const guard = createRequestGuard();
  let controller: AbortController | null = null;

  return {
    contactId: null,
    campaigns: [],
    status: 'idle',
    error: null,

    show: (contactId) => {
      if (contactId === get().contactId && get().status !== 'idle') return;
      set({ contactId, campaigns: [], status: 'idle', error: null });
      void get().load();
    },

    load: async () => {
      const { contactId } = get();
      if (!contactId) return;
      controller?.abort();
      controller = new AbortController();
      const isCurrent = guard.restart();
      if (get().status !== 'ready') set({ status: 'loading', error: null });
      try {
        const page = await campaignsApi.forContact(
          contactId,
          CONTACT_CAMPAIGNS_LIMIT,
          controller.signal,
        );
        if (isCurrent()) set({ campaigns: page.data, status: 'ready', error: null });
      } catch (e) {
        if (isCurrent() && !(e instanceof DOMException && e.name === 'AbortError')) {
          set({ status: 'error', error: errorMessage(e) });
        }
      }
    },

    reset: () => {
      guard.invalidate();
      controller?.abort();
      set({ contactId: null, campaigns: [], status: 'idle', error: null });
    },
  };
});

registerScopedStore(() => useContactCampaigns.getState().reset());

let refreshTimer: number | null = null;

/** Reads the contact's campaigns again soon, when one of them (or a new one) moved. */
function refreshSoon(campaignId: string, anyNew: boolean): void {
  const { contactId, campaigns, status } = useContactCampaigns.getState();
  if (!contactId || status !== 'ready' || refreshTimer !== null) return;
  if (!anyNew && !campaigns.some((c) => c.id === campaignId)) return;
  refreshTimer = window.setTimeout(() => {
    refreshTimer = null;
    void useContactCampaigns.getState().load();
  }, REFRESH_EVERY_MS);
}

events.subscribe('campaign.progress', (event) => {
  const found = progressEvent(event.data);
  if (found) refreshSoon(found.campaignId, false);
});

events.subscribe('campaign.status_updated', (event) => {
  const campaign = statusEvent(event.data);
  // A launch fixes the recipients: the contact may be one of a campaign not listed yet.
  if (campaign) refreshSoon(campaign.id, event.data.previousStatus === 'draft');
});
