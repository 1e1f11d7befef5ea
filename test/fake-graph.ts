/**
 * A fake Meta Graph API (WhatsApp Cloud API) for tests: a real HTTP server on 127.0.0.1 that
 * validates what Parley sends against the shapes Meta documents, answers like Meta (errors
 * included) and posts signed webhooks back. Tests never reach the internet.
 *
 * ## Meta sources followed (read, not copied)
 * - Meta's OpenAPI spec for the WhatsApp Business Platform, github.com/facebook/openapi,
 *   `business-messaging-api_v23.0.yaml`: `POST /{Phone-Number-ID}/messages` (Message, TextMessage,
 *   TemplateObject/LanguageObject/TemplateComponent/ParameterObject/ButtonParameterObject,
 *   InteractiveObject/ActionObject/SectionObject, MessageResponsePayload, MessageStatus),
 *   `GET /{Phone-Number-ID}` (PhoneNumberInfo, default fields), `GET|POST|DELETE
 *   /{WABA-ID}/message_templates`, `GET|POST /{TEMPLATE_ID}` (edit → `{success:true}`), the
 *   webhook schemas (WebhookPayload/Entry/Change/Metadata/ContactProfile/Statuses/StatusError,
 *   InteractiveMessageReply, UnsupportedMessage, Sticker/Location/Image messages) and GraphAPIError.
 * - developers.facebook.com/documentation/business-messaging/whatsapp/messages/interactive-list-messages
 *   ("up to 10 sections, with up to 10 rows for all sections combined"; button ≤ 20, body ≤ 4096,
 *   header (text only) ≤ 60, footer ≤ 60, section title ≤ 24, row id ≤ 200, row title ≤ 24,
 *   row description ≤ 72; the send answer there carries no `message_status`).
 * - …/whatsapp/webhooks/reference/messages (envelope, text message, list_reply with `context`),
 *   …/webhooks/reference/messages/status (statuses: id, status, timestamp, recipient_id,
 *   biz_opaque_callback_data, conversation {id, expiration_timestamp (sent only), origin.type},
 *   pricing {billable, pricing_model PMP, type, category}, errors [{code, title, message,
 *   error_data.details, href}]), …/webhooks/reference/message_template_status_update (entry.time,
 *   event, message_template_id as a number, message_template_name, message_template_language,
 *   reason "NONE" unless rejected, message_template_category, disable_info, other_info).
 * - …/whatsapp/messaging-limits ("Via API": `messaging_limit_tier` up to v23.0,
 *   `whatsapp_business_manager_messaging_limit` from v24.0; values TIER_50 … TIER_UNLIMITED) and
 *   …/whatsapp/throughput (`GET /{phone-number-id}?fields=throughput` → `throughput.level`).
 * - …/whatsapp/support/error-codes (codes, titles, HTTP statuses; as transcribed in public
 *   copies) and Graph "Handling Errors" (`{error:{message,type,code,error_subcode,fbtrace_id}}`).
 * - Meta's webhook docs on signatures: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret,
 *   payload)>`, and "we generate the signature using an escaped unicode version of the payload,
 *   with lowercase hex digits": so webhook bodies here escape non-ASCII as `\uXXXX` (and `/` as
 *   `\/`), and the HMAC covers exactly those bytes. A receiver that re-serialises parsed JSON
 *   fails on the first emoji, as it would against Meta.
 * - Error texts seen in real answers quoted by public code: "(#132001) Template name does not
 *   exist in the translation" (HTTP 404, details "template name (x) does not exist in es_MX"),
 *   "(#132000) Number of parameters does not match the expected number of params" (details
 *   "body: number of localizable_params (1) does not match the expected number of params (2)"),
 *   "(#131047) Re-engagement message", "(#131009) Parameter value is not valid" with details
 *   "Total row count exceed max allowed count: 10", "(#130429) Rate limit hit" (subcode 2494055).
 *
 * ## Where this guesses (or simplifies on purpose)
 * - Shape errors: every schema violation answers `(#100) Invalid parameter` with a Graph-style
 *   sentence in `error_data.details` (e.g. "Param text['body'] must be at most 4096 characters
 *   long.", `Unexpected key "x" on param text.`); Meta's exact wording varies. List limits that
 *   are about values rather than shape (> 10 sections, > 10 rows in total, a missing section
 *   title when there are several sections, duplicate row ids) answer 131009.
 * - Lengths are counted in Unicode code points (an emoji is 1), not UTF-16 units.
 * - `to` accepts digits with an optional leading `+` and the separators Meta's own examples use
 *   (spaces, dashes, dots, parentheses); `wa_id` is the digits. Meta may rewrite wa_id for some
 *   countries; the fake never does.
 * - `text`, `template`, `interactive` (`list`), media (`image`, `audio`, `video`, `document`,
 *   `sticker` by the `id` of an upload) and `reaction` sends are modelled. Other documented types
 *   (location, contacts, interactive button, …) answer 100 with details saying the fake does not
 *   model them; undocumented types answer 100 too. A missing `type` means `text`, as Meta documents.
 * - Media (Meta's media reference: `POST /{phone}/media` multipart with `messaging_product`,
 *   `type` and `file` → `{id}`; `GET /{media-id}` → `{messaging_product, url, mime_type, sha256,
 *   file_size, id}`; the `url` downloaded with the bearer token, valid 5 minutes; supported types
 *   and limits per Meta's table). Guesses: the retrieve answer's `sha256` is hex (Meta's example
 *   says `<HASH>`; partners' docs show hex) while webhooks carry base64 (Meta's examples);
 *   `file_size` is a number (Meta's example shows a string; clients must take both); an unknown
 *   media id answers 100 like an unknown node; a send naming an id that is no upload, and an upload
 *   over its type's limit, answer 131053 ("Media upload error") synchronously; the download URL lives on the fake's own origin
 *   (Meta's is lookaside.fbsbx.com) as `/whatsapp_business/attachments/?mid=…&ext=…&hash=…`.
 * - `message_status: "accepted"` is returned for template sends only (Meta's template docs);
 *   text and list sends answer `messages:[{id}]`, as in Meta's list-message example.
 * - 131047 is answered synchronously (Meta also reports it in a `failed` status webhook;
 *   `failNext({code, async: true})` models that path).
 * - Template status: PAUSED → 132015, DISABLED → 132016, any other non-sendable status
 *   (PENDING, REJECTED, IN_APPEAL, …) → 132001, as Meta's table describes 132001 ("does not exist
 *   in the specified language or … has not been approved"). APPROVED, FLAGGED and LOCKED send.
 * - HTTP statuses: 132001 → 404; 190 → 401; 131000/131045/131057 → 500; 2 → 503; the
 *   throttling family (4, 80007, 130429, 131048, 131056) → 429 (one transcription of Meta's
 *   table says 400; clients must key on `code`, and `failNext({httpStatus})` can override).
 * - Duplicate template (same name and language): 400 code 100, error_subcode 2388024,
 *   error_user_title "Content in This Language Already Exists" (from memory, partly corroborated).
 *   Template validation failures: 400 code 100 with error_user_title/error_user_msg, no subcode.
 * - Template create requires `example.body_text` when the body has variables (Meta's component
 *   docs say it is required); editing is allowed only from APPROVED, REJECTED or PAUSED and puts
 *   the template back to PENDING. The `name` filter of the template list matches substrings.
 * - `GET /{phone}` without `fields` returns Meta's default fields only (id, display_phone_number,
 *   verified_name, quality_rating); tier and throughput must be asked for, as with Meta. Both
 *   `messaging_limit_tier` and `whatsapp_business_manager_messaging_limit` are served whatever the
 *   version in the path. Unknown fields answer "(#100) Tried accessing nonexisting field".
 * - Auth is the `Authorization: Bearer` header only (Graph also takes `?access_token=`; the fake
 *   refuses it so the client is held to one way), and paging `next` links carry no token.
 * - The `conversation` object is sent on `sent`/`delivered` statuses as documented for v23.0 and
 *   older (v24.0+ omits it); ids, pricing categories and timestamps are invented but well-formed.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Public types

export interface FakeGraphOptions {
  phoneNumberId?: string;
  wabaId?: string;
  accessToken?: string;
  appSecret?: string;
  /** As `GET /{phone}` shows it, e.g. "+1 555-078-3881"; webhooks carry its digits. */
  displayPhoneNumber?: string;
  verifiedName?: string;
  qualityRating?: string;
  /** `messaging_limit_tier` / `whatsapp_business_manager_messaging_limit`, e.g. TIER_1K. */
  tier?: string;
  /** `throughput.level`: STANDARD | HIGH | NOT_APPLICABLE. */
  throughputLevel?: string;
  webhookUrl?: string;
  /** After each accepted send, post sent → delivered → read statuses, `delayMs` apart. */
  autoStatuses?: boolean | { delayMs: number };
  /** Graph version in `baseUrl` (any `vNN.N` is served). Default v21.0. */
  version?: string;
  /** Clock for timestamps and the 24 h customer-service windows. Default Date.now. */
  now?: () => number;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. /v21.0/106540352242922/messages. */
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The body's bytes (a multipart upload is not UTF-8). */
  rawBytes: Buffer;
  /** The parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  at: number;
}

/** A file the fake holds: a customer's (addMedia) or one the business uploaded. */
export interface FakeMedia {
  id: string;
  bytes: Buffer;
  mimeType: string;
  /** Hex SHA-256 of the bytes (the retrieve answer's); webhooks carry it base64. */
  sha256: string;
  sha256Base64: string;
  fileName?: string;
  /** The `file_size` its retrieve answer gives, when not its true size (a lying or stale one). */
  declaredSize?: number;
  origin: 'customer' | 'upload';
  at: number;
}

/** How the next media download(s) go wrong. */
export interface MediaFailSpec {
  /** An HTTP status to answer instead of the file (e.g. 500, 404). */
  status?: number;
  /** Cut the connection after this many bytes of the file. */
  truncateAt?: number;
  times?: number;
}

export interface SentMessage {
  wamid: string;
  to: string;
  waId: string;
  type:
    | 'text'
    | 'template'
    | 'interactive'
    | 'image'
    | 'audio'
    | 'video'
    | 'document'
    | 'sticker'
    | 'reaction';
  body: Record<string, unknown>;
  bizOpaqueCallbackData?: string;
  at: number;
}

export type TemplateStatus =
  | 'APPROVED'
  | 'PENDING'
  | 'REJECTED'
  | 'PAUSED'
  | 'DISABLED'
  | 'IN_APPEAL'
  | 'FLAGGED'
  | 'LOCKED'
  | 'ARCHIVED'
  | 'LIMIT_EXCEEDED'
  | 'PENDING_DELETION'
  | 'DELETED'
  | (string & {});

export interface FakeTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  status: TemplateStatus;
  /** In Meta's creation format: [{type:'BODY', text}, {type:'HEADER', format:'TEXT', text}, …]. */
  components: Record<string, unknown>[];
  parameterFormat: 'POSITIONAL' | 'NAMED';
  rejectedReason?: string;
}

