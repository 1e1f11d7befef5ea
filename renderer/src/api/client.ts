import type { z } from 'zod';
import type { CampaignStatus, RecipientStatus } from '../../../shared/campaign-rules.ts';
import type {
  Campaign,
  CampaignAudience,
  CampaignProgress,
  CampaignRecipient,
  CampaignTarget,
  CampaignTimeline,
  contactCampaignSchema,
  CreateCampaignBody,
  UpdateCampaignBody,
} from '../../../shared/schemas/campaigns.ts';
import type { Media } from '../../../shared/schemas/media.ts';
import type { inboundBody } from '../../../shared/schemas/simulator.ts';
import type {
  InteractiveList,
  ListContentBody,
  UpdateListBody,
} from '../../../shared/schemas/interactive-lists.ts';
import type {
  RunStatus,
  WorkflowDefinition,
  WorkflowStatus,
} from '../../../shared/workflow-rules.ts';
import type { Workflow, WorkflowRun, WorkflowVersion } from '../../../shared/schemas/workflows.ts';
import type {
  ChannelSettings,
  ChannelSettingsBody,
  WebhookReject,
} from '../../../shared/schemas/channel.ts';
import type {
  CreateEmailCampaignBody,
  EmailAudience,
  EmailAudienceBody,
  EmailCampaign,
  EmailCampaignStatus,
  EmailLinkReport,
  EmailMessage,
  EmailSettings,
  EmailSettingsBody,
  EmailStatus,
  EmailTimeline,
  smtpCheckSchema,
  UpdateEmailCampaignBody,
} from '../../../shared/schemas/email.ts';
/**
 * The one HTTP client of the renderer. The UI reaches the core only through here, exactly as a
 * third-party client would (README "Architecture"): every request carries the session (the desktop
 * preload's token, or in a browser the HttpOnly cookie a sign-in set, which a same-origin fetch
 * sends by itself), the environment (test | live) and, once known, the workspace. A session
 * always acts as its signed-in member (the desktop window as the owner): the UI never names an
 * agent with `X-Parley-Agent`, which is for API keys only.
 */
import type {
  Agent,
  ApiKey,
  CannedReply,
  CannedReplyBody,
  Contact,
  Conversation,
  ConversationStatus,
  CreatedKey,
  CreateKeyBody,
  Environment,
  ColumnMapping,
  Group,
  ImportPreview,
  ImportProgressLine,
  ImportResult,
  CreateTemplateBody,
  EditTemplateBody,
  LedgerEntry,
  Me,
  Message,
  PatchConversationBody,
  PresenceStatus,
  PatchContactBody,
  SimulatorSettings,
  Template,
  TemplateStatus,
  TopupBody,
  UpsertContactBody,
  Wallet,
  Workspace,
} from '../../../shared/schemas/index.ts';
import type {
  acceptInviteBody,
  AuditEntry,
  changePasswordBody,
  CreatedInvite,
  Invite,
  inviteBody,
  InvitePreview,
  loginBody,
  Member,
  Session,
  updateMeBody,
  updateMemberBody,
} from '../../../shared/schemas/members.ts';
import type { TeamStatus, shareTeamBody } from '../../../shared/schemas/team.ts';
import type {
  Retention,
  WorkspaceSettings,
  WorkspaceSettingsBody,
} from '../../../shared/schemas/workspace-settings.ts';
import type {
  BusinessHoursBody,
  BusinessHoursState,
} from '../../../shared/schemas/business-hours.ts';
import type {
  CreatedWebhook,
  CreateWebhookBody,
  DeliveryStatus,
  UpdateWebhookBody,
  Webhook,
  WebhookDelivery,
} from '../../../shared/schemas/webhooks.ts';
import type {
  MemberPresence,
  ReassignResult,
  TeamAgent,
  Viewer,
} from '../../../shared/schemas/together.ts';
import { SINGLE_IMPORT_FIELDS } from '../../../shared/import-fields.ts';
import { useRequestScope } from '../stores/request-scope.ts';

export type { Environment };

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface PageParams {
  limit?: number;
  cursor?: string | null;
}

type QueryValue = string | number | null | undefined;

/** An error answered by the API (its envelope), or a failure to reach it at all. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param: string | undefined;
  readonly docs: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds to wait before trying again (a 429's `Retry-After`). */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: {
      param?: string;
      docs?: string;
      details?: Record<string, unknown>;
      retryAfter?: number;
    } = {},
  ) {
    super(message);
    this.name = 'ApiRequestError';
    this.status = status;
    this.code = code;
    this.param = extra.param;
    this.docs = extra.docs;
    this.details = extra.details;
    this.retryAfter = extra.retryAfter;
  }
}

/** A message fit for a toast, whatever was thrown. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error && e.message) return e.message;
  return 'Something went wrong.';
}

export const isAbortError = (e: unknown): boolean =>
  e instanceof DOMException && e.name === 'AbortError';

interface Scope {
  environment: Environment;
  workspaceId: string | null;
}

/**
 * Sets the environment and workspace every later request is scoped to. Bumps the scope
 * generation so that answers to requests sent under the previous scope can be recognised and
 * dropped instead of showing one environment's data in the other.
 */
export function setScope(next: Partial<Scope>): void {
  useRequestScope.setState((s) => ({
    ...(next.environment !== undefined ? { environment: next.environment } : {}),
    ...(next.workspaceId !== undefined ? { workspaceId: next.workspaceId } : {}),
    generation: s.generation + 1,
  }));
}

export const scopeGeneration = (): number => useRequestScope.getState().generation;

export const currentScope = (): Readonly<Scope> => {
  const { environment, workspaceId } = useRequestScope.getState();
  return { environment, workspaceId };
};

/** Called after every setScope (the event stream reconnects when the scope really changed). */
export function onScopeChange(listener: () => void): () => void {
  return useRequestScope.subscribe((s, previous) => {
    if (s.generation !== previous.generation) listener();
  });
}

/** The core's base URL: the loopback address handed over by Electron, or this page's origin. */
export function apiBaseUrl(): string {
  const base = window.parley?.baseUrl ?? location.origin;
  return base.replace(/\/+$/, '');
}

const baseUrl = apiBaseUrl;

/** The desktop window's per-launch token; a browser has none (its cookie is HttpOnly). */
function sessionToken(): string | null {
  return window.parley?.sessionToken || null;
}

/** True inside the desktop app, whose session comes from the shell rather than a sign-in link. */
export const isDesktop = (): boolean => Boolean(window.parley?.sessionToken);

