import { ApiError } from '../../../../shared/errors.ts';
import { listText } from '../../../../shared/list-rules.ts';
export { CLOUD_API_LIST_ROWS } from '../../../../shared/list-rules.ts';
import type { Message } from '../../../../shared/schemas/messages.ts';
import type {
  Location,
  MediaType,
  MessageMedia,
  SharedContact,
} from '../../../../shared/schemas/media.ts';
import type { InteractiveList, ListReply } from '../../../../shared/schemas/interactive-lists.ts';
import type { ChannelMedia, ChannelMessage } from '../../channel/types.ts';
import type { Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { ContactRow } from '../contacts/repo.ts';
import type { MediaRow } from '../media/repo.ts';
import type { TemplateRow } from '../templates/repo.ts';
import type { PriceCategory } from '../wallet/prices.ts';
import type { MessageRow } from './repo.ts';

// What every use case of the module shares: its constants, the shapes it passes around and the
// pure conversions between rows, API JSON and channel messages.

export const SERVICE_WINDOW_MS = 24 * 3600_000;
export const MAX_DISPATCH_ATTEMPTS = 5;
/** README "Connecting WhatsApp": a message a crash left `dispatching` is re-sent only after this long unanswered. */
export const RESEND_AFTER_MS = 5 * 60_000;
/** The longest a remote hand-over may take before it counts as unanswered. */
export const DELIVER_TIMEOUT_MS = 30_000;
/** An API send's hand-over inside its request: longer, and it answers 202 and goes on behind. */
export const IN_REQUEST_MS = 10_000;

/**
 * Whom a message goes to: a contact row, or a runner's copy of one. `phone` may be the address
 * already (a campaign recipient's); a contact without a phone is addressed by its BSUID.
 */
export type Recipient = Pick<ContactRow, 'id' | 'phone' | 'last_inbound_at'> & {
  wa_user_id?: string | null;
};

export interface MessageQuery {
  conversationId?: string;
  contactId?: string;
  phone?: string;
  limit: number;
  cursor?: string;
}

/** Who sends: the API (a script), an agent from the inbox, or the bot. */
export interface Sender {
  sentBy: 'api' | 'agent' | 'bot';
  agentId: string | null;
}
export const API_SENDER: Sender = { sentBy: 'api', agentId: null };

/** A send's recipient: a phone (normalised here), or a contact the caller holds. */
export type To = { phone: string } | { contact: ContactRow };

/** What a runner's hand-over came to (see `handOverForRunner`). */
export type RunnerHandOver =
  | { ok: true; messageId: string }
  | { ok: false; kind: 'insufficient_balance'; balanceMicros: number; priceMicros: number }
  | { ok: false; kind: 'refused'; retryable: boolean; code: string; message: string };

export type StoredFields = Pick<MessageRow, 'type' | 'template_name' | 'text' | 'variables'> & {
  category: PriceCategory;
  /** A list message's copy of the list (JSON). */
  interactive?: string | null;
} & Partial<
    Pick<
      MessageRow,
      'media_id' | 'file_name' | 'context_message_id' | 'context_channel_id' | 'media_json'
    >
  >;

/** Meta's media ids of uploads live 30 days: one older than this is uploaded again. */
export const PROVIDER_MEDIA_TTL_MS = 29 * 24 * 3600_000;

/** A media record's facts as a message row carries them (MEDIA_FACTS_JSON). */
export interface MediaFacts {
  id: string;
  type: MediaType;
  mimeType: string | null;
  size: number | null;
  sha256: string | null;
  fileName: string | null;
  voice: number;
  durationMs: number | null;
  status: MessageMedia['status'];
  error: string | null;
  providerId: string | null;
  providerUploadedAt: number | null;
}
/** A media record as a message row carries it (`media_json`), for a row built in memory. */
export const mediaFactsJson = (m: MediaRow): string =>
  JSON.stringify({
    id: m.id,
    type: m.kind,
    mimeType: m.mime_type,
    size: m.size,
    sha256: m.sha256,
    fileName: m.file_name,
    voice: m.voice,
    durationMs: m.duration_ms,
    status: m.status,
    error: m.error,
    providerId: m.provider_media_id,
    providerUploadedAt: m.provider_uploaded_at,
  } satisfies MediaFacts);

const factsOf = (r: MessageRow): MediaFacts | null =>
  r.media_json ? (JSON.parse(r.media_json) as MediaFacts) : null;

/** A message's `media` as the API shows it: the record, with the message's caption and name. */
export function messageMedia(r: MessageRow): MessageMedia | null {
  const f = factsOf(r);
  if (!f) return null;
  return {
    id: f.id,
    type: f.type,
    mimeType: f.mimeType,
    size: f.size,
    sha256: f.sha256,
    caption: r.text === '' ? null : r.text,
    fileName: r.file_name ?? f.fileName,
    voice: f.voice === 1,
    durationMs: f.durationMs ?? null,
    status: f.status,
    error: f.error,
  };
}

/** What a list message stores: the list's text, and a copy of the list as it is now. */
export const listFields = (list: InteractiveList): StoredFields => ({
  type: 'list',
  template_name: null,
  text: listText(list),
  variables: null,
  category: 'SERVICE',
  interactive: JSON.stringify(list),
});

/**
 * Told (in the transaction) of every inbound message: waiting workflow runs resume on it,
 * listening workflows start on it, and auto-assignment gives its conversation to an agent.
 */
export type InboundListener = (
  scope: Scope,
  contactId: string,
  reply: { text: string; listReply?: ListReply },
  conversationId: string,
  facts: InboundFacts,
) => void;

/** The message itself, for what starts on it (a workflow run names the message once). */
export interface InboundFacts {
  messageId: string;
  /** When the customer wrote it (ms). */
  at: number;
  /** The conversation had no message from the customer before this one. */
  firstInbound: boolean;
}

export const toMessage = (r: MessageRow): Message => ({
  id: r.id,
  conversationId: r.conversation_id,
  contactId: r.contact_id,
  phone: r.phone,
  direction: r.direction,
  type: r.type,
  templateName: r.template_name,
  text: r.text,
  variables: r.variables ? (JSON.parse(r.variables) as Record<string, string>) : null,
  status: r.status,
  sentBy: r.sent_by,
  agentId: r.agent_id,
  campaignId: r.campaign_id ?? null,
  environment: r.environment,
  category: r.category,
  costMicros: r.cost_micros,
  channelMessageId: r.channel_message_id,
  error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
  createdAt: iso(r.created_at),
  sentAt: isoOrNull(r.sent_at),
  deliveredAt: isoOrNull(r.delivered_at),
  readAt: isoOrNull(r.read_at),
  failedAt: isoOrNull(r.failed_at),
  list:
    r.direction === 'outbound' && r.interactive
      ? (JSON.parse(r.interactive) as InteractiveList)
      : null,
  listReply:
    r.direction === 'inbound' && r.interactive ? (JSON.parse(r.interactive) as ListReply) : null,
  reaction: r.reaction ? { emoji: r.reaction, at: iso(r.reaction_at ?? r.created_at) } : null,
  mentions: r.mentions ? (JSON.parse(r.mentions) as string[]) : [],
  media: messageMedia(r),
  location: r.type === 'location' && r.content ? (JSON.parse(r.content) as Location) : null,
  contacts: r.type === 'contacts' && r.content ? (JSON.parse(r.content) as SharedContact[]) : null,
  context:
    r.context_message_id || r.context_channel_id
      ? {
          messageId: r.context_message_id ?? null,
          channelMessageId: r.context_channel_id ?? null,
        }
      : null,
  agentReaction: r.agent_reaction
    ? (JSON.parse(r.agent_reaction) as Message['agentReaction'])
    : null,
});

/** A media message's file for its channel (the caption and name are the message's). */
function channelMedia(r: MessageRow, now: number): ChannelMedia | null {
  const f = factsOf(r);
  if (!f || f.status !== 'ready' || !f.sha256 || !f.mimeType || f.size === null) return null;
  const fresh =
    f.providerId !== null &&
    f.providerUploadedAt !== null &&
    now - f.providerUploadedAt < PROVIDER_MEDIA_TTL_MS;
  return {
    id: f.id,
    kind: f.type,
    mimeType: f.mimeType,
    sha256: f.sha256,
    size: f.size,
    caption: r.text === '' ? null : r.text,
    fileName: r.file_name ?? f.fileName,
    providerId: fresh ? f.providerId : null,
  };
}

export function toChannelMessage(r: MessageRow, now = Date.now()): ChannelMessage {
  if (r.type === 'note' || r.type === 'location' || r.type === 'contacts') {
    throw new Error(`${r.type} messages are never sent to the channel`);
  }
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    environment: r.environment,
    phone: r.phone,
    type: r.type,
    text: r.text,
    templateName: r.template_name,
    variables: r.variables ? (JSON.parse(r.variables) as Record<string, string>) : null,
    channelMessageId: r.channel_message_id!,
    list:
      r.type === 'list' && r.interactive ? (JSON.parse(r.interactive) as InteractiveList) : null,
    media: r.type === 'media' ? channelMedia(r, now) : null,
    contextChannelId: r.context_channel_id ?? null,
  };
}

