import { ApiError } from '../../../../shared/errors.ts';
import type { InteractiveList } from '../../../../shared/schemas/interactive-lists.ts';
import { decodeCursor, rawPageParts, toRawPage } from '../../http/pagination.ts';
import type { Scope } from '../../runtime.ts';
import { phoneOrThrow } from '../contacts/service.ts';
import type { MessagingDeps } from './context.ts';
import { messagesContext } from './context.ts';
import { messageDispatch } from './dispatch.ts';
import { messageInbound } from './inbound.ts';
import type { InboundListener, MessageQuery } from './model.ts';
import type { MessageRow } from './repo.ts';
import { messageSends } from './send.ts';
import { messageStatus } from './status.ts';

export type { MessagingDeps } from './context.ts';
export type { MessageQuery, Recipient, RunnerHandOver, Sender, To } from './model.ts';
export {
  API_SENDER,
  CLOUD_API_LIST_ROWS,
  channelApiError,
  insideServiceWindow,
  listFields,
  requireVariables,
  RESEND_AFTER_MS,
  SERVICE_WINDOW_MS,
  toMessage,
} from './model.ts';

/**
 * Sends and their lifecycle (README "API"), composed from the module's use
 * cases: `send.ts` (API and inbox sends, runners' hand-overs, charging, reactions; `rich.ts`
 * what media and quotes add to a send), `dispatch.ts` (the
 * dispatch and delivery jobs, a remote hand-over inside the request), `status.ts` (statuses
 * only move forward, refunds, status events) and `inbound.ts` (received messages, reactions,
 * notes). Every change writes its event in the same transaction.
 */
export function messagesService(d: MessagingDeps) {
  const ctx = messagesContext(d);
  const { repo } = ctx;
  const status = messageStatus(ctx);
  const dispatch = messageDispatch(ctx, status);
  const sends = messageSends(ctx, status);
  const inbound = messageInbound(ctx);
  dispatch.registerJobs();
  status.registerJobs();
  d.media.onSettled((m) => inbound.mediaSettled(m.id, m.status === 'ready'));

  function pageRows(scope: Scope, q: MessageQuery): [string, string][] {
    const given = (['conversationId', 'contactId', 'phone'] as const).filter((k) => q[k]);
    if (given.length !== 1) {
      throw new ApiError(
        'validation_error',
        'give exactly one of conversationId, contactId or phone',
        {
          param: given[1] ?? 'conversationId',
        },
      );
    }
    const after = q.cursor ? decodeCursor(q.cursor) : null;
    const base = {
      workspaceId: scope.workspaceId,
      environment: scope.environment,
      cursor: after,
      limit: q.limit + 1,
    };
    let rows: [string, string][];
    if (q.conversationId) {
      rows = repo.page('conversation', { ...base, key: q.conversationId });
    } else {
      const contactId = q.contactId ?? d.contacts.findByPhone(scope, phoneOrThrow(q.phone!))?.id;
      rows = contactId ? repo.page('contact', { ...base, key: contactId }) : [];
    }
    return rows;
  }

  return {
    repo,
    applyStatus: status.applyStatus,
    /**
     * Runs a runner's hand-overs (`fn`, in its transaction) with the receipts the channel
     * promises for them queued as one job per status, not two jobs per message.
     */
    gatherReceipts: status.gatherReceipts,
    onCampaignMessage: (l: (campaignId: string) => void) => ctx.campaignListeners.add(l),
    onInbound: (l: InboundListener) => ctx.inboundListeners.add(l),
    ...sends,
    deliverNow: dispatch.deliverNow,
    ...inbound,

    /** A message by its id, or undefined. */
    byId: (id: string): MessageRow | undefined => repo.byId(id),
    /**
     * The conversation's newest outbound message or note after `afterId` that is not the
     * member's own (null: anyone's counts), or undefined: what a reply's basis missed.
     */
    newerOutbound: (
      conversationId: string,
      afterId: string,
      memberId: string | null,
    ): MessageRow | undefined => repo.newerOutbound(conversationId, afterId, memberId),
    /** A message by the channel's id for it (a status or reaction names it so), or undefined. */
    byChannelId: (channelMessageId: string): MessageRow | undefined =>
      repo.byChannelId(channelMessageId),
    /** Adopts the channel's id for a message whose hand-over answer was lost. */
    setChannelMessageId: (id: string, channelMessageId: string) =>
      repo.setChannelMessageId(id, channelMessageId),
    /** The provider answered for the message (a status arrived): nothing is in flight. */
    endDispatching: (id: string) => repo.setDispatching(id, null),
    /** The list an outbound message sent, by the channel's id (a list reply names it so). */
    sentList(channelMessageId: string): InteractiveList | null {
      const json = repo.sentInteractive(channelMessageId);
      return json ? (JSON.parse(json) as InteractiveList) : null;
    },

    list: (scope: Scope, q: MessageQuery): string => toRawPage(pageRows(scope, q), q.limit),

    /** The same page as JSON pieces (items array, next cursor). */
    listParts: (scope: Scope, q: MessageQuery) => rawPageParts(pageRows(scope, q), q.limit),
  };
}
export type MessagesService = ReturnType<typeof messagesService>;