/**
 * What the client learns about its connection as a side effect of requests: the session was
 * refused (401), the core could not be reached, it answered again, or the event stream could not
 * resume where it left off (`stream.reset`: events were missed). The session store turns these
 * into words on screen.
 */
export type ConnectionSignal = 'refused' | 'unreachable' | 'reachable' | 'stale' | 'stream-open';
const connectionListeners = new Set<(signal: ConnectionSignal) => void>();

export function onConnectionSignal(listener: (signal: ConnectionSignal) => void): () => void {
  connectionListeners.add(listener);
  return () => connectionListeners.delete(listener);
}

export function reportConnection(signal: ConnectionSignal): void {
  for (const listener of [...connectionListeners]) listener(signal);
}

/** What a refused session means to the person at the desk (never "API key is missing"). */
export function sessionEndedMessage(): string {
  return isDesktop()
    ? 'Parley restarted — reload the window.'
    : 'Your session has ended — sign in again.';
}

/** The desktop session's credentials and scope, as headers (the event stream sends them too). */
export function sessionHeaders(): Record<string, string> {
  const { environment, workspaceId } = useRequestScope.getState();
  const headers: Record<string, string> = { 'X-Parley-Environment': environment };
  const token = sessionToken();
  if (token) headers['X-Parley-Session'] = token;
  if (workspaceId) headers['X-Parley-Workspace'] = workspaceId;
  return headers;
}

interface RequestOptions {
  /** An object, or pairs for a parameter that repeats (`map.phone=…&map.phone=…`). */
  query?: Record<string, QueryValue> | [string, string][];
  body?: unknown;
  /**
   * A raw body sent as is: a file goes up as a Blob, which the browser streams and the core
   * decodes itself (reading it as text here would garble UTF-16 or Windows-1252).
   */
  rawBody?: { data: string | Blob; contentType: string };
  /** A multipart/form-data body (a file upload): the browser writes its boundary. */
  form?: FormData;
  accept?: string;
  signal?: AbortSignal;
}

async function send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const url = new URL(baseUrl() + path);
  const query = options.query ?? {};
  for (const [name, value] of Array.isArray(query) ? query : Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') {
      url.searchParams.append(name, String(value));
    }
  }

  const headers = new Headers({
    Accept: options.accept ?? 'application/json',
    ...sessionHeaders(),
  });

  let body: string | Blob | FormData | undefined;
  if (options.form) {
    body = options.form;
  } else if (options.rawBody) {
    headers.set('Content-Type', options.rawBody.contentType);
    body = options.rawBody.data;
  } else if (options.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(options.body);
  }

  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body ?? null,
      signal: options.signal ?? null,
    });
  } catch (e) {
    if (isAbortError(e)) throw e;
    throw unreachable();
  }
  return checked(response);
}

/** The core could not be reached at all (said once, for every request). */
function unreachable(): ApiRequestError {
  reportConnection('unreachable');
  return new ApiRequestError(
    0,
    'network_error',
    'Cannot reach the Parley service. Check that it is running, then try again.',
  );
}

/** An answer as every request reads it: a refused session, the error envelope, or the answer. */
async function checked(response: Response): Promise<Response> {
  if (response.status === 401) {
    const error = await toApiError(response);
    // A password that was not right (signing in, changing it) says nothing about the session.
    if (error.code === 'invalid_credentials') throw error;
    // The session's requests carry no API key: any other 401 means the session itself was refused.
    reportConnection('refused');
    throw new ApiRequestError(401, 'session_ended', sessionEndedMessage());
  }
  if (!response.ok) throw await toApiError(response);
  reportConnection('reachable');
  return response;
}

interface ErrorEnvelope {
  error?: {
    code?: unknown;
    message?: unknown;
    docs?: unknown;
    param?: unknown;
    details?: unknown;
  };
}

async function toApiError(response: Response): Promise<ApiRequestError> {
  const fallback = `The request failed (HTTP ${response.status}).`;
  let envelope: ErrorEnvelope | null;
  try {
    envelope = (await response.json()) as ErrorEnvelope;
  } catch {
    envelope = null;
  }
  const error = envelope?.error;
  const retryAfter = Number(response.headers.get('Retry-After') ?? NaN);
  const wait = Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfter } : {};
  if (!error || typeof error.message !== 'string') {
    return new ApiRequestError(response.status, 'http_error', fallback, wait);
  }
  return new ApiRequestError(
    response.status,
    typeof error.code === 'string' ? error.code : 'http_error',
    error.message,
    {
      ...(typeof error.param === 'string' ? { param: error.param } : {}),
      ...(typeof error.docs === 'string' ? { docs: error.docs } : {}),
      ...(error.details && typeof error.details === 'object'
        ? { details: error.details as Record<string, unknown> }
        : {}),
      ...wait,
    },
  );
}

async function json<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
  const response = await send(method, path, options);
  return (await response.json()) as T;
}

/**
 * A multipart POST that reports how much of its body has gone up: fetch cannot tell, so this
 * one request goes through XMLHttpRequest, with what `send` gives every request (the session and
 * scope headers, the same-origin cookie, the error envelope, the connection signals, an abort as
 * an AbortError).
 */
function uploadWithProgress<T>(
  path: string,
  form: FormData,
  signal: AbortSignal | undefined,
  onProgress: ((sent: number) => void) | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancelled = () => new DOMException('The upload was cancelled.', 'AbortError');
    if (signal?.aborted) return reject(cancelled());
    const xhr = new XMLHttpRequest();
    xhr.open('POST', baseUrl() + path);
    xhr.setRequestHeader('Accept', 'application/json');
    for (const [name, value] of Object.entries(sessionHeaders())) xhr.setRequestHeader(name, value);
    const onAbort = () => xhr.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    if (onProgress) {
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
      };
    }
    xhr.onabort = () => {
      done();
      reject(cancelled());
    };
    xhr.onerror = () => {
      done();
      reject(unreachable());
    };
    xhr.onload = () => {
      done();
      // The answer as a Response, read like every other request's.
      const headers = new Headers();
      const retryAfter = xhr.getResponseHeader('Retry-After');
      if (retryAfter !== null) headers.set('Retry-After', retryAfter);
      const empty = xhr.status === 204 || xhr.status === 205 || xhr.status === 304;
      checked(new Response(empty ? null : xhr.responseText, { status: xhr.status, headers }))
        .then((response) => response.json() as Promise<T>)
        .then(resolve, reject);
    };
    xhr.send(form);
  });
}

const pageQuery = (p: PageParams = {}): Record<string, QueryValue> => ({
  limit: p.limit,
  cursor: p.cursor,
});