export interface FailSpec {
  code: number;
  httpStatus?: number;
  message?: string;
  details?: string;
  error_subcode?: number;
  /** How many matching requests fail (default 1). */
  times?: number;
  /** Which requests: sends (`POST …/messages`, default) or any authenticated request. */
  on?: 'send' | 'any';
  /**
   * Accept the send (200, a wamid) and report the failure the way Meta reports most delivery
   * failures: a `failed` status webhook carrying `errors[{code,…}]`. Only for sends.
   */
  async?: boolean;
}

export interface WebhookChange {
  field: string;
  value: Record<string, unknown>;
}

export interface WebhookEntry {
  id: string;
  time?: number;
  changes: WebhookChange[];
}

export interface WebhookPayload {
  object: string;
  entry: WebhookEntry[];
}

export interface StatusError {
  code: number;
  title?: string;
  message?: string;
  error_data?: { details: string };
  href?: string;
}

export interface StatusSpec {
  wamid: string;
  status: 'sent' | 'delivered' | 'read' | 'failed' | (string & {});
  recipient: string;
  /** Unix seconds (number or string); default now. */
  timestamp?: number | string;
  bizOpaqueCallbackData?: string;
  errors?: StatusError[];
  conversation?: { id: string; expiration_timestamp?: string; origin: { type: string } };
  pricing?: { billable?: boolean; pricing_model: string; type?: string; category: string };
}

export interface DeliveredWebhook {
  url: string;
  rawBody: string;
  payload: unknown;
  headers: Record<string, string>;
  /** HTTP status of the receiver's answer; 0 when the POST failed. */
  status: number;
  error?: string;
  at: number;
}

export interface PostOptions {
  signature?: 'valid' | 'bad' | 'none';
  /** Post exactly this body (signed as is) instead of serialising the payload. */
  rawBody?: string;
}

export interface TemplateStatusUpdateSpec {
  event: string;
  templateId: string | number;
  name: string;
  language: string;
  reason?: string | null;
  category?: string;
  disableInfo?: { disable_date: string | number };
  otherInfo?: { title: string; description: string };
  rejectionInfo?: { reason: string; recommendation: string };
  time?: number;
}

export type UnsupportedInboundType =
  | 'sticker'
  | 'location'
  | 'image'
  | 'audio'
  | 'video'
  | 'document'
  | 'contacts'
  | 'reaction'
  | 'unsupported';

export interface PayloadBuilders {
  inboundText(o: {
    from: string;
    name?: string;
    text: string;
    id?: string;
    timestamp?: number | string;
  }): WebhookPayload;
  inboundListReply(o: {
    from: string;
    name?: string;
    listRowId: string;
    title: string;
    description?: string;
    /** The wamid of the list message the business sent. */
    contextId: string;
    id?: string;
    timestamp?: number | string;
  }): WebhookPayload;
  inboundUnsupported(o: {
    from: string;
    type: UnsupportedInboundType;
    name?: string;
    id?: string;
    timestamp?: number | string;
  }): WebhookPayload;
  /** One change whose `statuses` holds one status, or several (in the order given). */
  status(s: StatusSpec | StatusSpec[]): WebhookPayload;
  templateStatusUpdate(o: TemplateStatusUpdateSpec): WebhookPayload;
  /** One entry (this WABA) holding the given changes; payloads given are flattened to theirs. */
  envelope(items: Array<WebhookChange | WebhookPayload>): WebhookPayload;
  /** One payload holding every entry of the given payloads (several `entry[]` items). */
  mergeEntries(...payloads: WebhookPayload[]): WebhookPayload;
}

export interface PhoneState {
  displayPhoneNumber: string;
  verifiedName: string;
  qualityRating: string;
  tier: string;
  throughputLevel: string;
}

export interface FakeGraph extends PayloadBuilders {
  /** e.g. http://127.0.0.1:PORT/v21.0 */
  baseUrl: string;
  /** e.g. http://127.0.0.1:PORT */
  origin: string;
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
  appSecret: string;
  /** Mutable: change tier/throughput/quality between calls. */
  phone: PhoneState;
  requests: RecordedRequest[];
  sent: SentMessage[];
  templates: FakeTemplate[];
  webhooks: DeliveredWebhook[];
  addTemplate(t: {
    name: string;
    language: string;
    category: string;
    status: TemplateStatus;
    components: Record<string, unknown>[];
    id?: string;
    parameterFormat?: 'POSITIONAL' | 'NAMED';
    rejectedReason?: string;
  }): FakeTemplate;
  /**
   * Change a template's status and, when a webhook URL is set, post the
   * `message_template_status_update` webhook (resolves with the receiver's HTTP status).
   */
  setTemplateStatus(
    name: string,
    language: string,
    status: TemplateStatus | 'REINSTATED',
    reason?: string,
  ): Promise<number | undefined>;
  failNext(spec: FailSpec): void;
  /** Hold back the answer to the next send (or any request) for `ms` (Infinity: never answer). */
  hangNext(ms: number, opts?: { on?: 'send' | 'any' }): void;
  /**
   * Destroy the socket of the next send (or any request) without answering. With
   * `processed: true` the send is accepted first (recorded in `sent`, statuses follow).
   */
  dropNext(opts?: { on?: 'send' | 'any'; processed?: boolean }): void;
  /** Every send to this recipient fails with this error until cleared with null. */
  failFor(recipient: string, spec: Omit<FailSpec, 'times' | 'on'> | null): void;
  /** Open (or extend) the 24 h customer-service window, as an inbound message does. */
  openWindow(recipient: string, at?: number): void;
  closeWindow(recipient: string): void;
  hasOpenWindow(recipient: string): boolean;
  setWebhookUrl(url: string | null): void;
  /** Sign and POST a payload to the webhook URL; resolves with the receiver's HTTP status. */
  post(payload: WebhookPayload | unknown, opts?: PostOptions): Promise<number>;
  /** Perform Meta's verification GET against `url`. */
  verify(
    url: string,
    verifyToken: string,
    challenge?: string,
  ): Promise<{ status: number; body: string; challenge: string }>;
  /** Resolves once every scheduled webhook (auto statuses, async failures) has been posted. */
  settled(): Promise<void>;
  /** Every file held: customers' (addMedia) and the business's uploads, by media id. */
  media: Map<string, FakeMedia>;
  /** A customer's file, as Meta holds it before a webhook names it (its id and hashes). */
  addMedia(o: {
    bytes: Buffer;
    mimeType: string;
    fileName?: string;
    declaredSize?: number;
  }): FakeMedia;
  /** The next media download(s) fail as given (the retrieve call still answers). */
  failNextDownload(spec: MediaFailSpec): void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the server and the builders

const DAY_MS = 24 * 60 * 60 * 1000;
const ERROR_CODES_HREF = '/docs/whatsapp/cloud-api/support/error-codes/';

/** Meta's webhook serialisation: non-ASCII as lowercase \uXXXX, `/` as `\/`. */
export function metaJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
    .replace(/\//g, '\\/');
}

/** `sha256=<hex>` as Meta puts it in X-Hub-Signature-256. */
export function signatureFor(appSecret: string, rawBody: string | Buffer): string {
  return 'sha256=' + createHmac('sha256', appSecret).update(rawBody).digest('hex');
}

function digitsOf(s: string): string {
  return s.replace(/\D/g, '');
}

function fbtraceId(): string {
  return 'A' + randomBytes(16).toString('base64url').slice(0, 22);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tryParse(raw: string): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function codePoints(s: string): number {
  return [...s].length;
}

let wamidCounter = 0;
function newWamid(waId: string): string {
  wamidCounter++;
  const inner = `HBgL${waId}FQIAERgS${randomBytes(9).toString('hex').toUpperCase()}${wamidCounter}`;
  return 'wamid.' + Buffer.from(inner).toString('base64');
}

function unixSeconds(ms: number): string {
  return String(Math.floor(ms / 1000));
}

// ---------------------------------------------------------------------------------------------
// Error catalogue (Meta's error-codes table; see the header for the guesses)

interface KnownCode {
  title: string;
  http: number;
  details?: string;
}

const KNOWN_CODES: Record<number, KnownCode> = {
  0: { title: 'AuthException', http: 401 },
  1: { title: 'An unknown error occurred', http: 400 },
  2: { title: 'An unexpected error has occurred. Please retry your request later.', http: 503 },
  3: { title: 'Capability or permissions issue', http: 500 },
  4: { title: 'Application request limit reached', http: 429 },
  10: { title: 'Permission denied', http: 403 },
  100: { title: 'Invalid parameter', http: 400 },
  190: { title: 'Error validating access token', http: 401 },
  200: { title: 'Permissions error', http: 403 },
  368: { title: 'Temporarily blocked for policies violations', http: 403 },
  80007: { title: 'Rate limit issues', http: 429 },
  130429: {
    title: 'Rate limit hit',
    http: 429,
    details: 'Cloud API message throughput has been reached.',
  },
  130472: { title: "User's number is part of an experiment", http: 400 },
  131000: {
    title: 'Something went wrong',
    http: 500,
    details: 'Message failed to send due to an unknown error.',
  },
  131005: { title: 'Access denied', http: 403 },
  131008: { title: 'Required parameter is missing', http: 400 },
  131009: { title: 'Parameter value is not valid', http: 400 },
  131016: { title: 'Service unavailable', http: 500 },
  131021: {
    title: 'Recipient cannot be sender',
    http: 400,
    details: 'Sender and recipient phone number is the same.',
  },
  131026: { title: 'Message Undeliverable', http: 400, details: 'Unable to deliver message.' },
  131031: { title: 'Account has been locked', http: 403 },
  131042: { title: 'Business eligibility payment issue', http: 400 },
  131045: { title: 'Incorrect certificate', http: 500 },
  131047: {
    title: 'Re-engagement message',
    http: 400,
    details:
      'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  },
  131048: { title: 'Spam rate limit hit', http: 429 },
  131049: {
    title: 'This message was not delivered to maintain healthy ecosystem engagement.',
    http: 400,
    details:
      'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.',
  },
  131051: { title: 'Unsupported message type', http: 400 },
  131052: { title: 'Media download error', http: 400 },
  131053: { title: 'Media upload error', http: 400 },
  131056: {
    title: '(Business Account, Consumer Account) pair rate limit hit',
    http: 429,
    details:
      'Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.',
  },
  131057: { title: 'Account in maintenance mode', http: 500 },
  132000: { title: 'Number of parameters does not match the expected number of params', http: 400 },
  132001: { title: 'Template name does not exist in the translation', http: 404 },
  132005: { title: 'Translated text too long', http: 400 },
  132007: { title: 'Template Format Character Policy Violated', http: 400 },
  132012: { title: 'Parameter format does not match format in the created template', http: 400 },
  132015: {
    title: 'Template is Paused',
    http: 400,
    details: 'Template is paused due to low quality so it cannot be sent in a template message.',
  },
  132016: {
    title: 'Template is Disabled',
    http: 400,
    details:
      'Template has been paused too many times due to low quality and is now permanently disabled.',
  },
  133010: { title: 'Account not registered', http: 400 },
};

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface ErrorOpts {
  code: number;
  httpStatus?: number;
  message?: string;
  details?: string;
  subcode?: number;
  type?: string;
  /** error_data carries messaging_product: 'whatsapp' (the messaging endpoints do). */
  messaging?: boolean;
  userTitle?: string;
  userMsg?: string;
}

function graphError(o: ErrorOpts): Answer {
  const known = KNOWN_CODES[o.code];
  let message = o.message;
  if (message === undefined) {
    if (o.code === 1 || o.code === 2) message = known?.title;
    else if (o.code === 190)
      message = 'Error validating access token: The access token is invalid.';
    else message = `(#${o.code}) ${known?.title ?? 'Error'}`;
  }
  const error: Record<string, unknown> = {
    message,
    type: o.type ?? 'OAuthException',
    code: o.code,
  };
  if (o.subcode !== undefined) error.error_subcode = o.subcode;
  if (o.code === 1 || o.code === 2) error.is_transient = true;
  if (o.userTitle !== undefined) {
    error.is_transient = false;
    error.error_user_title = o.userTitle;
    error.error_user_msg = o.userMsg ?? o.userTitle;
  }
  const details = o.details ?? (o.messaging ? known?.details : undefined);
  if (details !== undefined) {
    error.error_data = o.messaging ? { messaging_product: 'whatsapp', details } : { details };
  }
  error.fbtrace_id = fbtraceId();
  const status = o.httpStatus ?? known?.http ?? 400;
  const headers: Record<string, string> = {};
  if (o.code === 190) {
    headers['www-authenticate'] = `OAuth "Facebook Platform" "invalid_token" "${message}"`;
  }
  return { status, body: { error }, headers };
}

function invalidParam(details: string): Answer {
  return graphError({ code: 100, details, messaging: true });
}

function unsupportedRequest(method: string, id: string): Answer {
  return graphError({
    code: 100,
    subcode: 33,
    type: 'GraphMethodException',
    message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
  });
}

function templateError(userTitle: string, userMsg: string, subcode?: number): Answer {
  return graphError({ code: 100, message: 'Invalid parameter', userTitle, userMsg, subcode });
}

// ---------------------------------------------------------------------------------------------
// Zod issues → Graph-style details

type Issue = z.core.$ZodIssue;

function paramPath(path: PropertyKey[]): string {
  if (path.length === 0) return 'the request body';
  const [first, ...rest] = path;
  return (
    String(first) +
    rest.map((p) => (typeof p === 'number' ? `[${p}]` : `['${String(p)}']`)).join('')
  );
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

function describeIssue(issue: Issue, input: unknown, prefix: PropertyKey[]): string {
  const full = [...prefix, ...issue.path];
  const where = paramPath(full);
  const absent = valueAt(input, issue.path) === undefined;
  if (absent && ['invalid_type', 'invalid_value', 'invalid_union'].includes(issue.code))
    return `The parameter ${where} is required.`;
  switch (issue.code) {
    case 'invalid_type':
      return `Param ${where} must be ${issue.expected === 'array' || issue.expected === 'object' ? 'an' : 'a'} ${issue.expected}.`;
    case 'too_big':
      if (issue.origin === 'string')
        return `Param ${where} must be at most ${String(issue.maximum)} characters long.`;
      if (issue.origin === 'array')
        return `Param ${where} must contain at most ${String(issue.maximum)} elements.`;
      return `Param ${where} must be at most ${String(issue.maximum)}.`;
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1
          ? `Param ${where} must be non-empty.`
          : `Param ${where} must be at least ${String(issue.minimum)} characters long.`;
      if (issue.origin === 'array')
        return `Param ${where} must contain at least ${String(issue.minimum)} element${Number(issue.minimum) === 1 ? '' : 's'}.`;
      return `Param ${where} must be at least ${String(issue.minimum)}.`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => `"${k}"`).join(', ');
      const on = full.length === 0 ? 'the request body' : `param ${where}`;
      return `Unexpected key${issue.keys.length > 1 ? 's' : ''} ${keys} on ${on}.`;
    }
    case 'invalid_value':
      return `Param ${where} must be one of {${issue.values.map(String).join(', ')}}.`;
    case 'invalid_union': {
      // A discriminated union names its options (not in zod's issue type).
      const options = (issue as { options?: unknown }).options;
      if (Array.isArray(options))
        return `Param ${where} must be one of {${options.map(String).join(', ')}}.`;
      return `Param ${where} is not valid.`;
    }
    case 'invalid_format':
      return `Param ${where} is not in a valid format.`;
    default:
      return `Param ${where} ${issue.message}.`;
  }
}

function describeIssues(error: z.ZodError, input: unknown, prefix: PropertyKey[] = []): string {
  return error.issues
    .slice(0, 3)
    .map((i) => describeIssue(i, input, prefix))
    .join(' ');
}

// ---------------------------------------------------------------------------------------------
// Send schemas (POST /{phone}/messages)

/** A string of 1..max Unicode characters (code points). */
function text(max: number, min = 1) {
  return z
    .string()
    .min(min)
    .refine((s) => codePoints(s) <= max, { message: `must be at most ${max} characters long` });
}

const toSchema = z
  .string()
  .regex(/^\+?\d[\d\s().-]*$/, { message: 'must be a phone number (digits, optional leading +)' })
  .refine((s) => digitsOf(s).length >= 5 && digitsOf(s).length <= 15, {
    message: 'must hold 5 to 15 digits',
  });

/** A business-scoped user id (BSUID): country code, a dot, `ENT.` for a parent id, alphanumerics. */
const bsuidSchema = z.string().regex(/^[A-Z]{2}\.(?:ENT\.)?[A-Za-z0-9]{1,128}$/, {
  message: 'must be a business-scoped user id',
});

const common = {
  messaging_product: z.literal('whatsapp'),
  recipient_type: z.literal('individual').optional(),
  // A phone in `to`, or (a username user's) business-scoped user id in `recipient`: one of them.
  to: toSchema.optional(),
  recipient: bsuidSchema.optional(),
  biz_opaque_callback_data: text(512).optional(),
  context: z.strictObject({ message_id: z.string().min(1) }).optional(),
};

const textSendSchema = z.strictObject({
  ...common,
  type: z.literal('text').optional(),
  text: z.strictObject({ body: text(4096), preview_url: z.boolean().optional() }),
});

const mediaObject = z.union([
  z.strictObject({
    id: z.string().min(1),
    caption: z.string().optional(),
    filename: z.string().optional(),
  }),
  z.strictObject({
    link: z.url(),
    caption: z.string().optional(),
    filename: z.string().optional(),
  }),
]);

const lowerEnum = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(values));

const sendParam = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('text'),
    text: z.string(),
    parameter_name: z.string().min(1).optional(),
  }),
  z.strictObject({
    type: z.literal('currency'),
    currency: z.strictObject({
      fallback_value: z.string(),
      code: z.string().length(3),
      amount_1000: z.number().int(),
    }),
    parameter_name: z.string().min(1).optional(),
  }),
  z.strictObject({
    type: z.literal('date_time'),
    date_time: z.looseObject({ fallback_value: z.string() }),
    parameter_name: z.string().min(1).optional(),
  }),
  z.strictObject({ type: z.literal('image'), image: mediaObject }),
  z.strictObject({ type: z.literal('video'), video: mediaObject }),
  z.strictObject({ type: z.literal('document'), document: mediaObject }),
  z.strictObject({
    type: z.literal('location'),
    location: z.strictObject({
      latitude: z.union([z.number(), z.string()]),
      longitude: z.union([z.number(), z.string()]),
      name: z.string().optional(),
      address: z.string().optional(),
    }),
  }),
  z.strictObject({ type: z.literal('payload'), payload: z.string().min(1) }),
  z.strictObject({ type: z.literal('coupon_code'), coupon_code: z.string().min(1) }),
  z.strictObject({ type: z.literal('action'), action: z.record(z.string(), z.unknown()) }),
]);

