import type { Database as Db } from 'better-sqlite3';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ListReply } from '../../../../shared/schemas/interactive-lists.ts';
import type { Location, MediaType, SharedContact } from '../../../../shared/schemas/media.ts';
import { MEDIA_TYPES } from '../../../../shared/schemas/media.ts';
import { ApiError } from '../../../../shared/errors.ts';
import { isWaUserId } from '../../../../shared/phone.ts';
import type { Clock, IdGenerator, Scope } from '../../runtime.ts';
import { decodeCursor, toPage } from '../../http/pagination.ts';
import { iso } from '../../runtime.ts';
import type { ContactsService } from '../contacts/service.ts';
import type { ConversationsService } from '../conversations/service.ts';
import type { InboundMedia } from '../media/service.ts';
import type { MessagesService } from '../messages/service.ts';
import type { TemplatesService } from '../templates/service.ts';
import type { RejectRow } from './repo.ts';
import { channelRepo } from './repo.ts';
import type { ChannelRow, ChannelService } from './service.ts';

/** Meta's webhook body, as far as Parley reads it. Anything may be missing or malformed. */
interface Envelope {
  object?: string;
  entry?: unknown;
}
interface Entry {
  id?: string;
  changes?: unknown;
}
interface ChangeValue {
  metadata?: { phone_number_id?: string };
  contacts?: unknown;
  messages?: unknown;
  statuses?: unknown;
  // message_template_status_update
  event?: string;
  message_template_id?: number | string;
  message_template_name?: string;
  message_template_language?: string;
  reason?: string | null;
}
/** One `contacts[]` entry: who sent the messages beside it. */
interface SenderProfile {
  profile?: { name?: string; username?: string };
  wa_id?: string;
  /** The business-scoped user id (BSUID). */
  user_id?: string;
}
interface MediaPart {
  id?: string;
  caption?: string;
  filename?: string;
  mime_type?: string;
  sha256?: string;
}
interface InboundMessage {
  /** The sender's phone (digits); absent for a username user who shares none. */
  from?: string;
  /** The sender's business-scoped user id (BSUID). */
  from_user_id?: string;
  id?: string;
  timestamp?: string;
  type?: string;
  text?: { body?: string };
  image?: MediaPart;
  video?: MediaPart;
  audio?: MediaPart & { voice?: boolean };
  document?: MediaPart;
  sticker?: MediaPart & { animated?: boolean };
  location?: {
    latitude?: number | string;
    longitude?: number | string;
    name?: string;
    address?: string;
    url?: string;
  };
  contacts?: {
    name?: { formatted_name?: string; first_name?: string; last_name?: string };
    phones?: { phone?: string; wa_id?: string; type?: string }[];
    emails?: { email?: string; type?: string }[];
    org?: { company?: string };
  }[];
  reaction?: { message_id?: string; emoji?: string };
  system?: {
    body?: string;
    type?: string;
    /** The new phone (`wa_id`; `new_wa_id` in older versions). */
    wa_id?: string;
    new_wa_id?: string;
    /** The new business-scoped user id. */
    user_id?: string;
    new_user_id?: string;
  };
  interactive?: {
    type?: string;
    list_reply?: { id: string; title: string; description?: string };
    button_reply?: { id: string; title: string };
  };
  button?: { text?: string; payload?: string };
  context?: { id?: string };
}
interface StatusUpdate {
  id?: string;
  status?: 'sent' | 'delivered' | 'read' | 'failed' | string;
  timestamp?: string;
  recipient_id?: string;
  recipient_user_id?: string;
  biz_opaque_callback_data?: string;
  errors?: { code?: number; title?: string; message?: string; error_data?: { details?: string } }[];
}

export interface WebhookResult {
  messages: number;
  duplicates: number;
  statuses: number;
  templates: number;
  ignored: number;
  /** Items that could not be read: kept in `webhook_rejects`, the rest committed. */
  rejected: number;
}

/** What a message we cannot show yet reads as in the inbox, so nothing a customer sent is lost. */
const KINDS: Record<string, string> = {
  image: 'a photo',
  video: 'a video',
  audio: 'an audio message',
  document: 'a document',
  sticker: 'a sticker',
  location: 'a location',
  contacts: 'a contact card',
  reaction: 'a reaction',
  order: 'an order',
  interactive: 'an interactive message',
  unsupported: 'an unsupported message',
};
/** "a" or "an", by the sound of the word's first letter (good enough for Meta's type names). */
const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);
const kindOf = (type: string) => KINDS[type] ?? article(`${type.replace(/_/g, ' ')} message`);
const OPEN_WHATSAPP = 'open WhatsApp to see it';

