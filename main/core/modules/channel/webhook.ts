import type { Database as Db } from 'better-sqlite3';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InteractiveList, ListReply } from '../../../../shared/schemas/interactive-lists.ts';
import type { Clock, Scope } from '../../runtime.ts';
import type { MessagesService } from '../messages/service.ts';
import type { TemplatesService } from '../templates/service.ts';
import type { ChannelRow, ChannelService } from './service.ts';

/** Meta's webhook body, as far as Parley reads it. */
interface Envelope {
  object?: string;
  entry?: {
    id?: string;
    changes?: { field?: string; value?: ChangeValue }[];
  }[];
}
interface ChangeValue {
  metadata?: { phone_number_id?: string };
  messages?: InboundMessage[];
  statuses?: StatusUpdate[];
  // message_template_status_update
  event?: string;
  message_template_id?: number | string;
  message_template_name?: string;
  message_template_language?: string;
  reason?: string | null;
}
interface InboundMessage {
  from: string;
  id: string;
  timestamp?: string;
  type: string;
  text?: { body?: string };
  interactive?: {
    type?: string;
    list_reply?: { id: string; title: string; description?: string };
    button_reply?: { id: string; title: string };
  };
  button?: { text?: string; payload?: string };
  context?: { id?: string };
}
interface StatusUpdate {
  id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed' | string;
  timestamp?: string;
  recipient_id?: string;
  biz_opaque_callback_data?: string;
  errors?: { code?: number; title?: string; message?: string; error_data?: { details?: string } }[];
}

export interface WebhookResult {
  messages: number;
  duplicates: number;
  statuses: number;
  templates: number;
  ignored: number;
}

/** What an unsupported message shows in the inbox, so nothing a customer sent is dropped. */
const PLACEHOLDER: Record<string, string> = {
  image: 'a photo',
  video: 'a video',
  audio: 'a voice message',
  document: 'a document',
  sticker: 'a sticker',
  location: 'a location',
  contacts: 'a contact card',
  reaction: 'a reaction',
  order: 'an order',
};

/**
 * Meta's webhooks for a connected account (design.md §5): signature checked over the raw bytes
 * against every connected account's app secret (constant time) before anything is read; then
 * every `entry[]` and `changes[]`: `messages[]` become inbound messages exactly like the
 * simulator's (idempotent by the provider's id, so a redelivery stores nothing), `statuses[]`
 * move our messages forward only, template status updates move templates.
 */