const sendComponent = z
  .strictObject({
    type: lowerEnum(['header', 'body', 'button'] as const),
    sub_type: lowerEnum([
      'quick_reply',
      'url',
      'copy_code',
      'catalog',
      'mpm',
      'flow',
      'voice_call',
    ] as const).optional(),
    index: z.union([z.number().int().min(0).max(9), z.string().regex(/^\d$/)]).optional(),
    parameters: z.array(sendParam).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.type === 'button') {
      if (c.sub_type === undefined)
        ctx.addIssue({ code: 'custom', path: ['sub_type'], message: 'is required for buttons' });
      if (c.index === undefined)
        ctx.addIssue({ code: 'custom', path: ['index'], message: 'is required for buttons' });
    }
  });

const templateSendSchema = z.strictObject({
  ...common,
  type: z.literal('template'),
  template: z.strictObject({
    name: z.string().min(1).max(512),
    language: z.strictObject({
      code: z.string().min(2),
      policy: z.literal('deterministic').optional(),
    }),
    components: z.array(sendComponent).optional(),
  }),
});

const listRow = z.strictObject({
  id: text(200),
  title: text(24),
  description: text(72).optional(),
});

const listInteractive = z.strictObject({
  type: z.literal('list'),
  header: z.strictObject({ type: z.literal('text'), text: text(60) }).optional(),
  body: z.strictObject({ text: text(4096) }),
  footer: z.strictObject({ text: text(60) }).optional(),
  action: z.strictObject({
    button: text(20),
    sections: z
      .array(z.strictObject({ title: text(24).optional(), rows: z.array(listRow).min(1) }))
      .min(1),
  }),
});

const interactiveSendSchema = z.strictObject({
  ...common,
  type: z.literal('interactive'),
  interactive: listInteractive,
});

/** Meta's media object of a send by id: captions for image, video, document; a document's name. */
const sendMediaObject = (opts: { caption: boolean; filename: boolean }) =>
  z.strictObject({
    id: z.string().min(1),
    ...(opts.caption ? { caption: text(1024).optional() } : {}),
    ...(opts.filename ? { filename: text(240).optional() } : {}),
  });
type MediaSendType = 'image' | 'audio' | 'video' | 'document' | 'sticker';
const mediaSendSchemas: Record<MediaSendType, z.ZodType<Record<string, unknown>>> = {
  image: z.strictObject({
    ...common,
    type: z.literal('image'),
    image: sendMediaObject({ caption: true, filename: false }),
  }),
  video: z.strictObject({
    ...common,
    type: z.literal('video'),
    video: sendMediaObject({ caption: true, filename: false }),
  }),
  document: z.strictObject({
    ...common,
    type: z.literal('document'),
    document: sendMediaObject({ caption: true, filename: true }),
  }),
  audio: z.strictObject({
    ...common,
    type: z.literal('audio'),
    audio: sendMediaObject({ caption: false, filename: false }),
  }),
  sticker: z.strictObject({
    ...common,
    type: z.literal('sticker'),
    sticker: sendMediaObject({ caption: false, filename: false }),
  }),
};
const reactionSendSchema = z.strictObject({
  ...common,
  type: z.literal('reaction'),
  // An empty emoji removes the reaction (Meta's reaction messages).
  reaction: z.strictObject({ message_id: z.string().min(1), emoji: z.string() }),
});