/** A webhook item we refuse to store, with the reason kept beside its raw JSON. */
class Unreadable extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown, what: string): unknown[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Unreadable(`${what} is not an array`);
  return v;
};
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** Meta's `from` / `wa_id`: digits of an international number, without the `+`. */
const phoneOf = (v: unknown): string | null => {
  const digits = typeof v === 'string' ? v.replace(/^\+/, '') : '';
  return /^[1-9]\d{5,14}$/.test(digits) ? `+${digits}` : null;
};

/**
 * Meta's webhooks for a connected account (README "Connecting WhatsApp"): signature checked over the raw bytes
 * against every connected account's app secret (constant time) before anything is read; then
 * every `entry[]` and `changes[]`: `messages[]` become inbound messages exactly like the
 * simulator's (idempotent by the provider's id, so a redelivery stores nothing), `statuses[]`
 * move our messages forward only, template status updates move templates. One bad item never
 * sinks a delivery: each commits in its own savepoint, and one that cannot be read is kept in
 * `webhook_rejects` with its raw JSON and the reason.
 */
export function channelWebhook(d: {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  channels: ChannelService;
  contacts: ContactsService;
  conversations: ConversationsService;
  messages: MessagesService;
  templates: TemplatesService;
  log: (message: string, error?: unknown) => void;
}) {
  const repo = channelRepo(d.db);
  /**
   * Runs a function in a transaction (a savepoint inside the delivery's): one wrapper made
   * once, not one per item.
   */
  const inTransaction = d.db.transaction((f: () => void) => f());

  /**
   * The app secret `X-Hub-Signature-256` was made with (HMAC-SHA256 of the raw body), if it is a
   * connected account's; null otherwise. Only accounts with that secret may be written to: a
   * delivery signed with one workspace's secret never lands in another's.
   */
  function signedBy(raw: Buffer, header: string | undefined): string | null {
    const m = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
    if (!m) return null;
    const given = Buffer.from(m[1]!.toLowerCase(), 'hex');
    for (const r of d.channels.appSecrets()) {
      const expected = createHmac('sha256', r.app_secret!).update(raw).digest();
      if (timingSafeEqual(given, expected)) return r.app_secret!;
    }
    return null;
  }

  const sameSecret = (r: ChannelRow, secret: string) => {
    const a = Buffer.from(r.app_secret ?? '');
    const b = Buffer.from(secret);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  const scopeOf = (r: ChannelRow): Scope => ({ workspaceId: r.workspace_id, environment: 'live' });

  /** The words of a message we cannot show as itself (an order, a poll, a new kind). */
  const describe = (type: string): string => `[${kindOf(type)} — ${OPEN_WHATSAPP}]`;

  /** A photo, voice note, video, document or sticker: its record, fetched by a job. */
  function mediaOf(account: ChannelRow, m: InboundMessage, kind: MediaType): InboundMedia {
    const part = m[kind] as unknown;
    if (!isObject(part)) throw new Unreadable(`the ${kind} message has no "${kind}" object`);
    const p = part as MediaPart & { voice?: unknown };
    const providerId = text(p.id)?.trim();
    if (!providerId) throw new Unreadable(`the ${kind} names no media "id" to fetch it by`);
    if (providerId.length > 200) throw new Unreadable(`the ${kind}'s media "id" is too long`);
    return {
      origin: 'cloud_api',
      kind,
      providerId,
      businessAccountId: account.business_account_id,
      declaredMimeType: text(p.mime_type)?.slice(0, 200) ?? null,
      declaredSha256: text(p.sha256)?.slice(0, 100) ?? null,
      fileName: kind === 'document' ? text(p.filename)?.trim().slice(0, 240) || null : null,
      voice: kind === 'audio' && p.voice === true,
    };
  }

  /** Meta sends coordinates as numbers (its examples) or strings (its send schema). */
  const coordinate = (v: unknown, max: number, what: string): number => {
    const n =
      typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (!Number.isFinite(n) || Math.abs(n) > max) {
      throw new Unreadable(`the location's ${what} is not a coordinate`);
    }
    return n;
  };

  function locationOf(m: InboundMessage): Location {
    if (!isObject(m.location as unknown))
      throw new Unreadable('the location message has no "location"');
    const l = m.location!;
    const opt = (v: unknown, max: number) => text(v)?.trim().slice(0, max) || undefined;
    const name = opt(l.name, 1000);
    const address = opt(l.address, 1000);
    const url = opt(l.url, 2000);
    return {
      latitude: coordinate(l.latitude, 90, 'latitude'),
      longitude: coordinate(l.longitude, 180, 'longitude'),
      ...(name ? { name } : {}),
      ...(address ? { address } : {}),
      ...(url ? { url } : {}),
    };
  }

  function contactsOf(m: InboundMessage): SharedContact[] {
    if (!Array.isArray(m.contacts) || m.contacts.length === 0) {
      throw new Unreadable('the contacts message has no contact card');
    }
    return m.contacts.slice(0, 50).map((c) => {
      if (!isObject(c as unknown)) throw new Unreadable('a shared contact card is not an object');
      const first = text(c.name?.first_name);
      const last = text(c.name?.last_name);
      const name =
        text(c.name?.formatted_name)?.trim() ||
        [first, last].filter(Boolean).join(' ').trim() ||
        null;
      return {
        name: name?.slice(0, 500) ?? null,
        phones: (Array.isArray(c.phones) ? c.phones : [])
          .filter((p) => isObject(p as unknown) && text(p.phone))
          .slice(0, 20)
          .map((p) => ({
            phone: text(p.phone)!.slice(0, 64),
            waId: text(p.wa_id)?.slice(0, 64) ?? null,
            type: text(p.type)?.slice(0, 32) ?? null,
          })),
        emails: (Array.isArray(c.emails) ? c.emails : [])
          .filter((e) => isObject(e as unknown) && text(e.email))
          .slice(0, 20)
          .map((e) => ({
            email: text(e.email)!.slice(0, 320),
            type: text(e.type)?.slice(0, 32) ?? null,
          })),
        organization: text(c.org?.company)?.trim().slice(0, 500) || null,
      };
    });
  }

  /** Who sent a message: its ids, and the profile `contacts[]` gives for them. */
  function senderOf(m: InboundMessage, profiles: SenderProfile[]) {
    const phone = phoneOf(m.from);
    const fromUser = text(m.from_user_id)?.trim();
    const profile =
      profiles.find(
        (p) =>
          (fromUser && p.user_id === fromUser) ||
          (m.from && p.wa_id && p.wa_id.replace(/^\+/, '') === m.from.replace(/^\+/, '')),
      ) ?? (profiles.length === 1 ? profiles[0] : undefined);
    const waUserId = fromUser || text(profile?.user_id)?.trim() || null;
    if (m.from !== undefined && !phone && !waUserId) {
      throw new Unreadable(`"from" is not a phone number: ${JSON.stringify(m.from).slice(0, 40)}`);
    }
    if (waUserId && !isWaUserId(waUserId)) {
      throw new Unreadable(`"from_user_id" is not a WhatsApp user id: ${waUserId.slice(0, 40)}`);
    }
    if (!phone && !waUserId) {
      throw new Unreadable(
        'the message names neither a phone ("from") nor a user id ("from_user_id")',
      );
    }
    const profileName =
      text(profile?.profile?.name)?.trim() || text(profile?.profile?.username)?.trim() || null;
    return { phone, waUserId, profileName };
  }

  function inbound(
    account: ChannelRow,
    scope: Scope,
    m: InboundMessage,
    profiles: SenderProfile[],
    result: WebhookResult,
  ) {
    if (!isObject(m as unknown)) throw new Unreadable('a message is not an object');
    const id = text(m.id);
    if (!id) throw new Unreadable('the message has no "id"');
    const type = text(m.type) ?? 'unknown';
    const sender = senderOf(m, profiles);
    const receivedAt = Math.min(
      m.timestamp && Number.isFinite(Number(m.timestamp))
        ? Number(m.timestamp) * 1000
        : d.clock.now(),
      d.clock.now(),
    );

    if (type === 'system') return system(account, scope, m, sender, result);
    if (type === 'reaction' && reaction(scope, m, sender, receivedAt)) {
      result.messages++;
      return;
    }

    let body: string;
    let kind: 'text' | 'list' | 'media' | 'location' | 'contacts' = 'text';
    let listReply: ListReply | undefined;
    let media: InboundMedia | undefined;
    let location: Location | undefined;
    let contacts: SharedContact[] | undefined;
    if (type === 'text') body = text(m.text?.body) ?? '';
    else if ((MEDIA_TYPES as readonly string[]).includes(type)) {
      media = mediaOf(account, m, type as MediaType);
      kind = 'media';
      // Its caption is its text (audio and stickers have none).
      const part = m[type as MediaType] as MediaPart;
      body = text(part.caption)?.trim().slice(0, 4096) ?? '';
    } else if (type === 'location') {
      location = locationOf(m);
      kind = 'location';
      // The words search and the conversation list show.
      body = [location.name, location.address].filter(Boolean).join(', ');
    } else if (type === 'contacts') {
      contacts = contactsOf(m);
      kind = 'contacts';
      body = contacts
        .map((c) => c.name ?? c.phones[0]?.phone ?? '')
        .filter(Boolean)
        .join(', ');
    } else if (type === 'interactive' && m.interactive?.list_reply) {
      const pick = m.interactive.list_reply;
      body = text(pick.title) ?? '';
      // A list reply names the row, not the list: the message it answers (`context.id`) does.
      const sentList = m.context?.id ? d.messages.sentList(m.context.id) : null;
      if (sentList) {
        kind = 'list';
        listReply = { listId: sentList.id, rowId: pick.id, title: pick.title };
      }
    } else if (type === 'interactive' && m.interactive?.button_reply) {
      body = text(m.interactive.button_reply.title) ?? '';
    } else if (type === 'button') {
      body = text(m.button?.text) ?? '[a button]';
    } else if (type === 'reaction') {
      // The message it reacts to is not one we have: the reaction is kept as what it is.
      const emoji = text(m.reaction?.emoji);
      body = emoji ? `Reacted ${emoji} to a message` : 'Removed a reaction';
    } else {
      body = describe(type);
    }
    const contextChannelId = text(m.context?.id)?.slice(0, 200) ?? null;
    const stored = d.messages.receive(scope, {
      ...sender,
      // Media, locations and contact cards may have no words: they are what they are.
      text:
        body.trim() === '' && (kind === 'text' || kind === 'list') ? '[an empty message]' : body,
      type: kind,
      receivedAt,
      channelMessageId: id,
      ...(listReply ? { listReply } : {}),
      ...(media ? { media } : {}),
      ...(location ? { location } : {}),
      ...(contacts ? { contacts } : {}),
      ...(contextChannelId ? { context: { channelMessageId: contextChannelId } } : {}),
    });
    if (stored) result.messages++;
    else result.duplicates++;
  }

  /** A reaction to a message we have: the emoji goes on that message (an empty one removes it). */
  function reaction(
    scope: Scope,
    m: InboundMessage,
    sender: { phone: string | null; waUserId: string | null },
    at: number,
  ): boolean {
    const target = text(m.reaction?.message_id);
    const row = target ? d.messages.byChannelId(target) : undefined;
    if (!row || row.workspace_id !== scope.workspaceId || row.environment !== 'live') return false;
    const contact = d.contacts.find(scope, row.contact_id);
    const same =
      contact &&
      ((sender.phone && contact.phone === sender.phone) ||
        (sender.waUserId && contact.wa_user_id === sender.waUserId));
    if (!same) return false;
    const emoji = text(m.reaction?.emoji) || null;
    d.messages.react(row, emoji, at);
    return true;
  }

  /**
   * Meta's notices about the customer (`type: "system"`): not their words. A changed number
   * or user id moves the contact to it; the conversation gets a note saying so.
   */
  function system(
    account: ChannelRow,
    scope: Scope,
    m: InboundMessage,
    sender: { phone: string | null; waUserId: string | null },
    result: WebhookResult,
  ) {
    const sys = m.system ?? {};
    const contact =
      (sender.waUserId ? d.contacts.findByWaUserId(scope, sender.waUserId) : undefined) ??
      (sender.phone ? d.contacts.findByPhone(scope, sender.phone) : undefined);
    const newPhone = phoneOf(sys.wa_id ?? sys.new_wa_id);
    const newUser = text(sys.user_id ?? sys.new_user_id)?.trim() || null;
    if (!contact || (sys.type !== 'user_changed_number' && sys.type !== 'user_changed_user_id')) {
      result.ignored++;
      return;
    }
    if (newUser && !isWaUserId(newUser))
      throw new Unreadable(`"system.user_id" is not a WhatsApp user id`);
    const { row, moved } = d.contacts.moveIdentity(scope, contact, {
      phone: sys.type === 'user_changed_number' ? newPhone : null,
      waUserId: newUser,
    });
    // The conversation on the number the delivery named (the account that signed it).
    const conversation = d.conversations.byContact(row.id, account.business_account_id);
    const what =
      sys.type === 'user_changed_number'
        ? `changed their number${contact.phone ? ` from ${contact.phone}` : ''}${newPhone ? ` to ${newPhone}` : ''}`
        : 'changed their WhatsApp user id';
    const note = moved
      ? `WhatsApp: the customer ${what}. Replies go to the new one.`
      : `WhatsApp: the customer ${what}, but another contact has it already: check both and merge by hand.`;
    if (conversation) d.messages.note(scope, conversation, note, null);
    result.messages++;
  }

  function status(scope: Scope, s: StatusUpdate, result: WebhookResult) {
    if (!isObject(s as unknown)) throw new Unreadable('a status is not an object');
    const id = text(s.id);
    if (!id) throw new Unreadable('the status has no "id"');
    const ofAccount = <M extends { workspace_id: string; environment: string }>(
      m: M | undefined,
    ) => (m && m.workspace_id === scope.workspaceId && m.environment === 'live' ? m : undefined);
    let row = ofAccount(d.messages.byChannelId(id));
    const ours = text(s.biz_opaque_callback_data);
    if (!row && ours) {
      // The call's answer was lost (a crash, a timeout): our id rode along with the message.
      const mine = ofAccount(d.messages.byId(ours));
      if (mine && mine.channel_message_id === null) {
        d.messages.setChannelMessageId(mine.id, id);
        row = { ...mine, channel_message_id: id };
      }
    }
    if (!row || row.direction !== 'outbound') {
      result.ignored++;
      return;
    }
    const at =
      s.timestamp && Number.isFinite(Number(s.timestamp))
        ? Math.min(Number(s.timestamp) * 1000, d.clock.now())
        : undefined;
    if (s.status === 'failed') {
      const e = Array.isArray(s.errors) ? s.errors[0] : undefined;
      // Meta often repeats its title as the message: say each thing once.
      const parts = [
        ...new Set(
          [text(e?.title), text(e?.message), text(e?.error_data?.details)]
            .map((p) => p?.trim())
            .filter((p): p is string => !!p),
        ),
      ];
      d.messages.applyStatus(
        row,
        'failed',
        {
          code: typeof e?.code === 'number' ? String(e.code) : 'unknown',
          message: parts.join(': ') || 'The provider failed the message',
        },
        at,
      );
    } else if (s.status === 'sent' || s.status === 'delivered' || s.status === 'read') {
      d.messages.applyStatus(row, s.status, undefined, at);
    } else {
      result.ignored++;
      return;
    }
    if (row.dispatching_at !== null) d.messages.endDispatching(row.id);
    result.statuses++;
  }

  /**
   * Runs one item in its own savepoint: it commits with the delivery, or it is rolled back and
   * kept as a reject (raw JSON and why) while the others commit.
   */
  function item(
    account: ChannelRow,
    kind: RejectRow['kind'],
    raw: unknown,
    result: WebhookResult,
    f: () => void,
  ) {
    try {
      inTransaction(f);
    } catch (e) {
      const reason =
        e instanceof Unreadable || e instanceof ApiError
          ? e.message
          : `could not be stored: ${e instanceof Error ? e.message : String(e)}`;
      if (!(e instanceof Unreadable) && !(e instanceof ApiError)) {
        d.log('a channel webhook item could not be stored; kept in webhook_rejects', e);
      }
      let json: string;
      try {
        json = JSON.stringify(raw) ?? 'null';
      } catch {
        json = String(raw);
      }
      repo.insertReject({
        id: d.ids('whr'),
        business_account_id: account.business_account_id,
        workspace_id: account.workspace_id,
        kind,
        raw: json.slice(0, 64 * 1024),
        reason: reason.slice(0, 1000),
        received_at: d.clock.now(),
      });
      result.rejected++;
    }
  }

  function messagesChange(value: ChangeValue, secret: string, result: WebhookResult) {
    const named = text(value.metadata?.phone_number_id)
      ? d.channels.byPhoneNumberId(value.metadata!.phone_number_id!)
      : null;
    const account = named && sameSecret(named, secret) ? named : null;
    if (!account) {
      const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
      result.ignored += count(value.messages) + count(value.statuses);
      return;
    }
    // A delivery signed with this account's app secret names its number: the number is its own.
    if (account.phone_proved_at === null) d.channels.proveNumber(account.business_account_id);
    const scope = scopeOf(account);
    let profiles: SenderProfile[] = [];
    let messages: unknown[] = [];
    let statuses: unknown[] = [];
    item(account, 'change', value, result, () => {
      profiles = list(value.contacts, '"contacts"').filter(isObject) as SenderProfile[];
      messages = list(value.messages, '"messages"');
      statuses = list(value.statuses, '"statuses"');
    });
    for (const m of messages) {
      item(account, 'message', m, result, () =>
        inbound(account, scope, m as InboundMessage, profiles, result),
      );
    }
    for (const s of statuses)
      item(account, 'status', s, result, () => status(scope, s as StatusUpdate, result));
  }

  function templateChange(entry: Entry, value: ChangeValue, secret: string, result: WebhookResult) {
    const accounts = d.channels
      .appSecrets()
      .filter((r) => r.waba_id === entry.id && sameSecret(r, secret));
    if (accounts.length === 0) result.ignored++;
    for (const r of accounts) {
      item(r, 'template', value, result, () => {
        const name = text(value.message_template_name);
        if (!name) throw new Unreadable('the template status update names no template');
        const moved = d.templates.applyProviderStatus(
          scopeOf(r),
          { name, language: text(value.message_template_language) ?? null },
          text(value.event) ?? '',
          text(value.reason) ?? null,
        );
        if (moved) result.templates++;
        else result.ignored++;
      });
    }
  }

  return {
    signedBy,

    /** Meta's subscription handshake: the challenge when the verify token is one of ours. */
    verify(mode: string | undefined, token: string | undefined, challenge: string | undefined) {
      if (mode !== 'subscribe' || !token || challenge === undefined) return null;
      const known = d.channels.verifyTokens();
      const given = Buffer.from(token);
      const ok = known.some((k) => {
        const b = Buffer.from(k);
        return b.length === given.length && timingSafeEqual(b, given);
      });
      return ok ? challenge : null;
    },

    /**
     * One verified delivery, in one transaction, each item in a savepoint of its own: what can
     * be read commits, what cannot is kept as a reject. `secret` is the app secret that signed
     * it: changes naming an account with another secret are ignored.
     */
    handle(body: Envelope, secret: string): WebhookResult {
      const result: WebhookResult = {
        messages: 0,
        duplicates: 0,
        statuses: 0,
        templates: 0,
        ignored: 0,
        rejected: 0,
      };
      const entries = Array.isArray(body.entry) ? body.entry : [];
      inTransaction.immediate(() => {
        for (const entry of entries) {
          if (!isObject(entry)) {
            result.ignored++;
            continue;
          }
          const changes = Array.isArray((entry as Entry).changes)
            ? ((entry as Entry).changes as unknown[])
            : [];
          for (const change of changes) {
            const c = isObject(change) ? change : {};
            const value = (isObject(c.value) ? c.value : {}) as ChangeValue;
            if (c.field === 'messages') messagesChange(value, secret, result);
            else if (c.field === 'message_template_status_update') {
              templateChange(entry as Entry, value, secret, result);
            } else result.ignored++;
          }
        }
      });
      return result;
    },

    /** The rejects of a workspace's live channel, newest first (Settings → Channel). */
    rejects(scope: Scope, limit: number, cursor: string | null) {
      const rows = repo.rejectsPage(
        scope.workspaceId,
        cursor === null ? null : decodeCursor(cursor),
        limit + 1,
      );
      return toPage(
        rows,
        limit,
        (r) => ({
          id: r.id,
          kind: r.kind,
          reason: r.reason,
          raw: r.raw,
          receivedAt: iso(r.received_at),
        }),
        (r) => r.id,
      );
    },
  };
}
export type ChannelWebhook = ReturnType<typeof channelWebhook>;