export function channelWebhook(d: {
  db: Db;
  clock: Clock;
  channels: ChannelService;
  messages: MessagesService;
  templates: TemplatesService;
}) {
  const findSentList = d.db.prepare(
    `SELECT interactive FROM messages WHERE channel_message_id = ? AND direction = 'outbound'`,
  );

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

  function inbound(scope: Scope, m: InboundMessage, result: WebhookResult) {
    const phone = `+${m.from.replace(/^\+/, '')}`;
    const receivedAt = m.timestamp ? Number(m.timestamp) * 1000 : d.clock.now();
    let text: string;
    let type: 'text' | 'list' = 'text';
    let listReply: ListReply | undefined;
    if (m.type === 'text') text = m.text?.body ?? '';
    else if (m.type === 'interactive' && m.interactive?.list_reply) {
      const pick = m.interactive.list_reply;
      text = pick.title;
      // A list reply names the row, not the list: the message it answers (`context.id`) does.
      const sent = m.context?.id
        ? (findSentList.get(m.context.id) as { interactive: string | null } | undefined)
        : undefined;
      const list = sent?.interactive ? (JSON.parse(sent.interactive) as InteractiveList) : null;
      if (list) {
        type = 'list';
        listReply = { listId: list.id, rowId: pick.id, title: pick.title };
      }
    } else if (m.type === 'interactive' && m.interactive?.button_reply) {
      text = m.interactive.button_reply.title;
    } else if (m.type === 'button') {
      text = m.button?.text ?? '[a button]';
    } else {
      text = `[${PLACEHOLDER[m.type] ?? `a ${m.type} message`} — open WhatsApp to see it]`;
    }
    const stored = d.messages.receive(scope, {
      phone,
      text: text.trim() === '' ? '[an empty message]' : text,
      type,
      receivedAt: Math.min(receivedAt, d.clock.now()),
      channelMessageId: m.id,
      ...(listReply ? { listReply } : {}),
    });
    if (stored) result.messages++;
    else result.duplicates++;
  }

  function status(scope: Scope, s: StatusUpdate, result: WebhookResult) {
    const ofAccount = <M extends { workspace_id: string; environment: string }>(
      m: M | undefined,
    ) => (m && m.workspace_id === scope.workspaceId && m.environment === 'live' ? m : undefined);
    let row = ofAccount(d.messages.repo.byChannelId(s.id));
    if (!row && s.biz_opaque_callback_data) {
      // The call's answer was lost (a crash, a timeout): our id rode along with the message.
      const ours = ofAccount(d.messages.repo.byId(s.biz_opaque_callback_data));
      if (ours && ours.channel_message_id === null) {
        d.messages.repo.setChannelMessageId(ours.id, s.id);
        row = { ...ours, channel_message_id: s.id };
      }
    }
    if (!row || row.direction !== 'outbound') {
      result.ignored++;
      return;
    }
    const at = s.timestamp ? Math.min(Number(s.timestamp) * 1000, d.clock.now()) : undefined;
    if (s.status === 'failed') {
      const e = s.errors?.[0];
      d.messages.applyStatus(
        row,
        'failed',
        {
          code: e?.code !== undefined ? String(e.code) : 'unknown',
          message:
            [e?.title, e?.message, e?.error_data?.details].filter(Boolean).join(': ') ||
            'The provider failed the message',
        },
        at,
      );
    } else if (s.status === 'sent' || s.status === 'delivered' || s.status === 'read') {
      d.messages.applyStatus(row, s.status, undefined, at);
    } else {
      result.ignored++;
      return;
    }
    if (row.dispatching_at !== null) d.messages.repo.setDispatching(row.id, null);
    result.statuses++;
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
     * One verified delivery, in one transaction: all of it is stored, or none. `secret` is the
     * app secret that signed it: changes naming an account with another secret are ignored.
     */
    handle(body: Envelope, secret: string): WebhookResult {
      const result: WebhookResult = {
        messages: 0,
        duplicates: 0,
        statuses: 0,
        templates: 0,
        ignored: 0,
      };
      d.db
        .transaction(() => {
          for (const entry of body.entry ?? []) {
            for (const change of entry.changes ?? []) {
              const value = change.value ?? {};
              if (change.field === 'messages') {
                const named = value.metadata?.phone_number_id
                  ? d.channels.byPhoneNumberId(value.metadata.phone_number_id)
                  : null;
                const account = named && sameSecret(named, secret) ? named : null;
                if (!account) {
                  result.ignored += (value.messages?.length ?? 0) + (value.statuses?.length ?? 0);
                  continue;
                }
                for (const m of value.messages ?? []) inbound(scopeOf(account), m, result);
                for (const s of value.statuses ?? []) status(scopeOf(account), s, result);
              } else if (change.field === 'message_template_status_update') {
                const accounts = d.channels
                  .appSecrets()
                  .filter((r) => r.waba_id === entry.id && sameSecret(r, secret));
                for (const r of accounts) {
                  const moved = d.templates.applyProviderStatus(
                    scopeOf(r),
                    {
                      name: value.message_template_name ?? '',
                      language: value.message_template_language ?? null,
                    },
                    value.event ?? '',
                    value.reason ?? null,
                  );
                  if (moved) result.templates++;
                }
              } else {
                result.ignored++;
              }
            }
          }
        })
        .immediate();
      return result;
    },
  };
}
export type ChannelWebhook = ReturnType<typeof channelWebhook>;