/** Meta's supported media types and their limits (bytes), per upload `type`. */
const MiB = 1024 * 1024;
const UPLOAD_LIMITS: Record<string, { kind: MediaSendType; max: number }> = {
  'image/jpeg': { kind: 'image', max: 5 * MiB },
  'image/png': { kind: 'image', max: 5 * MiB },
  'image/webp': { kind: 'sticker', max: 500 * 1024 },
  'audio/aac': { kind: 'audio', max: 16 * MiB },
  'audio/amr': { kind: 'audio', max: 16 * MiB },
  'audio/mpeg': { kind: 'audio', max: 16 * MiB },
  'audio/mp4': { kind: 'audio', max: 16 * MiB },
  'audio/ogg': { kind: 'audio', max: 16 * MiB },
  'video/mp4': { kind: 'video', max: 16 * MiB },
  'video/3gpp': { kind: 'video', max: 16 * MiB },
  'video/3gp': { kind: 'video', max: 16 * MiB },
  'text/plain': { kind: 'document', max: 100 * MiB },
  'application/pdf': { kind: 'document', max: 100 * MiB },
  'application/msword': { kind: 'document', max: 100 * MiB },
  'application/vnd.ms-excel': { kind: 'document', max: 100 * MiB },
  'application/vnd.ms-powerpoint': { kind: 'document', max: 100 * MiB },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
    kind: 'document',
    max: 100 * MiB,
  },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
    kind: 'document',
    max: 100 * MiB,
  },
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': {
    kind: 'document',
    max: 100 * MiB,
  },
};

/** A multipart/form-data body's parts (what the fake needs of RFC 7578: names, files, bytes). */
function parseMultipart(
  contentType: string | undefined,
  body: Buffer,
): { name: string; fileName?: string; type?: string; value: Buffer }[] | null {
  const m = /^multipart\/form-data;\s*boundary="?([^";]+)"?/i.exec(contentType ?? '');
  if (!m) return null;
  const delimiter = Buffer.from(`--${m[1]}`);
  const parts: { name: string; fileName?: string; type?: string; value: Buffer }[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) return null;
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    at += 2; // CRLF after the delimiter
    const headEnd = body.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return null;
    const head = body.subarray(at, headEnd).toString('utf8');
    const next = body.indexOf(delimiter, headEnd + 4);
    if (next < 0) return null;
    const value = body.subarray(headEnd + 4, next - 2); // CRLF before the delimiter
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) return null;
    const fileName = /filename="([^"]*)"/i.exec(head)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim();
    parts.push({
      name,
      value,
      ...(fileName !== undefined ? { fileName } : {}),
      ...(type !== undefined ? { type } : {}),
    });
    at = next;
  }
}

const DOCUMENTED_SEND_TYPES = new Set(['contacts', 'location']);
const DOCUMENTED_INTERACTIVE_TYPES = new Set([
  'button',
  'call_permission_request',
  'catalog_message',
  'cta_url',
  'flow',
  'location_request_message',
  'product',
  'product_list',
  'carousel',
]);

// ---------------------------------------------------------------------------------------------
// Template management schemas (POST /{waba}/message_templates, POST /{template})

const tplButton = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('QUICK_REPLY'), text: text(25) }),
  z.strictObject({
    type: z.literal('URL'),
    text: text(25),
    url: z.string().min(1).max(2000),
    example: z.array(z.string()).optional(),
  }),
  z.strictObject({
    type: z.literal('PHONE_NUMBER'),
    text: text(25),
    phone_number: z.string().min(1).max(20),
  }),
  z.strictObject({ type: z.literal('COPY_CODE'), example: z.string().min(1).max(15) }),
  z.looseObject({ type: z.literal('OTP'), otp_type: z.enum(['COPY_CODE', 'ONE_TAP', 'ZERO_TAP']) }),
  z.looseObject({ type: z.literal('FLOW'), text: text(25) }),
  z.looseObject({ type: z.literal('MPM'), text: text(25) }),
  z.looseObject({ type: z.literal('CATALOG'), text: text(25) }),
  z.looseObject({ type: z.literal('VOICE_CALL'), text: text(25) }),
]);

const tplComponent = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('HEADER'),
    format: z.enum(['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION']),
    text: text(60).optional(),
    example: z
      .strictObject({
        header_text: z.array(z.string()).optional(),
        header_handle: z.array(z.string()).optional(),
        header_text_named_params: z
          .array(z.strictObject({ param_name: z.string(), example: z.string() }))
          .optional(),
      })
      .optional(),
  }),
  z.strictObject({
    type: z.literal('BODY'),
    text: text(1024).optional(),
    add_security_recommendation: z.boolean().optional(),
    example: z
      .strictObject({
        body_text: z.array(z.array(z.string())).optional(),
        body_text_named_params: z
          .array(z.strictObject({ param_name: z.string(), example: z.string() }))
          .optional(),
      })
      .optional(),
  }),
  z.strictObject({
    type: z.literal('FOOTER'),
    text: text(60).optional(),
    code_expiration_minutes: z.number().int().min(1).max(90).optional(),
  }),
  z.strictObject({ type: z.literal('BUTTONS'), buttons: z.array(tplButton).min(1).max(10) }),
]);

const tplComponents = z.array(tplComponent).min(1);

const tplCreateSchema = z.strictObject({
  name: z
    .string()
    .max(512)
    .regex(/^[a-z0-9_]+$/, { message: 'must hold only lowercase letters, digits and underscores' }),
  language: z.string().min(2),
  category: z.enum(['MARKETING', 'UTILITY', 'AUTHENTICATION']),
  components: tplComponents,
  allow_category_change: z.boolean().optional(),
  parameter_format: z.enum(['POSITIONAL', 'NAMED']).optional(),
  message_send_ttl_seconds: z.number().int().optional(),
  sub_category: z.string().optional(),
});

const tplEditSchema = z.strictObject({
  components: tplComponents.optional(),
  category: z.enum(['MARKETING', 'UTILITY', 'AUTHENTICATION']).optional(),
  message_send_ttl_seconds: z.number().int().optional(),
});

/** Upper-cases `type` of each component (Meta's own examples use both cases). */
function normalizeComponents(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  return v.map((c) =>
    isRecord(c) && typeof c.type === 'string' ? { ...c, type: c.type.toUpperCase() } : c,
  );
}

const POSITIONAL_VAR = /\{\{\s*(\d+)\s*\}\}/g;
const NAMED_VAR = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g;

function placeholders(textValue: unknown, format: 'POSITIONAL' | 'NAMED'): string[] {
  if (typeof textValue !== 'string') return [];
  const re = format === 'NAMED' ? NAMED_VAR : POSITIONAL_VAR;
  return [...new Set([...textValue.matchAll(re)].map((m) => m[1] ?? ''))];
}

function componentOf(
  components: Record<string, unknown>[],
  type: string,
): Record<string, unknown> | undefined {
  return components.find((c) => String(c.type).toUpperCase() === type);
}

