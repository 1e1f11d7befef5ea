import type { Database as Db } from 'better-sqlite3';
import type { ChannelRouter } from '../../channel/types.ts';
import type { Outbox } from '../../events/outbox.ts';
import type { Scheduler } from '../../jobs/scheduler.ts';
import type { Governor } from '../../pacing/governor.ts';
import type { Clock, IdGenerator } from '../../runtime.ts';
import type { ContactsService } from '../contacts/service.ts';
import type { ConversationStore } from '../conversations/store.ts';
import type { InteractiveListsService } from '../interactive-lists/service.ts';
import type { MediaService } from '../media/service.ts';
import type { TemplatesService } from '../templates/service.ts';
import type { PricesRepo } from '../wallet/prices.ts';
import type { WalletService } from '../wallet/service.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { InboundListener } from './model.ts';
import type { MessagesRepo } from './repo.ts';
import { messagesRepo } from './repo.ts';

export interface MessagingDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  scheduler: Scheduler;
  outbox: Outbox;
  /** The channel of a scope: the simulator, or the live account's connected provider. */
  channelFor: ChannelRouter;
  contacts: ContactsService;
  /** Conversation rows are the conversations module's: a message creates and touches them here. */
  conversations: ConversationStore;
  templates: TemplatesService;
  wallet: WalletService;
  prices: PricesRepo;
  workspaces: WorkspacesService;
  governor: Governor;
  lists: InteractiveListsService;
  /** Media records and their files: a received file is recorded and fetched, an upload sent. */
  media: MediaService;
}

/** What the module's use cases (send, dispatch, status, inbound) share: one of each per core. */
export interface MessagesContext {
  d: MessagingDeps;
  repo: MessagesRepo;
  /** Told (in the transaction) when a campaign's message changes status. */
  campaignListeners: Set<(campaignId: string) => void>;
  inboundListeners: Set<InboundListener>;
}

export function messagesContext(d: MessagingDeps): MessagesContext {
  return {
    d,
    repo: messagesRepo(d.db),
    campaignListeners: new Set(),
    inboundListeners: new Set(),
  };
}
