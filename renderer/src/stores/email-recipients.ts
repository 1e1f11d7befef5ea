import { create } from 'zustand';
import { events } from '../api/events.ts';
import { emailProgressEvent, emailStatusEvent } from './email.ts';
import { emailApi, type EmailMessage, type EmailStatus } from './email-api.ts';
import {
  createStatusFilteredList,
  emptyPagedList,
  type PagedListMeta,
  type StatusFilteredActions,
} from './paged-list.ts';
import { registerScopedStore } from './scope.ts';

export type EmailRecipientFilter = EmailStatus | '';

/**
 * The recipients table of the open email campaign: one email per recipient, paged by cursor and
 * filtered by status. Progress events say the rows have moved on; the table then offers to read
 * them again rather than jumping under the reader's eyes (it does so by itself once it ends).
 */
interface EmailRecipientsState extends PagedListMeta, StatusFilteredActions<EmailRecipientFilter> {
  campaignId: string | null;
  recipients: EmailMessage[];
  statusFilter: EmailRecipientFilter;
  /** Progress was reported since the rows shown were read. */
  outdated: boolean;
  show: (campaignId: string) => void;
  reset: () => void;
}

export const EMAIL_RECIPIENTS_PAGE_SIZE = 100;

const empty = () => ({
  ...emptyPagedList(),
  recipients: [] as EmailMessage[],
  outdated: false,
});

export const useEmailRecipients = create<EmailRecipientsState>()((set, get) => {
  const list = createStatusFilteredList({
    set,
    get,
    read: (query) => emailApi.recipients(get().campaignId ?? '', query),
    pageSize: EMAIL_RECIPIENTS_PAGE_SIZE,
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

registerScopedStore(() => useEmailRecipients.getState().reset());

events.subscribe('email_campaign.progress', (event) => {
  const progress = emailProgressEvent(event.data);
  const state = useEmailRecipients.getState();
  if (progress?.campaignId === state.campaignId && state.status === 'ready' && !state.outdated) {
    useEmailRecipients.setState({ outdated: true });
  }
});

events.subscribe('email_campaign.status_updated', (event) => {
  const campaign = emailStatusEvent(event.data);
  const state = useEmailRecipients.getState();
  if (campaign?.id !== state.campaignId || state.status === 'idle') return;
  // Its end settles the rows (cancelled ones turn cancelled): show them as they now are.
  if (campaign.status === 'completed' || campaign.status === 'cancelled') void state.load();
  else useEmailRecipients.setState({ outdated: true });
});