/** Semantic checks Meta applies to template components; a message for the user, or null. */
function checkTemplateComponents(
  components: Record<string, unknown>[],
  category: string,
  format: 'POSITIONAL' | 'NAMED',
): string | null {
  for (const type of ['HEADER', 'BODY', 'FOOTER', 'BUTTONS']) {
    if (components.filter((c) => c.type === type).length > 1)
      return `A template can have only one ${type} component.`;
  }
  const body = componentOf(components, 'BODY');
  if (!body) return 'A template needs a BODY component.';
  if (category !== 'AUTHENTICATION' && typeof body.text !== 'string')
    return 'The BODY component needs text.';
  const header = componentOf(components, 'HEADER');
  if (header && header.format === 'TEXT') {
    if (typeof header.text !== 'string') return 'A TEXT header needs text.';
    if (placeholders(header.text, format).length > 1) return 'A TEXT header can have one variable.';
  }
  for (const [label, t] of [
    ['body', body.text],
    ['header', header?.text],
  ] as const) {
    if (typeof t !== 'string' || format !== 'POSITIONAL') continue;
    const nums = placeholders(t, format)
      .map(Number)
      .sort((a, b) => a - b);
    if (nums.some((n, i) => n !== i + 1))
      return `The ${label} variables must be numbered in sequence from {{1}}.`;
  }
  const bodyVars = placeholders(body.text, format);
  if (bodyVars.length > 0) {
    const example = isRecord(body.example) ? body.example : undefined;
    if (format === 'NAMED') {
      const named = Array.isArray(example?.body_text_named_params)
        ? (example.body_text_named_params as Array<{ param_name?: string }>)
        : [];
      const names = new Set(named.map((p) => p.param_name));
      if (!bodyVars.every((v) => names.has(v)))
        return 'The BODY has variables: example.body_text_named_params must give a sample for each.';
    } else {
      const rows = Array.isArray(example?.body_text) ? (example.body_text as unknown[][]) : [];
      if (!Array.isArray(rows[0]) || rows[0].length !== bodyVars.length)
        return `The BODY has ${bodyVars.length} variable(s): example.body_text must give ${bodyVars.length} sample value(s).`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Payload builders (pure: they depend only on the context given)

export interface BuilderContext {
  wabaId: string;
  phoneNumberId: string;
  /** Digits of the business number, as webhooks carry it. */
  displayPhoneNumber: string;
  now?: () => number;
}

const UNSUPPORTED_BODIES: Record<UnsupportedInboundType, Record<string, unknown>> = {
  sticker: {
    sticker: {
      mime_type: 'image/webp',
      sha256: 'N2aSXCgl0d5ndzv5x0tNnm3kvyk0N1Ya+NpvWg37mHU=',
      id: '1003383421387256',
      animated: false,
    },
  },
  location: {
    location: {
      address: '101 Forest Ave, Palo Alto, CA 94301',
      latitude: 37.44221496582,
      longitude: -122.16165924072,
      name: 'Philz Coffee',
      url: 'https://philzcoffee.com/',
    },
  },
  image: {
    image: {
      caption: 'A photo',
      mime_type: 'image/jpeg',
      sha256: 'SfInY0gGKTsJlUWbwxC1k+FAD0FZHvzwfpvO0zX0GUI=',
      id: '1003383421387257',
    },
  },
  audio: {
    audio: {
      mime_type: 'audio/ogg; codecs=opus',
      sha256: 'PLqEo2yTPMW3h3Y0J9y0xAF8lUWjy0tx6zTTyN0FtVo=',
      id: '1003383421387258',
      voice: true,
    },
  },
  video: {
    video: {
      mime_type: 'video/mp4',
      sha256: 'K2dOCYtgl4qZh0Dw3cQtTuWqWl8yGmOaUkBzbBpXymY=',
      id: '1003383421387259',
    },
  },
  document: {
    document: {
      filename: 'receipt.pdf',
      mime_type: 'application/pdf',
      sha256: 'Dc9ZbVYQ2Bq0bVG6+0X2MmtX4t8MbdQ7Q5yQYbn3g7s=',
      id: '1003383421387260',
    },
  },
  contacts: {
    contacts: [
      {
        name: { formatted_name: 'Barbara Johnson', first_name: 'Barbara' },
        phones: [{ phone: '+1 (650) 555-1234', type: 'MOBILE', wa_id: '16505551234' }],
      },
    ],
  },
  reaction: { reaction: { message_id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI=', emoji: '\u{1F44D}' } },
  unsupported: {
    errors: [
      {
        code: 131051,
        title: 'Message type unknown',
        message: 'Message type unknown',
        error_data: { details: 'Message type is currently not supported.' },
      },
    ],
  },
};

export function createPayloadBuilders(ctx: BuilderContext): PayloadBuilders {
  const now = ctx.now ?? Date.now;
  const businessDigits = () => digitsOf(ctx.displayPhoneNumber);
  const metadata = () => ({
    display_phone_number: businessDigits(),
    phone_number_id: ctx.phoneNumberId,
  });
  const ts = (t?: number | string) => (t === undefined ? unixSeconds(now()) : String(t));
  const inboundId = () => newWamid(String(Date.now()));

  const single = (
    field: string,
    value: Record<string, unknown>,
    time?: number,
  ): WebhookPayload => ({
    object: 'whatsapp_business_account',
    entry: [
      { id: ctx.wabaId, ...(time === undefined ? {} : { time }), changes: [{ value, field }] },
    ],
  });

  const inbound = (
    from: string,
    name: string | undefined,
    message: Record<string, unknown>,
  ): WebhookPayload => {
    const waId = digitsOf(from);
    return single('messages', {
      messaging_product: 'whatsapp',
      metadata: metadata(),
      contacts: [{ profile: { name: name ?? 'Test Customer' }, wa_id: waId }],
      messages: [{ from: waId, ...message }],
    });
  };

  const statusObject = (s: StatusSpec): Record<string, unknown> => {
    const out: Record<string, unknown> = {
      id: s.wamid,
      status: s.status,
      timestamp: ts(s.timestamp),
      // A username user's statuses name their BSUID (`recipient_user_id`) instead of a phone.
      ...(bsuidSchema.safeParse(s.recipient).success
        ? { recipient_user_id: s.recipient }
        : { recipient_id: digitsOf(s.recipient) }),
    };
    if (s.bizOpaqueCallbackData !== undefined)
      out.biz_opaque_callback_data = s.bizOpaqueCallbackData;
    if (s.conversation) out.conversation = s.conversation;
    if (s.pricing) out.pricing = s.pricing;
    const errors =
      s.errors ?? (s.status === 'failed' ? [{ code: 131026 } satisfies StatusError] : undefined);
    if (errors) out.errors = errors.map(statusError);
    return out;
  };

  return {
    inboundText: (o) =>
      inbound(o.from, o.name, {
        id: o.id ?? inboundId(),
        timestamp: ts(o.timestamp),
        type: 'text',
        text: { body: o.text },
      }),

    inboundListReply: (o) =>
      inbound(o.from, o.name, {
        context: { from: businessDigits(), id: o.contextId },
        id: o.id ?? inboundId(),
        timestamp: ts(o.timestamp),
        type: 'interactive',
        interactive: {
          type: 'list_reply',
          list_reply: {
            id: o.listRowId,
            title: o.title,
            ...(o.description === undefined ? {} : { description: o.description }),
          },
        },
      }),

    inboundUnsupported: (o) =>
      inbound(o.from, o.name, {
        id: o.id ?? inboundId(),
        timestamp: ts(o.timestamp),
        type: o.type,
        ...structuredClone(UNSUPPORTED_BODIES[o.type]),
      }),

    status: (s) =>
      single('messages', {
        messaging_product: 'whatsapp',
        metadata: metadata(),
        statuses: (Array.isArray(s) ? s : [s]).map(statusObject),
      }),

    templateStatusUpdate: (o) => {
      const value: Record<string, unknown> = {
        event: o.event,
        message_template_id: Number(o.templateId),
        message_template_name: o.name,
        message_template_language: o.language,
        reason: o.reason === undefined ? 'NONE' : o.reason,
      };
      if (o.category !== undefined) value.message_template_category = o.category;
      if (o.disableInfo) value.disable_info = o.disableInfo;
      if (o.otherInfo) value.other_info = o.otherInfo;
      if (o.rejectionInfo) value.rejection_info = o.rejectionInfo;
      return single('message_template_status_update', value, o.time ?? Math.floor(now() / 1000));
    },

    envelope: (items) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: ctx.wabaId,
          changes: items.flatMap((i) => ('entry' in i ? i.entry.flatMap((e) => e.changes) : [i])),
        },
      ],
    }),

    mergeEntries: (...payloads) => ({
      object: 'whatsapp_business_account',
      entry: payloads.flatMap((p) => p.entry),
    }),
  };
}

function statusError(e: StatusError): Record<string, unknown> {
  const known = KNOWN_CODES[e.code];
  const title = e.title ?? known?.title ?? 'Error';
  return {
    code: e.code,
    title,
    message: e.message ?? title,
    error_data: e.error_data ?? { details: known?.details ?? title },
    href: e.href ?? ERROR_CODES_HREF,
  };
}

// ---------------------------------------------------------------------------------------------
// The server

interface Trap {
  kind: 'hang' | 'drop';
  on: 'send' | 'any';
  ms?: number;
  processed?: boolean;
}

interface PendingFail extends FailSpec {
  left: number;
}

const PHONE_FIELDS = new Set([
  'id',
  'display_phone_number',
  'verified_name',
  'quality_rating',
  'messaging_limit_tier',
  'whatsapp_business_manager_messaging_limit',
  'throughput',
  'code_verification_status',
  'name_status',
  'status',
  'platform_type',
  'account_mode',
  'is_official_business_account',
]);
const PHONE_DEFAULT_FIELDS = ['id', 'display_phone_number', 'verified_name', 'quality_rating'];

const TEMPLATE_FIELDS = new Set([
  'id',
  'name',
  'status',
  'language',
  'category',
  'components',
  'rejected_reason',
  'parameter_format',
  'previous_category',
  'quality_score',
]);

const SENDABLE = new Set(['APPROVED', 'FLAGGED', 'LOCKED']);

export async function startFakeGraph(opts: FakeGraphOptions = {}): Promise<FakeGraph> {
  const now = opts.now ?? Date.now;
  const version = opts.version ?? 'v21.0';
  const phoneNumberId = opts.phoneNumberId ?? '106540352242922';
  const wabaId = opts.wabaId ?? '102290129340398';
  const accessToken = opts.accessToken ?? 'EAAFakeGraphTestToken';
  const appSecret = opts.appSecret ?? 'fake-graph-app-secret';
  const phone: PhoneState = {
    displayPhoneNumber: opts.displayPhoneNumber ?? '+1 555-078-3881',
    verifiedName: opts.verifiedName ?? 'Parley Test Business',
    qualityRating: opts.qualityRating ?? 'GREEN',
    tier: opts.tier ?? 'TIER_1K',
    throughputLevel: opts.throughputLevel ?? 'STANDARD',
  };
  let webhookUrl: string | null = opts.webhookUrl ?? null;
  const autoDelay =
    opts.autoStatuses === undefined || opts.autoStatuses === false
      ? null
      : opts.autoStatuses === true
        ? 20
        : Math.max(0, opts.autoStatuses.delayMs);

  const requests: RecordedRequest[] = [];
  const sent: SentMessage[] = [];
  const media = new Map<string, FakeMedia>();
  const templates: FakeTemplate[] = [];
  const webhooks: DeliveredWebhook[] = [];
  const windows = new Map<string, number>();
  const recipientFailures = new Map<string, Omit<FailSpec, 'times' | 'on'>>();
  const fails: PendingFail[] = [];
  const traps: Trap[] = [];
  const timers = new Map<NodeJS.Timeout, () => void>();
  const pending = new Set<Promise<void>>();
  const hung = new Set<http.ServerResponse>();
  let templateSeq = 0;
  let closed: Promise<void> | null = null;

  const builders = createPayloadBuilders({
    wabaId,
    phoneNumberId,
    get displayPhoneNumber() {
      return phone.displayPhoneNumber;
    },
    now,
  });

  // --- windows ---------------------------------------------------------------------------

  // A window is keyed by the phone's digits, or by the user's BSUID when that is all we have.
  const windowKey = (recipient: string) =>
    bsuidSchema.safeParse(recipient).success ? recipient : digitsOf(recipient);
  const openWindow = (recipient: string, at = now()) => {
    const key = windowKey(recipient);
    windows.set(key, Math.max(windows.get(key) ?? 0, at + DAY_MS));
  };
  const hasOpenWindow = (recipient: string) => (windows.get(windowKey(recipient)) ?? 0) > now();

  /** Any inbound message in a payload opens its sender's window (Meta's rule). */
  const openWindowsFrom = (payload: unknown) => {
    if (!isRecord(payload) || !Array.isArray(payload.entry)) return;
    for (const entry of payload.entry) {
      if (!isRecord(entry) || !Array.isArray(entry.changes)) continue;
      for (const change of entry.changes) {
        if (!isRecord(change) || !isRecord(change.value)) continue;
        const messages = change.value.messages;
        if (!Array.isArray(messages)) continue;
        for (const m of messages) {
          if (!isRecord(m)) continue;
          const t = Number(m.timestamp);
          const at = Number.isFinite(t) && t > 0 ? t * 1000 : now();
          if (typeof m.from === 'string') openWindow(m.from, at);
          if (typeof m.from_user_id === 'string') openWindow(m.from_user_id, at);
        }
      }
    }
  };

  // --- scheduling --------------------------------------------------------------------------

  const later = (ms: number, fn: () => Promise<unknown> | void) => {
    let done!: () => void;
    const p = new Promise<void>((resolve) => (done = resolve));
    pending.add(p);
    const finish = () => {
      pending.delete(p);
      done();
    };
    const t = setTimeout(() => {
      timers.delete(t);
      Promise.resolve()
        .then(fn)
        .catch(() => {})
        .finally(finish);
    }, ms);
    timers.set(t, finish);
  };

  // --- webhooks ----------------------------------------------------------------------------

  const post = async (payload: unknown, o: PostOptions = {}): Promise<number> => {
    if (!webhookUrl) throw new Error('fake-graph: no webhook URL set (setWebhookUrl)');
    const url = webhookUrl;
    const raw = o.rawBody ?? metaJson(payload);
    openWindowsFrom(o.rawBody === undefined ? payload : tryParse(raw));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'facebookexternalua',
    };
    const signature = o.signature ?? 'valid';
    if (signature !== 'none') {
      const secret = signature === 'valid' ? appSecret : appSecret + '-wrong';
      headers['x-hub-signature-256'] = signatureFor(secret, raw);
      headers['x-hub-signature'] = 'sha1=' + createHmac('sha1', secret).update(raw).digest('hex');
    }
    const record: DeliveredWebhook = {
      url,
      rawBody: raw,
      payload: tryParse(raw),
      headers,
      status: 0,
      at: now(),
    };
    webhooks.push(record);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: raw,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      record.status = res.status;
      return res.status;
    } catch (e) {
      record.error = e instanceof Error ? e.message : String(e);
      throw e;
    }
  };

  const postQuietly = async (payload: WebhookPayload) => {
    if (!webhookUrl) return;
    await post(payload).catch(() => 0);
  };

  const scheduleStatuses = (m: SentMessage, template: FakeTemplate | undefined) => {
    if (autoDelay === null) return;
    const category = template ? template.category.toLowerCase() : 'service';
    const free = !template || (category === 'utility' && hasOpenWindow(m.waId));
    const conversationId = randomBytes(16).toString('hex');
    const pricing = {
      billable: !free,
      pricing_model: 'PMP',
      type: free ? 'free_customer_service' : 'regular',
      category,
    };
    const base = {
      wamid: m.wamid,
      recipient: m.waId,
      bizOpaqueCallbackData: m.bizOpaqueCallbackData,
    };
    later(autoDelay, () =>
      postQuietly(
        builders.status({
          ...base,
          status: 'sent',
          conversation: {
            id: conversationId,
            expiration_timestamp: unixSeconds(now() + DAY_MS),
            origin: { type: category },
          },
          pricing,
        }),
      ),
    );
    later(autoDelay * 2, () =>
      postQuietly(
        builders.status({
          ...base,
          status: 'delivered',
          conversation: { id: conversationId, origin: { type: category } },
          pricing,
        }),
      ),
    );
    later(autoDelay * 3, () => postQuietly(builders.status({ ...base, status: 'read' })));
  };

  const scheduleFailure = (m: SentMessage, spec: FailSpec) => {
    later(autoDelay ?? 0, () =>
      postQuietly(
        builders.status({
          wamid: m.wamid,
          recipient: m.waId,
          status: 'failed',
          bizOpaqueCallbackData: m.bizOpaqueCallbackData,
          errors: [
            {
              code: spec.code,
              ...(spec.message === undefined ? {} : { title: spec.message, message: spec.message }),
              ...(spec.details === undefined ? {} : { error_data: { details: spec.details } }),
            },
          ],
        }),
      ),
    );
  };

  // --- templates ---------------------------------------------------------------------------

  const newTemplateId = () => String(1_000_000_000_000_000 + ++templateSeq * 7919);

  const addTemplate: FakeGraph['addTemplate'] = (t) => {
    const tpl: FakeTemplate = {
      id: t.id ?? newTemplateId(),
      name: t.name,
      language: t.language,
      category: t.category,
      status: t.status,
      components: (normalizeComponents(t.components) as Record<string, unknown>[]) ?? [],
      parameterFormat: t.parameterFormat ?? 'POSITIONAL',
      ...(t.rejectedReason === undefined ? {} : { rejectedReason: t.rejectedReason }),
    };
    templates.push(tpl);
    return tpl;
  };

  const templateView = (t: FakeTemplate, fields: string[] | null): Record<string, unknown> => {
    const all: Record<string, unknown> = {
      id: t.id,
      name: t.name,
      status: t.status,
      language: t.language,
      category: t.category,
      components: structuredClone(t.components),
      parameter_format: t.parameterFormat,
      rejected_reason: t.rejectedReason ?? 'NONE',
      quality_score: { score: 'UNKNOWN' },
    };
    if (fields === null) {
      const out: Record<string, unknown> = {
        name: t.name,
        parameter_format: t.parameterFormat,
        components: all.components,
        language: t.language,
        status: t.status,
        category: t.category,
        id: t.id,
      };
      if (t.rejectedReason !== undefined) out.rejected_reason = t.rejectedReason;
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const f of fields) if (f in all) out[f] = all[f];
    out.id = t.id;
    return out;
  };

  const setTemplateStatus: FakeGraph['setTemplateStatus'] = async (
    name,
    language,
    status,
    reason,
  ) => {
    const tpl = templates.find((t) => t.name === name && t.language === language);
    if (!tpl) throw new Error(`fake-graph: no template ${name} (${language})`);
    tpl.status = status === 'REINSTATED' ? 'APPROVED' : status;
    if (status === 'REJECTED') tpl.rejectedReason = reason ?? 'INVALID_FORMAT';
    else delete tpl.rejectedReason;
    if (!webhookUrl) return undefined;
    const payload = builders.templateStatusUpdate({
      event: status,
      templateId: tpl.id,
      name: tpl.name,
      language: tpl.language,
      category: tpl.category,
      reason: status === 'REJECTED' ? (reason ?? 'INVALID_FORMAT') : (reason ?? 'NONE'),
      ...(status === 'DISABLED' ? { disableInfo: { disable_date: unixSeconds(now()) } } : {}),
      ...(status === 'PAUSED'
        ? {
            otherInfo: {
              title: 'FIRST_PAUSE',
              description:
                'Your WhatsApp message template has been paused for 3 hours due to low quality.',
            },
          }
        : {}),
    });
    return post(payload);
  };

  // --- request handling --------------------------------------------------------------------

  const takeFail = (isSend: boolean): PendingFail | undefined => {
    const i = fails.findIndex((f) => (f.on ?? 'send') === 'any' || isSend);
    const f = fails[i];
    if (!f) return undefined;
    if (--f.left <= 0) fails.splice(i, 1);
    return f;
  };

  const failAnswer = (f: Omit<FailSpec, 'times' | 'on'>): Answer =>
    graphError({
      code: f.code,
      httpStatus: f.httpStatus,
      message: f.message,
      details: f.details,
      subcode: f.error_subcode ?? (f.code === 130429 ? 2494055 : undefined),
      messaging: f.code !== 190 && f.code !== 1 && f.code !== 2,
    });

  const handleSend = (body: unknown): { answer: Answer; after?: () => void } => {
    if (!isRecord(body)) return { answer: invalidParam('The request body must be a JSON object.') };
    const type = body.type ?? ('text' in body ? 'text' : undefined);
    if (type === undefined) return { answer: invalidParam('The parameter type is required.') };
    let schema: z.ZodType<Record<string, unknown>>;
    if (type === 'text') schema = textSendSchema;
    else if (type === 'template') schema = templateSendSchema;
    else if (type === 'interactive') {
      const it = isRecord(body.interactive) ? body.interactive.type : undefined;
      if (typeof it === 'string' && it !== 'list' && DOCUMENTED_INTERACTIVE_TYPES.has(it))
        return {
          answer: invalidParam(
            `fake-graph does not model interactive messages of type '${it}' (only 'list').`,
          ),
        };
      schema = interactiveSendSchema;
    } else if (typeof type === 'string' && type in mediaSendSchemas) {
      schema = mediaSendSchemas[type as MediaSendType];
    } else if (type === 'reaction') schema = reactionSendSchema;
    else if (typeof type === 'string' && DOCUMENTED_SEND_TYPES.has(type))
      return {
        answer: invalidParam(
          `fake-graph does not model messages of type '${type}' (only text, template, interactive, media, reaction).`,
        ),
      };
    else
      return {
        answer: invalidParam(
          'Param type must be one of {audio, contacts, document, image, interactive, location, reaction, sticker, template, text, video}.',
        ),
      };

    const parsed = schema.safeParse(body);
    if (!parsed.success) return { answer: invalidParam(describeIssues(parsed.error, body)) };
    const msg = parsed.data;

    if (type === 'interactive') {
      const problem = checkList(msg.interactive as z.infer<typeof listInteractive>);
      if (problem)
        return { answer: graphError({ code: 131009, details: problem, messaging: true }) };
    }

    if ((msg.to === undefined) === (msg.recipient === undefined))
      return { answer: invalidParam('Exactly one of to or recipient must be set.') };
    if (typeof type === 'string' && type in mediaSendSchemas) {
      // Sent by the id of an upload of this number (Meta: 131053 for media it cannot use).
      const mediaId = (msg[type] as { id: string }).id;
      const held = media.get(mediaId);
      if (!held || held.origin !== 'upload')
        return {
          answer: graphError({
            code: 131053,
            details: `Media id ${mediaId} is not an upload of this phone number.`,
            messaging: true,
          }),
        };
      if (UPLOAD_LIMITS[held.mimeType]?.kind !== type && type !== 'document')
        return {
          answer: graphError({
            code: 131053,
            details: `Media id ${mediaId} is ${held.mimeType}, not a valid ${type}.`,
            messaging: true,
          }),
        };
    }
    const to = (msg.to ?? msg.recipient) as string;
    const waId = msg.to !== undefined ? digitsOf(to) : to;

    const programmed = takeFail(true);
    if (programmed && !programmed.async) return { answer: failAnswer(programmed) };

    if (waId === digitsOf(phone.displayPhoneNumber))
      return { answer: graphError({ code: 131021, messaging: true }) };
    const rule = recipientFailures.get(waId);
    if (rule) return { answer: failAnswer(rule) };

    let template: FakeTemplate | undefined;
    if (type === 'template') {
      const r = checkTemplateSend(msg.template as z.infer<typeof templateSendSchema>['template']);
      if ('answer' in r) return { answer: r.answer };
      template = r.template;
    } else if (!hasOpenWindow(waId)) {
      return { answer: graphError({ code: 131047, messaging: true }) };
    }

    const wamid = newWamid(waId);
    const record: SentMessage = {
      wamid,
      to,
      waId,
      type: type as SentMessage['type'],
      body,
      at: now(),
      ...(typeof msg.biz_opaque_callback_data === 'string'
        ? { bizOpaqueCallbackData: msg.biz_opaque_callback_data }
        : {}),
    };
    sent.push(record);
    const answer: Answer = {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: to, wa_id: waId }],
        messages: [type === 'template' ? { id: wamid, message_status: 'accepted' } : { id: wamid }],
      },
    };
    const after = () => {
      if (programmed?.async) scheduleFailure(record, programmed);
      else scheduleStatuses(record, template);
    };
    return { answer, after };
  };

  function checkList(it: z.infer<typeof listInteractive>): string | null {
    const sections = it.action.sections;
    if (sections.length > 10) return 'Total section count exceed max allowed count: 10';
    const rows = sections.reduce((n, s) => n + s.rows.length, 0);
    if (rows > 10) return 'Total row count exceed max allowed count: 10';
    if (sections.length > 1 && sections.some((s) => s.title === undefined))
      return 'Section title is required when a list message has more than one section.';
    const ids = sections.flatMap((s) => s.rows.map((r) => r.id));
    if (new Set(ids).size !== ids.length) return 'Row ids must be unique across sections.';
    return null;
  }

  function checkTemplateSend(
    t: z.infer<typeof templateSendSchema>['template'],
  ): { template: FakeTemplate } | { answer: Answer } {
    const code = t.language.code;
    const tpl = templates.find((x) => x.name === t.name && x.language === code);
    const missing = () =>
      graphError({
        code: 132001,
        details: `template name (${t.name}) does not exist in ${code}`,
        messaging: true,
      });
    if (!tpl) return { answer: missing() };
    if (tpl.status === 'PAUSED') return { answer: graphError({ code: 132015, messaging: true }) };
    if (tpl.status === 'DISABLED') return { answer: graphError({ code: 132016, messaging: true }) };
    if (!SENDABLE.has(tpl.status)) return { answer: missing() };

    const sendComponents = t.components ?? [];
    const given = (type: 'header' | 'body') =>
      sendComponents.filter((c) => c.type === type).flatMap((c) => c.parameters ?? []);

    const body = componentOf(tpl.components, 'BODY');
    const header = componentOf(tpl.components, 'HEADER');
    // A media header (IMAGE, VIDEO, DOCUMENT, LOCATION) takes one parameter of that kind.
    const headerVars = !header
      ? []
      : header.format === 'TEXT'
        ? placeholders(header.text, tpl.parameterFormat)
        : [String(header.format).toLowerCase()];
    // An authentication template's body has no text: it takes the one-time code.
    const bodyVars =
      body && typeof body.text !== 'string' && tpl.category === 'AUTHENTICATION'
        ? ['code']
        : placeholders(body?.text, tpl.parameterFormat);
    const expected: Array<['header' | 'body', string[]]> = [
      ['header', headerVars],
      ['body', bodyVars],
    ];
    for (const [part, vars] of expected) {
      const params = given(part);
      if (params.length !== vars.length)
        return {
          answer: graphError({
            code: 132000,
            details: `${part}: number of localizable_params (${params.length}) does not match the expected number of params (${vars.length})`,
            messaging: true,
          }),
        };
      for (const p of params) {
        if (p.type === 'text' && p.text === '')
          return {
            answer: graphError({
              code: 131008,
              details: `${part}: Parameter of type text is missing text value`,
              messaging: true,
            }),
          };
      }
      if (tpl.parameterFormat === 'NAMED' && part === 'body') {
        const names = params.map((p) => ('parameter_name' in p ? p.parameter_name : undefined));
        const unknown = names.filter((n) => n === undefined || !vars.includes(n));
        if (unknown.length > 0)
          return {
            answer: graphError({
              code: 132000,
              details: `${part}: named parameters must name each of {${vars.join(', ')}}`,
              messaging: true,
            }),
          };
      }
    }
    const buttons = componentOf(tpl.components, 'BUTTONS');
    const list = Array.isArray(buttons?.buttons)
      ? (buttons.buttons as Record<string, unknown>[])
      : [];
    for (const [i, b] of list.entries()) {
      // A copy-code button takes the code to copy at send time (Meta's sending guide).
      if (b.type === 'COPY_CODE') {
        const has = sendComponents.some(
          (c) =>
            c.type === 'button' &&
            c.sub_type === 'copy_code' &&
            Number(c.index) === i &&
            (c.parameters ?? []).some((p) => p.type === 'coupon_code'),
        );
        if (!has)
          return {
            answer: graphError({
              code: 131008,
              details: `buttons: Button at index ${i} of type Copy code requires a coupon_code parameter`,
              messaging: true,
            }),
          };
        continue;
      }
      if (b.type !== 'URL' || typeof b.url !== 'string' || !/\{\{/.test(b.url)) continue;
      const has = sendComponents.some(
        (c) =>
          c.type === 'button' &&
          c.sub_type === 'url' &&
          Number(c.index) === i &&
          (c.parameters ?? []).length > 0,
      );
      if (!has)
        return {
          answer: graphError({
            code: 131008,
            details: `buttons: Button at index ${i} of type Url requires a parameter`,
            messaging: true,
          }),
        };
    }
    return { template: tpl };
  }

  const queryFields = (q: Record<string, string>): string[] | null =>
    q.fields === undefined
      ? null
      : q.fields
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean)
          .map((f) => f.replace(/\{.*$/, '').replace(/\..*$/, ''));

  const handlePhone = (q: Record<string, string>): Answer => {
    const fields = queryFields(q) ?? PHONE_DEFAULT_FIELDS;
    const unknown = fields.find((f) => !PHONE_FIELDS.has(f));
    if (unknown)
      return graphError({
        code: 100,
        message: `(#100) Tried accessing nonexisting field (${unknown}) on node type (WhatsAppBusinessPhoneNumber)`,
      });
    const all: Record<string, unknown> = {
      id: phoneNumberId,
      display_phone_number: phone.displayPhoneNumber,
      verified_name: phone.verifiedName,
      quality_rating: phone.qualityRating,
      messaging_limit_tier: phone.tier,
      whatsapp_business_manager_messaging_limit: phone.tier,
      throughput: { level: phone.throughputLevel },
      code_verification_status: 'VERIFIED',
      name_status: 'APPROVED',
      status: 'CONNECTED',
      platform_type: 'CLOUD_API',
      account_mode: 'LIVE',
      is_official_business_account: false,
    };
    const out: Record<string, unknown> = {};
    for (const f of fields) out[f] = all[f];
    out.id = phoneNumberId;
    return { status: 200, body: out };
  };

  const cursor = (i: number) => Buffer.from(`fake:${i}`).toString('base64url');
  const uncursor = (c: string | undefined) => {
    if (c === undefined) return undefined;
    const m = /^fake:(\d+)$/.exec(Buffer.from(c, 'base64url').toString());
    return m ? Number(m[1]) : undefined;
  };

  const handleTemplateList = (q: Record<string, string>, base: string): Answer => {
    const fields = queryFields(q);
    const unknownField = fields?.find((f) => !TEMPLATE_FIELDS.has(f));
    if (unknownField)
      return graphError({
        code: 100,
        message: `(#100) Tried accessing nonexisting field (${unknownField}) on node type (WhatsAppMessageTemplate)`,
      });
    const limit = q.limit === undefined ? 25 : Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1)
      return graphError({ code: 100, message: '(#100) Param limit must be a positive integer' });
    const statuses = q.status?.split(',').map((s) => s.trim().toUpperCase());
    const matching = templates.filter(
      (t) =>
        (q.name === undefined || t.name.includes(q.name)) &&
        (q.language === undefined || t.language === q.language) &&
        (q.category === undefined || t.category === q.category.toUpperCase()) &&
        (statuses === undefined || statuses.includes(t.status)),
    );
    let start = 0;
    if (q.after !== undefined) {
      const i = uncursor(q.after);
      if (i === undefined) return graphError({ code: 100, message: '(#100) Invalid cursor' });
      start = i + 1;
    } else if (q.before !== undefined) {
      const i = uncursor(q.before);
      if (i === undefined) return graphError({ code: 100, message: '(#100) Invalid cursor' });
      start = Math.max(0, i - limit);
    }
    const end = q.before !== undefined ? (uncursor(q.before) ?? 0) : start + limit;
    const page = matching.slice(start, end);
    const body: Record<string, unknown> = { data: page.map((t) => templateView(t, fields)) };
    if (page.length > 0) {
      const paging: Record<string, unknown> = {
        cursors: { before: cursor(start), after: cursor(start + page.length - 1) },
      };
      const link = (key: 'after' | 'before', value: string) => {
        const u = new URL(base);
        for (const [k, v] of Object.entries(q))
          if (k !== 'after' && k !== 'before') u.searchParams.set(k, v);
        u.searchParams.set('limit', String(limit));
        u.searchParams.set(key, value);
        return u.toString();
      };
      if (start + page.length < matching.length)
        paging.next = link('after', cursor(start + page.length - 1));
      if (start > 0) paging.previous = link('before', cursor(start));
      body.paging = paging;
    }
    return { status: 200, body };
  };

  const handleTemplateCreate = (body: unknown): Answer => {
    if (!isRecord(body))
      return graphError({ code: 100, message: '(#100) The request body must be a JSON object' });
    const input = { ...body, components: normalizeComponents(body.components) };
    const parsed = tplCreateSchema.safeParse(input);
    if (!parsed.success)
      return templateError('Invalid message template', describeIssues(parsed.error, input));
    const t = parsed.data;
    const format = t.parameter_format ?? 'POSITIONAL';
    const problem = checkTemplateComponents(
      t.components as Record<string, unknown>[],
      t.category,
      format,
    );
    if (problem) return templateError('Invalid message template', problem);
    if (templates.some((x) => x.name === t.name && x.language === t.language))
      return templateError(
        'Content in This Language Already Exists',
        `There is already ${t.language} content for this template. You can create a new template and try again.`,
        2388024,
      );
    const tpl = addTemplate({
      name: t.name,
      language: t.language,
      category: t.category,
      status: 'PENDING',
      components: t.components as Record<string, unknown>[],
      parameterFormat: format,
    });
    return { status: 200, body: { id: tpl.id, status: tpl.status, category: tpl.category } };
  };

  const handleTemplateDelete = (q: Record<string, string>): Answer => {
    if (!q.name && !q.hsm_id)
      return graphError({ code: 100, message: '(#100) The parameter name is required' });
    const victims = templates.filter(
      (t) =>
        (q.name === undefined || t.name === q.name) &&
        (q.hsm_id === undefined || t.id === q.hsm_id),
    );
    if (victims.length === 0)
      return templateError(
        'Message Template Not Found',
        `Message template "${q.name ?? q.hsm_id}" could not be found.`,
      );
    for (const v of victims) templates.splice(templates.indexOf(v), 1);
    return { status: 200, body: { success: true } };
  };

  const handleTemplateEdit = (tpl: FakeTemplate, body: unknown): Answer => {
    if (!isRecord(body))
      return graphError({ code: 100, message: '(#100) The request body must be a JSON object' });
    const input =
      body.components === undefined
        ? body
        : { ...body, components: normalizeComponents(body.components) };
    const parsed = tplEditSchema.safeParse(input);
    if (!parsed.success)
      return templateError('Invalid message template', describeIssues(parsed.error, input));
    if (!['APPROVED', 'REJECTED', 'PAUSED'].includes(tpl.status))
      return templateError(
        "Template can't be edited",
        `Only templates with status APPROVED, REJECTED or PAUSED can be edited; this one is ${tpl.status}.`,
      );
    const components =
      (parsed.data.components as Record<string, unknown>[] | undefined) ?? tpl.components;
    const category = parsed.data.category ?? tpl.category;
    const problem = checkTemplateComponents(components, category, tpl.parameterFormat);
    if (problem) return templateError('Invalid message template', problem);
    tpl.components = structuredClone(components);
    tpl.category = category;
    tpl.status = 'PENDING';
    delete tpl.rejectedReason;
    return { status: 200, body: { success: true } };
  };

  // --- media -------------------------------------------------------------------------------

  let mediaSeq = 0;
  const newMediaId = () => String(4_490_709_327_384_033 + ++mediaSeq * 7);
  const hold = (o: {
    bytes: Buffer;
    mimeType: string;
    fileName?: string;
    declaredSize?: number;
    origin: FakeMedia['origin'];
  }): FakeMedia => {
    const digest = createHash('sha256').update(o.bytes).digest();
    const m: FakeMedia = {
      id: newMediaId(),
      bytes: o.bytes,
      mimeType: o.mimeType,
      sha256: digest.toString('hex'),
      sha256Base64: digest.toString('base64'),
      origin: o.origin,
      at: now(),
      ...(o.fileName !== undefined ? { fileName: o.fileName } : {}),
      ...(o.declaredSize !== undefined ? { declaredSize: o.declaredSize } : {}),
    };
    media.set(m.id, m);
    return m;
  };
  /** Download URLs handed out: valid 5 minutes (Meta's rule). */
  const downloadUrls = new Map<string, { mediaId: string; until: number }>();
  const retrieveMedia = (m: FakeMedia) => {
    const hash = randomBytes(12).toString('hex');
    downloadUrls.set(hash, { mediaId: m.id, until: now() + 5 * 60_000 });
    return {
      messaging_product: 'whatsapp',
      url: `${origin}/whatsapp_business/attachments/?mid=${m.id}&ext=${Math.floor(now() / 1000) + 300}&hash=${hash}`,
      mime_type: m.mimeType,
      sha256: m.sha256,
      file_size: m.declaredSize ?? m.bytes.length,
      id: m.id,
    };
  };

  const handleUpload = (rec: RecordedRequest): Answer => {
    const parts = parseMultipart(rec.headers['content-type'], rec.rawBytes);
    if (!parts) return invalidParam('The request must be multipart/form-data.');
    const field = (name: string) => parts.find((p) => p.name === name && p.fileName === undefined);
    if (field('messaging_product')?.value.toString() !== 'whatsapp')
      return invalidParam('The parameter messaging_product is required and must be whatsapp.');
    const file = parts.find((p) => p.name === 'file' && p.fileName !== undefined);
    if (!file) return invalidParam('The parameter file is required.');
    const type = field('type')?.value.toString().trim() ?? file.type;
    if (!type) return invalidParam('The parameter type is required.');
    const mime = type.split(';')[0]!.trim().toLowerCase();
    const rule = UPLOAD_LIMITS[mime];
    if (!rule) return invalidParam(`Param type must be a supported media type; got ${type}.`);
    if (file.value.length === 0) return invalidParam('The file is empty.');
    if (file.value.length > rule.max)
      return graphError({
        code: 131053,
        details: `Media file size ${file.value.length} exceeds the ${rule.max} bytes allowed for ${mime}.`,
        messaging: true,
      });
    const held = hold({
      bytes: file.value,
      mimeType: mime,
      origin: 'upload',
      ...(file.fileName ? { fileName: file.fileName } : {}),
    });
    return { status: 200, body: { id: held.id } };
  };

  const downloadFails: (MediaFailSpec & { left: number })[] = [];
  /** `GET {url}` of a retrieve answer, with the bearer token: the file's bytes. */
  const handleDownload = (req: http.IncomingMessage, res: http.ServerResponse, url: URL): void => {
    if (req.headers.authorization !== `Bearer ${accessToken}`) {
      write(res, graphError({ code: 190, httpStatus: 401 }));
      return;
    }
    const link = downloadUrls.get(url.searchParams.get('hash') ?? '');
    const held = link && link.until > now() ? media.get(link.mediaId) : undefined;
    if (!held || link!.mediaId !== url.searchParams.get('mid')) {
      write(res, { status: 404, body: { error: { message: 'Not found', code: 100 } } });
      return;
    }
    const fail = downloadFails[0];
    if (fail && --fail.left <= 0) downloadFails.shift();
    if (fail?.status !== undefined) {
      write(res, { status: fail.status, body: { error: { message: 'Download failed', code: 1 } } });
      return;
    }
    res.writeHead(200, {
      'content-type': held.mimeType,
      'content-length': String(held.bytes.length),
    });
    if (fail?.truncateAt !== undefined) {
      res.write(held.bytes.subarray(0, fail.truncateAt));
      res.socket?.destroy();
      return;
    }
    res.end(held.bytes);
  };

  const route = (
    rec: RecordedRequest,
    segments: string[],
    base: string,
  ): { answer: Answer; after?: () => void } => {
    const [node, edge, ...more] = segments;
    const method = rec.method;
    if (node === undefined) return { answer: unsupportedRequest(method, '') };
    if (more.length > 0)
      return {
        answer: graphError({ code: 2500, message: `Unknown path components: /${more.join('/')}` }),
      };
    if (node === phoneNumberId) {
      if (edge === 'messages' && method === 'POST') return handleSend(rec.body);
      if (edge === 'media' && method === 'POST') return { answer: handleUpload(rec) };
      if (edge === undefined && method === 'GET') return { answer: handlePhone(rec.query) };
      if (edge === undefined || edge === 'messages')
        return { answer: unsupportedRequest(method, node) };
      return { answer: graphError({ code: 2500, message: `Unknown path components: /${edge}` }) };
    }
    if (node === wabaId) {
      if (edge === 'message_templates') {
        if (method === 'GET') return { answer: handleTemplateList(rec.query, base) };
        if (method === 'POST') return { answer: handleTemplateCreate(rec.body) };
        if (method === 'DELETE') return { answer: handleTemplateDelete(rec.query) };
      }
      if (edge === 'phone_numbers' && method === 'GET')
        return {
          answer: {
            status: 200,
            body: { data: [handlePhone({ fields: [...PHONE_FIELDS].join(',') }).body] },
          },
        };
      if (edge === 'subscribed_apps' && (method === 'POST' || method === 'DELETE'))
        return { answer: { status: 200, body: { success: true } } };
      if (edge === 'subscribed_apps' && method === 'GET')
        return {
          answer: {
            status: 200,
            body: {
              data: [
                {
                  whatsapp_business_api_data: {
                    id: '1',
                    name: 'Parley',
                    link: 'https://example.invalid',
                  },
                },
              ],
            },
          },
        };
      if (edge === undefined && method === 'GET')
        return {
          answer: {
            status: 200,
            body: {
              id: wabaId,
              name: `${phone.verifiedName} WABA`,
              currency: 'USD',
              timezone_id: '1',
              message_template_namespace: 'fake_graph_namespace',
            },
          },
        };
      if (edge === undefined || edge === 'message_templates')
        return { answer: unsupportedRequest(method, node) };
      return { answer: graphError({ code: 2500, message: `Unknown path components: /${edge}` }) };
    }
    const held = media.get(node);
    if (held && edge === undefined) {
      if (rec.query.phone_number_id !== undefined && rec.query.phone_number_id !== phoneNumberId)
        return { answer: unsupportedRequest(method, node) };
      if (method === 'GET') return { answer: { status: 200, body: retrieveMedia(held) } };
      if (method === 'DELETE') {
        media.delete(node);
        return { answer: { status: 200, body: { success: true } } };
      }
    }
    const tpl = templates.find((t) => t.id === node);
    if (tpl && edge === undefined) {
      if (method === 'GET')
        return { answer: { status: 200, body: templateView(tpl, queryFields(rec.query)) } };
      if (method === 'POST') return { answer: handleTemplateEdit(tpl, rec.body) };
    }
    return { answer: unsupportedRequest(method, node) };
  };

  const write = (res: http.ServerResponse, a: Answer) => {
    if (res.destroyed || res.writableEnded) return;
    const payload = JSON.stringify(a.body);
    res.writeHead(a.status, {
      'content-type': 'application/json; charset=UTF-8',
      'facebook-api-version': version,
      'x-fb-trace-id': fbtraceId(),
      'x-fb-request-id': fbtraceId(),
      ...a.headers,
    });
    res.end(payload);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {});
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const raw = bytes.toString('utf8');
      const url = new URL(req.url ?? '/', origin);
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        rawBody: raw,
        rawBytes: bytes,
        body: (req.headers['content-type'] ?? '').startsWith('multipart/')
          ? undefined
          : tryParse(raw),
        at: now(),
      };
      requests.push(rec);
      if (url.pathname === '/whatsapp_business/attachments/' && rec.method === 'GET') {
        handleDownload(req, res, url);
        return;
      }

      const segments = url.pathname.split('/').filter(Boolean);
      const versionSeg = segments.shift();
      const isSend =
        rec.method === 'POST' && segments[0] === phoneNumberId && segments[1] === 'messages';
      const ti = traps.findIndex((t) => t.on === 'any' || isSend);
      const trap = ti >= 0 ? traps.splice(ti, 1)[0] : undefined;
      if (trap?.kind === 'drop' && !trap.processed) {
        req.socket.destroy();
        return;
      }

      let result: { answer: Answer; after?: () => void };
      if (versionSeg === undefined || !/^v\d+\.\d+$/.test(versionSeg)) {
        result = { answer: unsupportedRequest(rec.method, versionSeg ?? '') };
      } else if (req.headers.authorization !== `Bearer ${accessToken}`) {
        result = {
          answer: graphError({
            code: 190,
            message: req.headers.authorization
              ? 'Error validating access token: The session is invalid or the access token could not be decrypted.'
              : 'Error validating access token: An access token is required (Authorization: Bearer).',
          }),
        };
      } else if (
        rec.rawBody !== '' &&
        rec.body === undefined &&
        (req.headers['content-type'] ?? '').includes('json')
      ) {
        result = { answer: invalidParam('The request body is not valid JSON.') };
      } else {
        const anyFail = !isSend && fails.some((f) => f.on === 'any') ? takeFail(false) : undefined;
        result = anyFail
          ? { answer: failAnswer(anyFail) }
          : route(rec, segments, `${origin}/${versionSeg}/${segments.join('/')}`);
      }
      result.after?.();

      if (trap?.kind === 'drop') {
        req.socket.destroy();
        return;
      }
      if (trap?.kind === 'hang') {
        const ms = trap.ms ?? 0;
        hung.add(res);
        res.on('close', () => hung.delete(res));
        if (Number.isFinite(ms) && ms < 2 ** 31 - 1) {
          const t = setTimeout(() => {
            timers.delete(t);
            hung.delete(res);
            write(res, result.answer);
          }, ms);
          timers.set(t, () => {});
        }
        return;
      }
      write(res, result.answer);
    });
  });
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  const fake: FakeGraph = {
    ...builders,
    inboundText: (o) => {
      const p = builders.inboundText(o);
      openWindowsFrom(p);
      return p;
    },
    inboundListReply: (o) => {
      const p = builders.inboundListReply(o);
      openWindowsFrom(p);
      return p;
    },
    inboundUnsupported: (o) => {
      const p = builders.inboundUnsupported(o);
      openWindowsFrom(p);
      return p;
    },
    baseUrl: `${origin}/${version}`,
    origin,
    phoneNumberId,
    wabaId,
    accessToken,
    appSecret,
    phone,
    requests,
    sent,
    templates,
    webhooks,
    addTemplate,
    setTemplateStatus,
    failNext(spec) {
      fails.push({ ...spec, left: Math.max(1, spec.times ?? 1) });
    },
    hangNext(ms, o = {}) {
      traps.push({ kind: 'hang', ms, on: o.on ?? 'send' });
    },
    dropNext(o = {}) {
      traps.push({ kind: 'drop', on: o.on ?? 'send', processed: o.processed ?? false });
    },
    failFor(recipient, spec) {
      if (spec) recipientFailures.set(digitsOf(recipient), spec);
      else recipientFailures.delete(digitsOf(recipient));
    },
    openWindow,
    closeWindow: (recipient) => void windows.delete(digitsOf(recipient)),
    hasOpenWindow,
    setWebhookUrl(url) {
      webhookUrl = url;
    },
    post,
    async verify(
      url,
      verifyToken,
      challenge = String(1_000_000_000 + Math.floor(Math.random() * 1e9)),
    ) {
      const u = new URL(url);
      u.searchParams.set('hub.mode', 'subscribe');
      u.searchParams.set('hub.challenge', challenge);
      u.searchParams.set('hub.verify_token', verifyToken);
      const res = await fetch(u, {
        headers: { 'user-agent': 'facebookplatform/1.0 (+http://developers.facebook.com)' },
        signal: AbortSignal.timeout(10_000),
      });
      return { status: res.status, body: await res.text(), challenge };
    },
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    media,
    addMedia: (o) => hold({ ...o, origin: 'customer' }),
    failNextDownload(spec) {
      downloadFails.push({ ...spec, left: Math.max(1, spec.times ?? 1) });
    },
    close() {
      closed ??= (async () => {
        for (const [t, finish] of timers) {
          clearTimeout(t);
          finish();
        }
        timers.clear();
        for (const res of hung) res.destroy();
        hung.clear();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
  return fake;
}