export const scopeOf = (r: { workspace_id: string; environment: string }): Scope => ({
  workspaceId: r.workspace_id,
  environment: r.environment as Scope['environment'],
});

/** The variables must be exactly the template's `{{1}}…{{n}}`: else 400 `template_variables_mismatch`. */
export function requireVariables(
  tpl: Pick<TemplateRow, 'name' | 'variable_count'>,
  variables: Record<string, string>,
): void {
  const keys = Object.keys(variables).sort((a, b) => Number(a) - Number(b));
  const expected = Array.from({ length: tpl.variable_count }, (_, i) => String(i + 1));
  if (keys.join(',') !== expected.join(',')) {
    throw new ApiError(
      'template_variables_mismatch',
      `template "${tpl.name}" takes ${tpl.variable_count} variable${tpl.variable_count === 1 ? '' : 's'} (${expected.map((k) => `"${k}"`).join(', ') || 'none'}); got ${keys.length ? keys.map((k) => `"${k}"`).join(', ') : 'none'}`,
      { param: 'variables', details: { expected, received: keys } },
    );
  }
}

/** What a provider's refusal of an API send answers (README "Connecting WhatsApp": error mapping). */
export function channelApiError(code: string, message: string): ApiError {
  const details = { channelCode: Number(code) || code };
  switch (code) {
    case '131047':
      return new ApiError('outside_service_window', message, { details });
    case '132001':
      return new ApiError('template_not_found', message, { param: 'templateName', details });
    case '132000':
      return new ApiError('template_variables_mismatch', message, { param: 'variables', details });
    case '131026':
    case '131021':
      return new ApiError('recipient_invalid', message, { param: 'phone', details });
    case '131009':
      return new ApiError('list_limits_exceeded', message, { param: 'listId', details });
    default:
      return new ApiError('channel_error', message, { details });
  }
}

export const insideServiceWindow = (lastInboundAt: number | null, now: number): boolean =>
  lastInboundAt !== null && now - lastInboundAt < SERVICE_WINDOW_MS;