/** The first page (no cursor) also counts the contacts matching the filters. */
export interface ContactPage extends Page<Contact> {
  total?: number;
}

export interface ContactQuery extends PageParams {
  q?: string;
  label?: string;
  group?: string;
  phone?: string;
}

interface StreamErrorLine {
  type: 'error';
  error?: { code?: string; message?: string };
}

export interface TemplateQuery extends PageParams {
  status?: TemplateStatus | '';
  name?: string;
}

/** Exactly one of them selects the thread (README "API"). */
export type MessageQuery = PageParams &
  ({ contactId: string } | { conversationId: string } | { phone: string });

export interface SendTemplateResult {
  success: true;
  message: string;
  data: {
    channelMessageId: string;
    phone: string;
    templateName: string;
    contactId: string;
    wabaId: string;
  };
}

export interface SendTextResult {
  success: true;
  message: string;
  data: {
    messageId: string;
    channelMessageId: string;
    phone: string;
    contactId: string;
    conversationId: string;
    wabaId: string;
  };
}

export interface ConversationCounts {
  open: number;
  pending: number;
  snoozed: number;
  resolved: number;
}

export interface ConversationPage extends Page<Conversation> {
  counts: ConversationCounts;
}

export interface ConversationQuery extends PageParams {
  status?: ConversationStatus;
  /** An agent id, `me` or `unassigned`. */
  assignee?: string;
  label?: string;
  q?: string;
  /** Only conversations with unread messages. */
  unread?: boolean;
  /** Only these (≤ 50), if they match the other filters: re-checks changed rows. */
  ids?: string[];
}

/** Opens the conversation with a contact: an existing one by id, or any phone (created if new). */
export type OpenConversationBody = { contactId: string } | { phone: string; name?: string };

export type ConversationDetail = Conversation & { messages: Message[] };

/** The PATCH body, as the core's schema types it. */
export type PatchConversation = PatchConversationBody;

export type ReplyBody = (
  | { text: string }
  | { templateName: string; variables?: Record<string, string> }
  | { listId: string }
  | { mediaId: string; caption?: string; fileName?: string }
) & {
  as?: 'agent' | 'bot';
  private?: boolean;
  /** Quotes one of the conversation's messages (not with a template or a private note). */
  replyToMessageId?: string;
  /**
   * The newest message the agent saw: when someone else wrote since, the core sends nothing and
   * answers 409 `conversation_changed` with that message in `details.message`.
   */
  basedOnMessageId?: string;
};

export type ReviewDecision = 'approve' | 'reject' | 'pause' | 'disable';

/** The column mapping as query parameters: `map.phone` repeats, `skip` repeats. */
export function mappingParams(mapping: ColumnMapping): [string, string][] {
  const params: [string, string][] = mapping.phone.map((c) => ['map.phone', c]);
  for (const field of SINGLE_IMPORT_FIELDS) {
    const column = mapping[field];
    if (column) params.push([`map.${field}`, column]);
  }
  for (const c of mapping.skip) params.push(['skip', c]);
  return params;
}

/**
 * A dry run of a CSV import: the detected encoding, delimiter and columns, the mapping (the
 * core's guess, or `mapping` when given), the first rows and the counts. Writes nothing.
 */
async function previewImport(
  file: Blob,
  mapping: ColumnMapping | null,
  signal?: AbortSignal,
): Promise<ImportPreview> {
  const response = await send('POST', '/api/contacts/import', {
    query: [['dryRun', 'true'], ...(mapping ? mappingParams(mapping) : [])],
    rawBody: { data: file, contentType: 'text/csv' },
    ...(signal ? { signal } : {}),
  });
  return (await response.json()) as ImportPreview;
}

export interface ImportOptions {
  mapping: ColumnMapping;
  groupId?: string | null;
  onProgress?: (processed: number, total: number) => void;
  signal?: AbortSignal;
}

/**
 * Imports a CSV file with a column mapping. Asks for an NDJSON progress stream and reads it
 * line by line as it arrives; a core that answers with a single JSON result is understood too.
 */
async function importFile(file: Blob, options: ImportOptions): Promise<ImportResult> {
  const query = mappingParams(options.mapping);
  if (options.groupId) query.push(['groupId', options.groupId]);
  const response = await send('POST', '/api/contacts/import', {
    query,
    rawBody: { data: file, contentType: 'text/csv' },
    accept: 'application/x-ndjson',
    ...(options.signal ? { signal: options.signal } : {}),
  });

  const contentType = response.headers.get('Content-Type') ?? '';
  if (contentType.includes('application/json') || !response.body) {
    return (await response.json()) as ImportResult;
  }

  let result: ImportResult | null = null;
  const handle = (line: string): void => {
    if (!line.trim()) return;
    let message: ImportProgressLine | StreamErrorLine;
    try {
      message = JSON.parse(line) as ImportProgressLine | StreamErrorLine;
    } catch {
      throw new ApiRequestError(
        response.status,
        'invalid_response',
        'The import answered garbled progress.',
      );
    }
    if (message.type === 'progress') {
      options.onProgress?.(message.processed, message.total);
    } else if (message.type === 'result') {
      const { type: _type, ...rest } = message;
      result = rest;
    } else if (message.type === 'error') {
      // A failure after the 200 header went out can only be reported inside the stream.
      throw new ApiRequestError(
        response.status,
        message.error?.code ?? 'import_failed',
        message.error?.message ?? 'The import failed.',
      );
    }
  };

  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      handle(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
  }
  buffered += decoder.decode();
  handle(buffered);

  if (!result) {
    throw new ApiRequestError(
      response.status,
      'import_interrupted',
      'The import stopped before it reported a result. Some rows may have been imported; reload the list to check.',
    );
  }
  return result;
}

export type ContactCampaign = z.infer<typeof contactCampaignSchema>;

export interface CampaignQuery extends PageParams {
  status?: CampaignStatus | '';
}

export interface RecipientQuery extends PageParams {
  status?: RecipientStatus | '';
}

export interface AudienceQuery {
  target: CampaignTarget;
  templateName?: string;
  variables?: Record<string, string>;
}

export interface SendListResult {
  success: true;
  message: string;
  data: SendTextResult['data'] & { listId: string };
}

/** What the simulated contact sends: a text, or a pick from a list they were sent. */
/** What the simulated customer sends (POST /api/simulator/inbound), as the core's schema takes it. */
export type SimulatedInbound = z.input<typeof inboundBody>;

export type { Workflow, WorkflowRun };

export interface WorkflowRunStep {
  stepId: string;
  type: string;
  status: 'running' | 'waiting' | 'completed' | 'failed';
  startedAt: string;
  endedAt: string | null;
  output: unknown;
  error: string | null;
}

