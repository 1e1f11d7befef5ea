import { describe, expect, it } from 'vitest';
import type { Conversation, Message } from '../../shared/schemas/index.ts';
import {
  reduceConversationEvent,
  rememberConversations,
  type Changes,
  type InboxEvent,
  type InboxFilters,
  type InboxView,
} from '../../renderer/src/stores/inbox-reducer.ts';
import { KnownConversations } from '../../renderer/src/stores/known-conversations.ts';

const ME = 'agt_me';
const OTHER = 'agt_other';
const T0 = Date.parse('2025-03-01T10:00:00.000Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

const OPEN: InboxFilters = { status: 'open', assignee: 'all', label: '', q: '', unread: false };

function conversation(id: string, over: Partial<Conversation> = {}): Conversation {
  return {
    id,
    status: 'open',
    assignee: null,
    labels: [],
    snoozedUntil: null,
    contact: {
      id: `ct_${id}`,
      phone: '+4915112000001',
      waUserId: null,
      name: `Contact ${id}`,
      email: null,
      labels: [],
      attributes: {},
      createdAt: at(0),
      updatedAt: at(0),
      lastInboundAt: null,
      emailUnsubscribedAt: null,
    },
    lastMessage: null,
    lastMessageAt: at(0),
    lastInboundAt: null,
    windowOpen: false,
    unreadCount: 0,
    createdAt: at(0),
    updatedAt: at(0),
    ...over,
  };
}

function message(id: string, conversationId: string, over: Partial<Message> = {}): Message {
  return {
    id,
    conversationId,
    contactId: `ct_${conversationId}`,
    phone: '+4915112000001',
    direction: 'inbound',
    type: 'text',
    templateName: null,
    text: `text of ${id}`,
    variables: null,
    status: 'received',
    sentBy: 'contact',
    agentId: null,
    campaignId: null,
    environment: 'test',
    category: null,
    costMicros: 0,
    channelMessageId: null,
    error: null,
    createdAt: at(5),
    sentAt: null,
    deliveredAt: null,
    readAt: null,
    failedAt: null,
    list: null,
    listReply: null,
    reaction: null,
    mentions: [],
    media: null,
    location: null,
    contacts: null,
    context: null,
    agentReaction: null,
    ...over,
  };
}

/** A loaded view showing `rows` (known to the desk, as a loaded page leaves them). */
function loaded(rows: Conversation[], over: Partial<InboxView> = {}): InboxView {
  const empty: InboxView = {
    status: 'ready',
    conversations: [],
    nextCursor: null,
    counts: { open: rows.length, pending: 0, snoozed: 0, resolved: 0 },
    countsVersion: 0,
    unreadTotal: 0,
    knownLabels: [],
    known: KnownConversations.empty,
    heldId: null,
    selection: new Set(),
  };
  const { state } = rememberConversations(empty, rows);
  return { ...state, conversations: rows, ...over };
}

/** A conversation.updated event: the fresh copy, and each changed field's value before. */
function updated(c: Conversation, before: Partial<Conversation>) {
  const changes: Changes = {};
  for (const [field, from] of Object.entries(before)) {
    changes[field] = { from, to: c[field as keyof Conversation] };
  }
  return { type: 'conversation' as const, conversation: c, changes };
}

const created = (c: Conversation) => ({
  type: 'conversation' as const,
  conversation: c,
  changes: 'created' as const,
});

const ids = (s: InboxView): string[] => s.conversations.map((c) => c.id);

/** One event under the Open tab's default view, acting as ME. */
const reduce = (state: InboxView, event: InboxEvent, filters = OPEN, me: string | null = ME) =>
  reduceConversationEvent(state, event, filters, me);

describe('a new conversation', () => {
  it('joins the list in activity order and counts in its tab when it matches the view', () => {
    const older = conversation('c_old', { lastMessageAt: at(1) });
    const newer = conversation('c_new', { lastMessageAt: at(3) });
    const state = loaded([newer, older]);
    const fresh = conversation('c_mid', {
      lastMessageAt: at(2),
      updatedAt: at(2),
      unreadCount: 2,
      labels: ['vip'],
    });

    const { state: next, recheck, reconcileCounts } = reduce(state, created(fresh));

    expect(ids(next)).toEqual(['c_new', 'c_mid', 'c_old']);
    expect(next.counts).toEqual({ open: 3, pending: 0, snoozed: 0, resolved: 0 });
    expect(next.unreadTotal).toBe(2);
    expect(next.knownLabels).toEqual(['vip']);
    expect(next.known.get('c_mid')).toBe(fresh);
    expect(next.countsVersion).toBe(state.countsVersion + 1);
    expect(recheck).toEqual([]);
    expect(reconcileCounts).toBe(false);
  });

  it('stays out of a tab it does not belong to, but counts in its own', () => {
    const state = loaded([conversation('c_1')]);
    const pending = conversation('c_p', { status: 'pending', updatedAt: at(1) });

    const { state: next } = reduce(state, created(pending));

    expect(ids(next)).toEqual(['c_1']);
    expect(next.counts).toEqual({ open: 1, pending: 1, snoozed: 0, resolved: 0 });
  });

  it('is neither shown nor counted under Mine when it is someone else’s', () => {
    const mine: InboxFilters = { ...OPEN, assignee: 'me' };
    const state = loaded([conversation('c_1', { assignee: ME })]);

    const { state: theirs } = reduce(
      state,
      created(conversation('c_2', { assignee: OTHER, updatedAt: at(1), lastMessageAt: at(1) })),
      mine,
    );
    expect(ids(theirs)).toEqual(['c_1']);
    expect(theirs.counts?.open).toBe(1);

    const { state: ours } = reduce(
      state,
      created(conversation('c_3', { assignee: ME, updatedAt: at(1), lastMessageAt: at(1) })),
      mine,
    );
    expect(ids(ours)).toEqual(['c_3', 'c_1']);
    expect(ours.counts?.open).toBe(2);
  });

  it('sorting past the last loaded row waits for its page while more pages follow', () => {
    const state = loaded([conversation('c_1', { lastMessageAt: at(5) })]);
    const oldest = conversation('c_0', { lastMessageAt: at(-5), updatedAt: at(1) });

    const paged = reduce({ ...state, nextCursor: 'cursor' }, created(oldest));
    expect(ids(paged.state)).toEqual(['c_1']);
    expect(paged.state.counts?.open).toBe(2);

    const complete = reduce(state, created(oldest));
    expect(ids(complete.state)).toEqual(['c_1', 'c_0']);
  });

  it('orders rows with the same activity by id, as the API pages them', () => {
    const a = conversation('c_a', { lastMessageAt: at(1) });
    const state = loaded([a]);
    const b = conversation('c_b', { lastMessageAt: at(1), updatedAt: at(1) });

    const { state: next } = reduce(state, created(b));

    expect(ids(next)).toEqual(['c_b', 'c_a']);
  });
});

describe('a conversation that changes', () => {
  it('leaves a status tab when resolved, moving the counts and leaving the selection', () => {
    const c1 = conversation('c_1', { lastMessageAt: at(2) });
    const c2 = conversation('c_2', { lastMessageAt: at(1), unreadCount: 3 });
    const state = loaded([c1, c2], {
      counts: { open: 2, pending: 0, snoozed: 0, resolved: 4 },
      selection: new Set(['c_1', 'c_2']),
    });
    expect(state.unreadTotal).toBe(3);

    const resolved = { ...c2, status: 'resolved' as const, updatedAt: at(3) };
    const { state: next } = reduce(state, updated(resolved, { status: 'open' }));

    expect(ids(next)).toEqual(['c_1']);
    expect(next.counts).toEqual({ open: 1, pending: 0, snoozed: 0, resolved: 5 });
    expect([...next.selection]).toEqual(['c_1']);
    // A resolved conversation's unread messages no longer call for attention.
    expect(next.unreadTotal).toBe(0);
    expect(next.known.get('c_2')).toBe(resolved);
  });

  it('joins the tab it moves into, in order', () => {
    const state = loaded([conversation('c_1', { lastMessageAt: at(1) })]);
    const reopened = conversation('c_9', {
      lastMessageAt: at(4),
      updatedAt: at(4),
      unreadCount: 1,
    });

    const { state: next } = reduce(
      { ...state, counts: { open: 1, pending: 0, snoozed: 0, resolved: 1 } },
      updated(reopened, { status: 'resolved' }),
    );

    expect(ids(next)).toEqual(['c_9', 'c_1']);
    expect(next.counts).toEqual({ open: 2, pending: 0, snoozed: 0, resolved: 0 });
    expect(next.unreadTotal).toBe(1);
  });

  it('joins Mine when assigned to me and leaves it when reassigned to someone else', () => {
    const mine: InboxFilters = { ...OPEN, assignee: 'me' };
    const state = loaded([], { counts: { open: 0, pending: 0, snoozed: 0, resolved: 0 } });
    const c = conversation('c_1');

    const toMe = { ...c, assignee: ME, updatedAt: at(1) };
    const joined = reduce(state, updated(toMe, { assignee: null }), mine);
    expect(ids(joined.state)).toEqual(['c_1']);
    expect(joined.state.counts?.open).toBe(1);

    const toOther = { ...toMe, assignee: OTHER, updatedAt: at(2) };
    const left = reduce(joined.state, updated(toOther, { assignee: ME }), mine);
    expect(ids(left.state)).toEqual([]);
    expect(left.state.counts?.open).toBe(0);
  });

  it('matches nothing under Mine while the desk acts as no agent', () => {
    const mine: InboxFilters = { ...OPEN, assignee: 'me' };
    const state = loaded([], { counts: { open: 0, pending: 0, snoozed: 0, resolved: 0 } });

    const { state: next } = reduce(
      state,
      updated(conversation('c_1', { assignee: ME, updatedAt: at(1) }), { assignee: null }),
      mine,
      null,
    );

    expect(ids(next)).toEqual([]);
    expect(next.counts?.open).toBe(0);

    const { state: unassigned } = reduce(
      state,
      created(conversation('c_2', { assignee: null, updatedAt: at(1) })),
      mine,
      null,
    );
    expect(ids(unassigned)).toEqual([]);
    expect(unassigned.counts?.open).toBe(0);
  });

  it('leaves Unassigned once assigned', () => {
    const unassigned: InboxFilters = { ...OPEN, assignee: 'unassigned' };
    const c = conversation('c_1');
    const state = loaded([c]);

    const { state: next } = reduce(
      state,
      updated({ ...c, assignee: OTHER, updatedAt: at(1) }, { assignee: null }),
      unassigned,
    );

    expect(ids(next)).toEqual([]);
    expect(next.counts?.open).toBe(0);
  });

  it('follows a label filter as labels are added and removed', () => {
    const vip: InboxFilters = { ...OPEN, label: 'vip' };
    const state = loaded([], { counts: { open: 0, pending: 0, snoozed: 0, resolved: 0 } });
    const c = conversation('c_1');

    const tagged = { ...c, labels: ['vip', 'retail'], updatedAt: at(1) };
    const joined = reduce(state, updated(tagged, { labels: [] }), vip);
    expect(ids(joined.state)).toEqual(['c_1']);
    expect(joined.state.counts?.open).toBe(1);
    expect(joined.state.knownLabels).toEqual(['retail', 'vip']);

    const untagged = { ...tagged, labels: ['retail'], updatedAt: at(2) };
    const left = reduce(joined.state, updated(untagged, { labels: ['vip', 'retail'] }), vip);
    expect(ids(left.state)).toEqual([]);
    expect(left.state.counts?.open).toBe(0);
    // Labels seen stay offered by the filter.
    expect(left.state.knownLabels).toEqual(['retail', 'vip']);
  });

  it('leaves the Unread view once read, unless it is the one open in the thread', () => {
    const unread: InboxFilters = { ...OPEN, unread: true };
    const c = conversation('c_1', { unreadCount: 2 });
    const state = loaded([c]);
    expect(state.unreadTotal).toBe(2);
    const read = updated({ ...c, unreadCount: 0, updatedAt: at(1) }, { unreadCount: 2 });

    const elsewhere = reduce(state, read, unread);
    expect(ids(elsewhere.state)).toEqual([]);
    expect(elsewhere.state.counts?.open).toBe(0);
    expect(elsewhere.state.unreadTotal).toBe(0);

    const held = reduce({ ...state, heldId: 'c_1' }, read, unread);
    expect(ids(held.state)).toEqual(['c_1']);
    expect(held.state.conversations[0]?.unreadCount).toBe(0);
    expect(held.state.unreadTotal).toBe(0);
  });

  it('moves no counts for changes that cannot move it between tabs or filters', () => {
    const c = conversation('c_1', { lastMessageAt: at(1) });
    const state = loaded([conversation('c_2', { lastMessageAt: at(2) }), c]);

    const busier = { ...c, lastMessageAt: at(3), unreadCount: 1, updatedAt: at(3) };
    const { state: next } = reduce(
      state,
      updated(busier, { lastMessageAt: at(1), unreadCount: 0 }),
    );

    expect(next.counts).toBe(state.counts);
    expect(next.countsVersion).toBe(state.countsVersion);
    // It moves up with its new activity.
    expect(ids(next)).toEqual(['c_1', 'c_2']);
    expect(next.unreadTotal).toBe(1);
  });

  it('leaves the counts alone until the first page has brought them', () => {
    const state = loaded([], { status: 'loading', counts: null });

    const { state: next } = reduce(state, created(conversation('c_1', { unreadCount: 1 })));

    expect(next.counts).toBeNull();
    expect(next.conversations).toEqual([]);
    // The desk still knows it: its name and unread messages count.
    expect(next.known.has('c_1')).toBe(true);
    expect(next.unreadTotal).toBe(1);
  });
});

describe('copies arriving late or twice', () => {
  it('keeps the fresher copy when an older one arrives after it', () => {
    const fresh = conversation('c_1', { assignee: ME, updatedAt: at(5), unreadCount: 1 });
    const state = loaded([fresh]);
    const stale = conversation('c_1', { assignee: null, updatedAt: at(1), unreadCount: 4 });

    const { state: next } = reduce(state, { type: 'conversation', conversation: stale });

    expect(next).toBe(state);
    expect(next.conversations[0]).toBe(fresh);
    expect(next.known.get('c_1')).toBe(fresh);
    expect(next.unreadTotal).toBe(1);
  });

  it('changes nothing visible when the same copy arrives again', () => {
    const c = conversation('c_1', { updatedAt: at(1), unreadCount: 2, labels: ['vip'] });
    const once = reduce(loaded([]), created(c)).state;

    const twice = reduce(once, { type: 'conversation', conversation: { ...c } }).state;

    expect(twice.conversations).toEqual(once.conversations);
    expect(twice.unreadTotal).toBe(once.unreadTotal);
    expect(twice.knownLabels).toEqual(once.knownLabels);
    expect(twice.counts).toEqual(once.counts);
  });

  it('swaps a listed row for the fresher copy the desk already knows', () => {
    const fresh = conversation('c_1', { updatedAt: at(5), status: 'pending' });
    const state = rememberConversations(loaded([]), [fresh]).state;
    const page = [conversation('c_1', { updatedAt: at(1) }), conversation('c_2')];

    const { state: next, kept } = rememberConversations(state, page);

    expect(kept[0]).toBe(fresh);
    expect(kept[1]).toBe(page[1]);
    expect(next.known.get('c_1')).toBe(fresh);
  });
});

describe('a conversation not loaded', () => {
  it('is not placed while the list is loading (the first page brings it)', () => {
    const state = loaded([], { status: 'loading' });

    const { state: next } = reduce(state, created(conversation('c_1', { updatedAt: at(1) })), OPEN);

    expect(next.conversations).toEqual([]);
    expect(next.counts?.open).toBe(1);
  });

  it('gets no preview from a message event while the desk has never seen it', () => {
    const state = loaded([conversation('c_1')]);

    const result = reduce(state, { type: 'message', message: message('msg_1', 'c_unknown') });

    expect(result.state).toBe(state);
  });
});

describe('a search (message text only the API can judge)', () => {
  const search: InboxFilters = { ...OPEN, q: 'invoice' };

  it('asks the API to count and to re-check a row that may now match', () => {
    const state = loaded([conversation('c_1', { lastMessageAt: at(1) })]);
    const c = conversation('c_2', { lastMessageAt: at(2), updatedAt: at(2) });

    const result = reduce(state, created(c), search);

    expect(result.recheck).toEqual(['c_2']);
    expect(result.reconcileCounts).toBe(true);
    expect(ids(result.state)).toEqual(['c_1']);
    expect(result.state.counts).toEqual(state.counts);
    // A counts read already on its way is now stale.
    expect(result.state.countsVersion).toBe(state.countsVersion + 1);
  });

  it('updates a row already shown in place, without asking', () => {
    const c = conversation('c_1', { lastMessageAt: at(1) });
    const state = loaded([c]);
    const fresher = { ...c, unreadCount: 1, updatedAt: at(2) };

    const result = reduce(state, { type: 'conversation', conversation: fresher }, search);

    expect(result.recheck).toEqual([]);
    expect(result.reconcileCounts).toBe(false);
    expect(result.state.conversations).toEqual([fresher]);
  });

  it('takes rows the API listed, and its counts when they are still current', () => {
    const state = loaded([conversation('c_1', { lastMessageAt: at(1) })]);
    const match = conversation('c_2', { lastMessageAt: at(2), updatedAt: at(2) });
    const counts = { open: 7, pending: 1, snoozed: 0, resolved: 3 };

    const withCounts = reduce(state, { type: 'listed', conversations: [match], counts }, search);
    expect(ids(withCounts.state)).toEqual(['c_2', 'c_1']);
    expect(withCounts.state.counts).toEqual(counts);
    expect(withCounts.state.countsVersion).toBe(state.countsVersion + 1);
    expect(withCounts.recheck).toEqual([]);

    const rowsOnly = reduce(state, { type: 'listed', conversations: [match] }, search);
    expect(ids(rowsOnly.state)).toEqual(['c_2', 'c_1']);
    expect(rowsOnly.state.counts).toBe(state.counts);
    expect(rowsOnly.state.countsVersion).toBe(state.countsVersion);
  });

  it('drops a listed row that no longer fits the view (changed since the API answered)', () => {
    const c = conversation('c_1', { updatedAt: at(1) });
    const state = loaded([c]);
    const resolved = { ...c, status: 'resolved' as const, updatedAt: at(2) };

    const { state: next } = reduce(state, { type: 'listed', conversations: [resolved] }, search);

    expect(ids(next)).toEqual([]);
  });
});

describe('a message event', () => {
  it('becomes the preview of its row and of the copy the desk knows, in place', () => {
    const c1 = conversation('c_1', { lastMessageAt: at(2) });
    const c2 = conversation('c_2', { lastMessageAt: at(1) });
    const state = loaded([c1, c2]);
    const m = message('msg_2', 'c_2');

    const { state: next } = reduce(state, { type: 'message', message: m });

    expect(ids(next)).toEqual(['c_1', 'c_2']);
    expect(next.conversations[1]?.lastMessage).toBe(m);
    expect(next.known.get('c_2')?.lastMessage).toBe(m);
  });

  it('updates the copy known for a conversation in another tab', () => {
    const pending = conversation('c_p', { status: 'pending' });
    const state = rememberConversations(loaded([conversation('c_1')]), [pending]).state;
    const m = message('msg_1', 'c_p');

    const { state: next } = reduce(state, { type: 'message', message: m });

    expect(next.known.get('c_p')?.lastMessage).toBe(m);
    expect(next.conversations).toBe(state.conversations);
  });

  it('keeps private notes, older messages and older statuses out of the preview', () => {
    const last = message('msg_5', 'c_1', { direction: 'outbound', status: 'delivered' });
    const state = loaded([conversation('c_1', { lastMessage: last })]);
    const apply = (m: Message) => reduce(state, { type: 'message', message: m }).state;

    expect(apply(message('msg_6', 'c_1', { type: 'note', status: 'note' }))).toBe(state);
    expect(apply(message('msg_4', 'c_1'))).toBe(state);
    expect(apply({ ...last, status: 'sent' })).toBe(state);

    const read = { ...last, status: 'read' as const };
    expect(apply(read).conversations[0]?.lastMessage).toBe(read);
  });
});

describe('the counts per tab', () => {
  it('count a conversation in the tab of its status under the other filters', () => {
    const vipMine: InboxFilters = { ...OPEN, assignee: 'me', label: 'vip' };
    let state = loaded([], { counts: { open: 0, pending: 0, snoozed: 0, resolved: 0 } });
    const events = [
      conversation('c_1', { status: 'open', assignee: ME, labels: ['vip'] }),
      conversation('c_2', { status: 'pending', assignee: ME, labels: ['vip'] }),
      conversation('c_3', { status: 'snoozed', assignee: ME, labels: ['vip'] }),
      conversation('c_4', { status: 'resolved', assignee: ME, labels: ['vip'] }),
      conversation('c_5', { status: 'open', assignee: OTHER, labels: ['vip'] }),
      conversation('c_6', { status: 'open', assignee: ME, labels: [] }),
    ];
    for (const c of events) {
      state = reduce(state, created(c), vipMine).state;
    }

    expect(state.counts).toEqual({ open: 1, pending: 1, snoozed: 1, resolved: 1 });
    expect(ids(state)).toEqual(['c_1']);
  });

  it('never count below zero', () => {
    const state = loaded([], { counts: { open: 0, pending: 0, snoozed: 0, resolved: 0 } });
    const snoozed = conversation('c_1', { status: 'snoozed', updatedAt: at(1) });

    const { state: next } = reduce(state, updated(snoozed, { status: 'open' }));

    expect(next.counts).toEqual({ open: 0, pending: 0, snoozed: 1, resolved: 0 });
  });

  it('count pending conversations in the unread total, snoozed ones not', () => {
    let state = loaded([]);
    state = reduce(
      state,
      created(conversation('c_1', { status: 'pending', unreadCount: 2 })),
    ).state;
    state = reduce(
      state,
      created(conversation('c_2', { status: 'snoozed', unreadCount: 5 })),
    ).state;

    expect(state.unreadTotal).toBe(2);

    const woken = conversation('c_2', { status: 'open', unreadCount: 5, updatedAt: at(1) });
    state = reduce(state, updated(woken, { status: 'snoozed' })).state;
    expect(state.unreadTotal).toBe(7);
  });
});

describe('the conversations known', () => {
  it('are written into a copy, leaving the map read before as it was', () => {
    const many = Array.from({ length: 300 }, (_, i) => conversation(`c_${i}`));
    const before = KnownConversations.empty.with(many);
    const fresher = { ...many[7]!, unreadCount: 9, updatedAt: at(1) };

    const after = before.with([fresher, conversation('c_new')]);

    expect(after.get('c_7')).toBe(fresher);
    expect(after.get('c_new')?.id).toBe('c_new');
    expect(after.get('c_250')).toBe(many[250]);
    expect(before.get('c_7')).toBe(many[7]);
    expect(before.has('c_new')).toBe(false);
    expect(KnownConversations.empty.has('c_7')).toBe(false);
  });
});