export type WorkflowRunDetail = WorkflowRun & { steps: WorkflowRunStep[] };

/** What POST /workflows and PUT /workflows take: a definition, and for a new one its status. */
export type WorkflowBody = WorkflowDefinition & { status?: WorkflowStatus };

export interface RunQuery extends PageParams {
  status?: RunStatus | '';
}

export interface TriggerBody {
  workflowId: string;
  contactId?: string;
  phone?: string;
  payload?: Record<string, unknown>;
}

export interface EmailCampaignQuery extends PageParams {
  status?: EmailCampaignStatus | '';
}

/** The states of a recipient's unsubscribe page. */
export type UnsubscribePageState = 'ask' | 'unsubscribed' | 'resubscribed';

export interface EmailRecipientQuery extends PageParams {
  status?: EmailStatus | '';
}

/** The SMTP server's answer to a connection check, in its own words. */
export type SmtpCheck = z.infer<typeof smtpCheckSchema>;

export type LoginBody = z.input<typeof loginBody>;
export type AcceptInviteBody = z.input<typeof acceptInviteBody>;
export type ChangePasswordBody = z.input<typeof changePasswordBody>;
export type UpdateMeBody = z.input<typeof updateMeBody>;
export type UpdateMemberBody = z.input<typeof updateMemberBody>;
export type InviteBody = z.input<typeof inviteBody>;
export type ShareTeamBody = z.input<typeof shareTeamBody>;

/** The workspace's settings (`GET /api/workspace/settings`). */
/** Settings → Workspace (README "Workspace settings"); retention is the desk's, read-only. */
export type {
  BusinessHoursBody,
  BusinessHoursState,
} from '../../../shared/schemas/business-hours.ts';
export type {
  Retention,
  RetentionKind,
  WorkspaceSettings,
  WorkspaceSettingsBody,
} from '../../../shared/schemas/workspace-settings.ts';

/** The audit trail's filters (`action` may name a family with a trailing dot: `member.`). */
export interface AuditQuery extends PageParams {
  actor?: string;
  action?: string;
  /** ISO 8601 instants. */
  since?: string;
  until?: string;
}

const auditFilters = (q: AuditQuery): Record<string, QueryValue> => ({
  actor: q.actor,
  action: q.action,
  since: q.since,
  until: q.until,
});

/** A file the core makes (a CSV export): its bytes and the name it suggests. */
export interface Download {
  blob: Blob;
  filename: string;
}

/**
 * Reads an export with the session's headers (the desktop window signs requests with a header a
 * plain link could not send), for the page to save as a file.
 */
async function download(
  path: string,
  query: Record<string, QueryValue>,
  fallbackName: string,
): Promise<Download> {
  const response = await send('GET', path, { query, accept: 'text/csv' });
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const named = /filename\*=UTF-8''([^;]+)|filename="?([^";]+)"?/i.exec(disposition);
  let filename = fallbackName;
  try {
    if (named) filename = decodeURIComponent(named[1] ?? named[2] ?? fallbackName);
  } catch {
    // A malformed name: keep ours.
  }
  return { blob: await response.blob(), filename };
}

export interface Health {
  status: string;
  version: string;
  /** Changes whenever the core starts: a different one means it restarted. */
  bootId: string;
}

export const api = {
  /** Liveness and the core's boot id (public, no credentials). */
  health: async (): Promise<Health> => {
    const response = await fetch(`${baseUrl()}/health`, {
      headers: { Accept: 'application/json' },
      cache: 'no-store',
    });
    if (!response.ok) throw await toApiError(response);
    return (await response.json()) as Health;
  },
  me: (): Promise<Me> => json('GET', '/api/me'),
  workspaces: (p?: PageParams): Promise<Page<Workspace>> =>
    json('GET', '/api/workspaces', { query: pageQuery(p) }),

  /** Signing in and out of a browser session (public: they carry their own proof). */
  auth: {
    /** Sets the session cookie (204); 401 `invalid_credentials`, 429 `rate_limited`. */
    login: async (body: LoginBody): Promise<void> => {
      await send('POST', '/login', { body });
    },
    /** Ends this session and clears its cookie. */
    logout: async (): Promise<void> => {
      await send('POST', '/logout');
    },
  },

  /** The signed-in member's own account. */
  account: {
    update: (body: UpdateMeBody): Promise<Member> => json('PATCH', '/api/me', { body }),
    /** Ends every other session of the member; this one is issued again (a new cookie). */
    changePassword: async (body: ChangePasswordBody): Promise<void> => {
      await send('POST', '/api/me/password', { body });
    },
  },

  /** Sign-in sessions: yours, or with `memberId` another member's (admins). */
  sessions: {
    list: (memberId?: string): Promise<Page<Session>> =>
      json('GET', '/sessions', { query: { memberId } }),
    revoke: async (id: string): Promise<void> => {
      await send('DELETE', `/sessions/${encodeURIComponent(id)}`);
    },
  },

  members: {
    /** Every member, the owner first, then by name; deactivated ones included. */
    list: (): Promise<{ data: Member[] }> => json('GET', '/members'),
    patch: (id: string, body: UpdateMemberBody): Promise<Member> =>
      json('PATCH', `/members/${encodeURIComponent(id)}`, { body }),
    /** Invites not yet accepted, revoked or expired. */
    invites: (): Promise<{ data: Invite[] }> => json('GET', '/members/invites'),
    invite: (body: InviteBody): Promise<CreatedInvite> =>
      json('POST', '/members/invites', { body }),
    revokeInvite: async (id: string): Promise<void> => {
      await send('DELETE', `/members/invites/${encodeURIComponent(id)}`);
    },
  },

  /** An invite link's page (public: the token is the proof). */
  invites: {
    /** 404 `not_found` when the link is unknown, used, revoked or expired (its message says which). */
    preview: (token: string): Promise<InvitePreview> =>
      json('POST', '/invites/preview', { body: { token } }),
    /** Makes the member and signs them in (sets the session cookie). */
    accept: (body: AcceptInviteBody): Promise<Member> => json('POST', '/invites/accept', { body }),
  },

  audit: {
    list: (q: AuditQuery = {}): Promise<Page<AuditEntry>> =>
      json('GET', '/audit', { query: { ...pageQuery(q), ...auditFilters(q) } }),
    /** The same filters as a CSV file (UTF-8 with BOM, formula-safe). */
    export: (q: AuditQuery = {}): Promise<Download> =>
      download('/audit/export', auditFilters(q), 'parley-audit.csv'),
  },

  keys: {
    list: (p?: PageParams): Promise<Page<ApiKey>> =>
      json('GET', '/api/keys', { query: pageQuery(p) }),
    create: (body: CreateKeyBody): Promise<CreatedKey> => json('POST', '/api/keys', { body }),
    revoke: (id: string): Promise<ApiKey> => json('DELETE', `/api/keys/${encodeURIComponent(id)}`),
  },

  wallet: {
    get: (): Promise<Wallet> => json('GET', '/api/wallet'),
    transactions: (p?: PageParams): Promise<Page<LedgerEntry>> =>
      json('GET', '/api/wallet/transactions', { query: pageQuery(p) }),
    topup: (body: TopupBody): Promise<{ wallet: Wallet; entry: LedgerEntry }> =>
      json('POST', '/api/wallet/topup', { body }),
  },

  contacts: {
    list: (p: ContactQuery = {}, signal?: AbortSignal): Promise<ContactPage> =>
      json('GET', '/api/contacts', {
        query: { ...pageQuery(p), q: p.q, label: p.label, group: p.group, phone: p.phone },
        ...(signal ? { signal } : {}),
      }),
    /** Upsert by phone: `created` tells a new contact (201) from an update (200). */
    upsert: async (body: UpsertContactBody): Promise<{ contact: Contact; created: boolean }> => {
      const response = await send('POST', '/api/contacts', { body });
      return { contact: (await response.json()) as Contact, created: response.status === 201 };
    },
    get: (id: string): Promise<Contact> => json('GET', `/api/contacts/${encodeURIComponent(id)}`),
    patch: (id: string, body: PatchContactBody): Promise<Contact> =>
      json('PATCH', `/api/contacts/${encodeURIComponent(id)}`, { body }),
    previewImport,
    import: importFile,
    /** The contacts the list's filters match, as a CSV file (UTF-8 with BOM, formula-safe). */
    export: (f: Omit<ContactQuery, keyof PageParams> = {}): Promise<Download> =>
      download(
        '/api/contacts/export',
        { format: 'csv', q: f.q, label: f.label, group: f.group, phone: f.phone },
        'parley-contacts.csv',
      ),
  },

  groups: {
    list: (p?: PageParams): Promise<Page<Group>> =>
      json('GET', '/api/contacts/groups', { query: pageQuery(p) }),
    /** A new group, with `contactIds` as its first members when given. */
    create: (name: string, contactIds?: string[]): Promise<Group> =>
      json('POST', '/api/contacts/groups', { body: { name, contactIds } }),
    addMembers: (id: string, contactIds: string[]): Promise<Group> =>
      json('POST', `/api/contacts/groups/${encodeURIComponent(id)}/members`, {
        body: { contactIds },
      }),
  },

  templates: {
    list: (p: TemplateQuery = {}): Promise<Page<Template>> =>
      json('GET', '/api/templates', { query: { ...pageQuery(p), status: p.status, name: p.name } }),
    get: (id: string): Promise<Template> => json('GET', `/api/templates/${encodeURIComponent(id)}`),
    create: (body: CreateTemplateBody): Promise<{ success: true; template: Template }> =>
      json('POST', '/api/templates', { body }),
    edit: (id: string, body: EditTemplateBody): Promise<Template> =>
      json('PUT', `/api/templates/${encodeURIComponent(id)}/edit`, { body }),
    remove: (id: string): Promise<{ success: true; id: string }> =>
      json('DELETE', `/api/templates/${encodeURIComponent(id)}`),
    sync: (): Promise<{ success: true; reviewed: number; templates: Template[] }> =>
      json('POST', '/api/templates/sync'),
  },

  messages: {
    list: (q: MessageQuery): Promise<Page<Message>> =>
      json('GET', '/messages', {
        query: {
          ...pageQuery(q),
          contactId: 'contactId' in q ? q.contactId : undefined,
          conversationId: 'conversationId' in q ? q.conversationId : undefined,
          phone: 'phone' in q ? q.phone : undefined,
        },
      }),
    sendTemplate: (body: {
      phone: string;
      templateName: string;
      variables?: Record<string, string>;
    }): Promise<SendTemplateResult> => json('POST', '/api/send', { body }),
    sendText: (body: { phone: string; message: string }): Promise<SendTextResult> =>
      json('POST', '/api/send-text', { body }),
    /** A saved interactive list, inside the 24 h window (else 422 `outside_service_window`). */
    sendList: (body: { phone: string; listId: string }): Promise<SendListResult> =>
      json('POST', '/api/send-list', { body }),
  },

  conversations: {
    list: (q: ConversationQuery = {}, signal?: AbortSignal): Promise<ConversationPage> =>
      json('GET', '/conversations', {
        query: {
          ...pageQuery(q),
          status: q.status,
          assignee: q.assignee,
          label: q.label,
          q: q.q,
          unread: q.unread ? 'true' : undefined,
          ids: q.ids?.join(','),
        },
        ...(signal ? { signal } : {}),
      }),
    get: (id: string): Promise<ConversationDetail> =>
      json('GET', `/conversations/${encodeURIComponent(id)}`),
    /** `created`: a new conversation (201) rather than the contact's existing one (200). */
    open: async (
      body: OpenConversationBody,
    ): Promise<{ conversation: Conversation; created: boolean }> => {
      const response = await send('POST', '/conversations', { body });
      return {
        conversation: (await response.json()) as Conversation,
        created: response.status === 201,
      };
    },
    messages: (id: string, p?: PageParams): Promise<Page<Message>> =>
      json('GET', `/conversations/${encodeURIComponent(id)}/messages`, { query: pageQuery(p) }),
    patch: (id: string, body: PatchConversation): Promise<Conversation> =>
      json('PATCH', `/conversations/${encodeURIComponent(id)}`, { body }),
    reply: (id: string, body: ReplyBody): Promise<Message> =>
      json('POST', `/conversations/${encodeURIComponent(id)}/reply`, { body }),
    /** The business reacts to one of the customer's messages (`''` takes the reaction back). */
    react: (id: string, messageId: string, emoji: string): Promise<Message> =>
      json(
        'POST',
        `/conversations/${encodeURIComponent(id)}/messages/${encodeURIComponent(messageId)}/reaction`,
        { body: { emoji } },
      ),
    /** The signed-in member is looking at it (send every 3 s while it is open); 204. */
    viewing: async (id: string): Promise<void> => {
      await send('POST', `/conversations/${encodeURIComponent(id)}/viewing`);
    },
    /** The signed-in member is typing in it (at most every 3 s); 204. */
    typing: async (id: string): Promise<void> => {
      await send('POST', `/conversations/${encodeURIComponent(id)}/typing`);
    },
    /** Who else viewed it in the last 6 s (the caller left out). */
    viewers: (id: string): Promise<Page<Viewer>> =>
      json('GET', `/conversations/${encodeURIComponent(id)}/viewers`),
  },

  cannedReplies: {
    list: (p: PageParams & { q?: string } = {}, signal?: AbortSignal): Promise<Page<CannedReply>> =>
      json('GET', '/canned-replies', {
        query: { ...pageQuery(p), q: p.q },
        ...(signal ? { signal } : {}),
      }),
    create: (body: CannedReplyBody): Promise<CannedReply> =>
      json('POST', '/canned-replies', { body }),
    update: (id: string, body: CannedReplyBody): Promise<CannedReply> =>
      json('PUT', `/canned-replies/${encodeURIComponent(id)}`, { body }),
    remove: (id: string): Promise<{ success: true; id: string }> =>
      json('DELETE', `/canned-replies/${encodeURIComponent(id)}`),
  },

  campaigns: {
    list: (q: CampaignQuery = {}): Promise<Page<Campaign>> =>
      json('GET', '/campaigns', { query: { ...pageQuery(q), status: q.status } }),
    /** The campaigns a contact is a recipient of, newest first, each with its outcome for them. */
    forContact: (contactId: string, limit: number, signal?: AbortSignal) =>
      json<Page<ContactCampaign>>('GET', '/campaigns', {
        query: { contactId, limit },
        ...(signal ? { signal } : {}),
      }),
    get: (id: string): Promise<Campaign> => json('GET', `/campaigns/${encodeURIComponent(id)}`),
    create: (body: CreateCampaignBody): Promise<Campaign> => json('POST', '/campaigns', { body }),
    update: (body: UpdateCampaignBody): Promise<Campaign> => json('PUT', '/campaigns', { body }),
    /** Draft → sending (or scheduled, with a future `scheduledFor`); paused → sending (resume). */
    launch: (id: string, scheduledFor?: string): Promise<Campaign> =>
      json('POST', '/campaigns/launch', { body: scheduledFor ? { id, scheduledFor } : { id } }),
    pause: (id: string): Promise<Campaign> => json('POST', '/campaigns/pause', { body: { id } }),
    cancel: (id: string): Promise<Campaign> => json('POST', '/campaigns/cancel', { body: { id } }),
    progress: (id: string): Promise<CampaignProgress> =>
      json('GET', `/campaigns/${encodeURIComponent(id)}/progress`),
    recipients: (id: string, q: RecipientQuery = {}): Promise<Page<CampaignRecipient>> =>
      json('GET', `/campaigns/${encodeURIComponent(id)}/recipients`, {
        query: { ...pageQuery(q), status: q.status },
      }),
    timeline: (id: string): Promise<CampaignTimeline> =>
      json('GET', `/campaigns/${encodeURIComponent(id)}/timeline`),
    /** Its recipients (one status, or all) as a CSV file, in launch order. */
    exportRecipients: (id: string, status?: RecipientQuery['status']): Promise<Download> =>
      download(
        `/campaigns/${encodeURIComponent(id)}/recipients/export`,
        { status },
        'parley-campaign-recipients.csv',
      ),
    /** Who a target reaches now, how many would miss a variable, and one rendered sample. */
    audience: (body: AudienceQuery, signal?: AbortSignal): Promise<CampaignAudience> =>
      json('POST', '/campaigns/audience', { body, ...(signal ? { signal } : {}) }),
  },

  email: {
    list: (q: EmailCampaignQuery = {}): Promise<Page<EmailCampaign>> =>
      json('GET', '/v1/email/campaigns', { query: { ...pageQuery(q), status: q.status } }),
    get: (id: string): Promise<EmailCampaign> =>
      json('GET', `/v1/email/campaigns/${encodeURIComponent(id)}`),
    /** A draft, or a scheduled campaign when `scheduledFor` is given. */
    create: (body: CreateEmailCampaignBody): Promise<EmailCampaign> =>
      json('POST', '/v1/email/campaigns', { body }),
    /** Drafts and scheduled campaigns only (else 409 `invalid_state`). */
    update: (id: string, body: UpdateEmailCampaignBody): Promise<EmailCampaign> =>
      json('PUT', `/v1/email/campaigns/${encodeURIComponent(id)}`, { body }),
    /** Draft → sending (or scheduled, with a future `scheduledFor`); paused → sending (resume). */
    launch: (id: string, scheduledFor?: string): Promise<EmailCampaign> =>
      json('POST', `/v1/email/campaigns/${encodeURIComponent(id)}/launch`, {
        body: scheduledFor ? { scheduledFor } : {},
      }),
    pause: (id: string): Promise<EmailCampaign> =>
      json('POST', `/v1/email/campaigns/${encodeURIComponent(id)}/pause`, { body: {} }),
    cancel: (id: string): Promise<EmailCampaign> =>
      json('POST', `/v1/email/campaigns/${encodeURIComponent(id)}/cancel`, { body: {} }),
    recipients: (id: string, q: EmailRecipientQuery = {}): Promise<Page<EmailMessage>> =>
      json('GET', `/v1/email/campaigns/${encodeURIComponent(id)}/recipients`, {
        query: { ...pageQuery(q), status: q.status },
      }),
    timeline: (id: string): Promise<EmailTimeline> =>
      json('GET', `/v1/email/campaigns/${encodeURIComponent(id)}/timeline`),
    /** Its recipients and how each went (one status, or all) as a CSV file. */
    exportRecipients: (id: string, status?: EmailRecipientQuery['status']): Promise<Download> =>
      download(
        `/v1/email/campaigns/${encodeURIComponent(id)}/recipients/export`,
        { status },
        'parley-email-recipients.csv',
      ),
    /** The campaign's content, filled in for one contact (a chosen one, or none), to one address. */
    sendTest: (id: string, to: string, contactId?: string): Promise<EmailMessage> =>
      json('POST', `/v1/email/campaigns/${encodeURIComponent(id)}/test`, {
        body: contactId ? { to, contactId } : { to },
      }),
    /** Its unsubscribe page as a recipient sees it, marked "Preview" (HTML; nothing changes). */
    unsubscribePreview: async (id: string, state: UnsubscribePageState): Promise<string> =>
      (
        await send('GET', `/v1/email/campaigns/${encodeURIComponent(id)}/unsubscribe-preview`, {
          query: { state },
          accept: 'text/html',
        })
      ).text(),
    /** Which links were clicked, by how many recipients and how often. */
    links: (id: string): Promise<EmailLinkReport> =>
      json('GET', `/v1/email/campaigns/${encodeURIComponent(id)}/links`),
    /** Test mode: a recipient of a test campaign clicks one of its links (the first by default). */
    simulateClick: (messageId: string, url?: string): Promise<EmailMessage> =>
      json('POST', '/api/simulator/email/click', {
        body: url ? { messageId, url } : { messageId },
      }),
    /** One email (a test, a transactional send) and how it went. */
    message: (id: string): Promise<EmailMessage> =>
      json('GET', `/v1/email/messages/${encodeURIComponent(id)}`),
    /**
     * Who an audience reaches now: with an email and subscribed, and who it leaves out; with the
     * subject and bodies, which placeholders its recipients have no value for.
     */
    audience: (body: EmailAudienceBody, signal?: AbortSignal): Promise<EmailAudience> =>
      json('POST', '/v1/email/audience', { body, ...(signal ? { signal } : {}) }),
    settings: (): Promise<EmailSettings> => json('GET', '/v1/email/settings'),
    /** Leaving out `smtp.password` or `dkim.privateKey` keeps the saved one. */
    saveSettings: (body: EmailSettingsBody): Promise<EmailSettings> =>
      json('PUT', '/v1/email/settings', { body }),
    /** Connects and signs in to the saved SMTP server; with `to`, also sends it a test message. */
    checkSettings: (to?: string): Promise<SmtpCheck> =>
      json('POST', '/v1/email/settings/check', { body: to ? { to } : {} }),
  },

  /** The live channel (README "Connecting WhatsApp"); every call answers 403 in test mode. */
  channel: {
    get: (): Promise<ChannelSettings> => json('GET', '/api/channel'),
    /** Fields left out keep their values: leaving out `accessToken` or `appSecret` keeps it. */
    save: (body: ChannelSettingsBody): Promise<ChannelSettings> =>
      json('PUT', '/api/channel', { body }),
    /** Asks Meta about the phone number; `lastCheck` and `number` carry the answer. */
    check: (): Promise<ChannelSettings> => json('POST', '/api/channel/check'),
    /** Webhook items that could not be read, newest first (each kept with its raw JSON). */
    rejects: (p?: PageParams): Promise<Page<WebhookReject>> =>
      json('GET', '/api/channel/rejects', { query: pageQuery(p) }),
  },

  /** Webhook endpoints and their delivery logs (README "API", Webhooks). */
  webhooks: {
    list: (p?: PageParams): Promise<Page<Webhook>> =>
      json('GET', '/webhooks', { query: pageQuery(p) }),
    get: (id: string): Promise<Webhook> => json('GET', `/webhooks/${encodeURIComponent(id)}`),
    /** The answer's `secret` signs its deliveries; it is never shown again. */
    create: (body: CreateWebhookBody): Promise<CreatedWebhook> =>
      json('POST', '/webhooks', { body }),
    /** Fields left out keep their values; `enabled: false` ends the pending deliveries. */
    update: (id: string, body: UpdateWebhookBody): Promise<Webhook> =>
      json('PATCH', `/webhooks/${encodeURIComponent(id)}`, { body }),
    remove: (id: string): Promise<{ success: true; id: string }> =>
      json('DELETE', `/webhooks/${encodeURIComponent(id)}`),
    deliveries: (
      id: string,
      q: PageParams & { status?: DeliveryStatus | '' } = {},
    ): Promise<Page<WebhookDelivery>> =>
      json('GET', `/webhooks/${encodeURIComponent(id)}/deliveries`, {
        query: { ...pageQuery(q), status: q.status },
      }),
    /**
     * Sends the delivery's event again now: one waiting for its next try is tried at once (200,
     * the same delivery), an ended one gets a new delivery (201); 409 while an attempt is under way.
     */
    redeliver: (id: string, deliveryId: string): Promise<WebhookDelivery> =>
      json(
        'POST',
        `/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
      ),
  },

  interactiveLists: {
    list: (p?: PageParams): Promise<Page<InteractiveList>> =>
      json('GET', '/interactive-lists', { query: pageQuery(p) }),
    get: (id: string): Promise<InteractiveList> =>
      json('GET', `/interactive-lists/${encodeURIComponent(id)}`),
    create: (body: ListContentBody): Promise<InteractiveList> =>
      json('POST', '/interactive-lists', { body }),
    /** Names the list by `id`; the fields given replace the list's, the others stay. */
    update: (body: UpdateListBody): Promise<InteractiveList> =>
      json('PUT', '/interactive-lists', { body }),
    remove: (id: string): Promise<{ success: true; id: string }> =>
      json('DELETE', '/interactive-lists', { query: { id } }),
  },

  workflows: {
    list: (p?: PageParams): Promise<Page<Workflow>> =>
      json('GET', '/workflows', { query: pageQuery(p) }),
    get: (id: string): Promise<Workflow> => json('GET', `/workflows/${encodeURIComponent(id)}`),
    /** The answer's `secret` signs the webhook steps' requests; it is never shown again. */
    create: (body: WorkflowBody): Promise<Workflow & { secret: string }> =>
      json('POST', '/workflows', { body }),
    /** A new signing secret for the webhook steps, answered once; the old one stops signing. */
    rotateSecret: (id: string): Promise<Workflow & { secret: string }> =>
      json('POST', `/workflows/${encodeURIComponent(id)}/secret/rotate`),
    /** Saves a new version; runs in flight finish on the version they started with. */
    update: (id: string, body: WorkflowDefinition): Promise<Workflow> =>
      json('PUT', '/workflows', { body: { id, ...body } }),
    setStatus: (id: string, status: WorkflowStatus): Promise<Workflow> =>
      json('PATCH', `/workflows/${encodeURIComponent(id)}`, { body: { status } }),
    trigger: (body: TriggerBody): Promise<WorkflowRun> =>
      json('POST', '/workflows/trigger', { body }),
    runs: (id: string, q: RunQuery = {}): Promise<Page<WorkflowRun>> =>
      json('GET', `/workflows/${encodeURIComponent(id)}/runs`, {
        query: { ...pageQuery(q), status: q.status },
      }),
    run: (runId: string): Promise<WorkflowRunDetail> =>
      json('GET', `/workflows/runs/${encodeURIComponent(runId)}`),
    cancelRun: (runId: string): Promise<WorkflowRun> =>
      json('POST', `/workflows/runs/${encodeURIComponent(runId)}/cancel`),
    /** Saves pending edits (an active workflow keeps running its version until they are activated). */
    saveDraft: (id: string, body: WorkflowDefinition): Promise<Workflow> =>
      json('PUT', `/workflows/${encodeURIComponent(id)}/draft`, { body }),
    discardDraft: (id: string): Promise<Workflow> =>
      json('DELETE', `/workflows/${encodeURIComponent(id)}/draft`),
    /** Makes the draft (or a draft-status workflow) the running version; its trigger starts runs. */
    activate: (id: string): Promise<Workflow> =>
      json('POST', `/workflows/${encodeURIComponent(id)}/activate`),
    deactivate: (id: string): Promise<Workflow> =>
      json('POST', `/workflows/${encodeURIComponent(id)}/deactivate`),
    /** Every activated version, newest first. */
    versions: (id: string): Promise<{ data: WorkflowVersion[] }> =>
      json('GET', `/workflows/${encodeURIComponent(id)}/versions`),
    /** Puts an old version in the draft. */
    restoreVersion: (id: string, version: number): Promise<Workflow> =>
      json('POST', `/workflows/${encodeURIComponent(id)}/versions/${version}/restore`),
  },

  /** Who is online, away or offline (README "Working together"); signed-in members report it. */
  presence: {
    list: (): Promise<Page<MemberPresence>> => json('GET', '/api/presence'),
    /** `active`: the person used this window; `idle`: no input for a while, or it is hidden. */
    report: (state: 'active' | 'idle'): Promise<{ memberId: string; status: PresenceStatus }> =>
      json('POST', '/api/presence', { body: { state } }),
  },

  /** Settings → Team: the admin's view of the team, and sharing this desk on the network. */
  team: {
    agents: (): Promise<Page<TeamAgent>> => json('GET', '/api/team/agents'),
    setCapacity: (id: string, capacity: number): Promise<TeamAgent> =>
      json('PATCH', `/api/team/agents/${encodeURIComponent(id)}`, { body: { capacity } }),
    /** `to`: a member id, `unassigned` or `round_robin`. */
    reassignAll: (memberId: string, to: string): Promise<ReassignResult> =>
      json('POST', `/api/members/${encodeURIComponent(memberId)}/reassign`, { body: { to } }),
    status: (): Promise<TeamStatus> => json('GET', '/api/team'),
    share: (body: ShareTeamBody): Promise<TeamStatus> => json('POST', '/api/team/share', { body }),
  },

  workspace: {
    settings: (): Promise<WorkspaceSettings> => json('GET', '/api/workspace/settings'),
    /** Fields left out keep their values. */
    updateSettings: (body: WorkspaceSettingsBody): Promise<WorkspaceSettings> =>
      json('PATCH', '/api/workspace/settings', { body }),
    /** How long the desk keeps what only grows: set where it runs, read here. */
    retention: (): Promise<Retention> => json('GET', '/api/workspace/retention'),
    /** Business hours, whether the business is open now, and when that next changes. */
    businessHours: (): Promise<BusinessHoursState> => json('GET', '/settings/business-hours'),
    /** Replaces the hours (a day left out is closed). */
    setBusinessHours: (body: BusinessHoursBody): Promise<BusinessHoursState> =>
      json('PUT', '/settings/business-hours', { body }),
  },

  /** Every member as an assignee: the picker offers active ones; inactive names still resolve. */
  agents: {
    list: (): Promise<Page<Agent>> => json('GET', '/agents'),
  },

  /** Photos, voice notes, videos, documents and stickers (README "Media, reactions and quotes"). */
  media: {
    /**
     * Stores a file to send (multipart `file`); the core decides its type from the bytes.
     * `onProgress` hears the share of the body sent so far (0…1) as it goes up.
     */
    upload: (
      file: Blob,
      fileName: string,
      signal?: AbortSignal,
      onProgress?: (sent: number) => void,
    ): Promise<Media> => {
      const form = new FormData();
      form.append('fileName', fileName);
      form.append('file', file, fileName);
      return uploadWithProgress('/media', form, signal, onProgress);
    },
    /**
     * A link that serves the file without a credential for 12 hours (what `<img>`, `<audio>`
     * and `<video>` use: the desktop window's session is a header they cannot send).
     */
    link: (id: string): Promise<{ url: string; expiresAt: string }> =>
      json('GET', `/media/${encodeURIComponent(id)}/link`),
    /** Fetches a failed download again. */
    retry: (id: string): Promise<Media> => json('POST', `/media/${encodeURIComponent(id)}/retry`),
  },

  simulator: {
    inbound: (body: SimulatedInbound): Promise<unknown> =>
      json('POST', '/api/simulator/inbound', { body }),
    review: (id: string, body: { decision: ReviewDecision; reason?: string }): Promise<unknown> =>
      json('POST', `/api/simulator/templates/${encodeURIComponent(id)}/review`, { body }),
    settings: (): Promise<SimulatorSettings> => json('GET', '/api/simulator/settings'),
    /** Changes any subset of them; the new throughput and tier hold for the runners at once. */
    saveSettings: (body: Partial<SimulatorSettings>): Promise<SimulatorSettings> =>
      json('PUT', '/api/simulator/settings', { body }),
  },

  /** The OpenAPI document (public, no credentials). */
  openapi: async (): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${baseUrl()}/openapi.json`, {
        headers: { Accept: 'application/json' },
      });
    } catch {
      throw new ApiRequestError(0, 'network_error', 'Cannot reach the Parley service.');
    }
    if (!response.ok) throw await toApiError(response);
    return response.json();
  },
};

export interface RawRequest {
  method: string;
  /** Path plus query string, e.g. `/api/templates?status=APPROVED`. */
  path: string;
  apiKey: string;
  /** JSON text, sent as is. */
  body?: string;
}

export interface RawResponse {
  status: number;
  statusText: string;
  headers: [string, string][];
  bodyText: string;
  durationMs: number;
}

/**
 * A request exactly as a script would make it: only `X-API-Key` (and the JSON content type),
 * none of the desktop session's headers. Answers every status; throws only when nothing
 * answered at all.
 */
export async function sendWithApiKey(request: RawRequest): Promise<RawResponse> {
  const headers: Record<string, string> = { 'X-API-Key': request.apiKey };
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(baseUrl() + request.path, {
      method: request.method,
      headers,
      body: request.body ?? null,
      // A script has no sign-in cookie: the key alone must decide what the call may do.
      credentials: 'omit',
    });
  } catch {
    throw new ApiRequestError(
      0,
      'network_error',
      'Cannot reach the Parley service. Check that it is running, then try again.',
    );
  }
  const bodyText = await response.text();
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers.entries()],
    bodyText,
    durationMs: Math.round(performance.now() - started),
  };
}
