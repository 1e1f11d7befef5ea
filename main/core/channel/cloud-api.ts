import type { InteractiveList } from '../../../shared/schemas/interactive-lists.ts';
import type { TemplateButton, TemplateComponent } from '../../../shared/schemas/templates.ts';
import { isWaUserId } from '../../../shared/phone.ts';
import { variablesIn } from '../../../shared/template-rules.ts';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Outbound, OutboundFailure, OutboundResponse, PinnedGet } from '../net/outbound.ts';
import { OutboundError } from '../net/outbound.ts';
import type { ChannelMedia, ChannelMessage } from './types.ts';

/**
 * A client of Meta's WhatsApp Cloud API (Graph API), as documented for
 * `POST /{phone-number-id}/messages`, `GET /{phone-number-id}` and
 * `/{waba-id}/message_templates`. Only what the channel needs; every call bounded in time.
 */
export interface CloudApiConfig {
  /** With the version, e.g. `https://graph.facebook.com/v21.0` (tests: a local fake). */
  graphBaseUrl: string;
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
  /**
   * Every call goes through the one outbound policy (net/outbound.ts): no redirects, private
   * and loopback hosts only where the workspace allows them. Its connections are kept alive
   * and reused (the Graph origin and Meta's media hosts are fixed, not user-given).
   */
  outbound: Outbound;
  allowPrivate: boolean;
}

export const DEFAULT_GRAPH_BASE_URL = 'https://graph.facebook.com/v21.0';
/** Meta's own Graph host: only a check against it proves a phone number's owner. */
export const META_GRAPH_HOST = 'graph.facebook.com';
export const isMetaGraph = (graphBaseUrl: string | null): boolean => {
  if (graphBaseUrl === null) return true;
  try {
    const u = new URL(graphBaseUrl);
    return u.protocol === 'https:' && u.hostname === META_GRAPH_HOST && u.port === '';
  } catch {
    return false;
  }
};
export const GRAPH_TIMEOUT_MS = 10_000;
/** The longest answer read from the Graph API (a page of 100 templates is far below it). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The provider answered with an error (`{error: {code, message, error_data}}`). */
export class GraphError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number | null,
    message: string,
    readonly details: string | null,
  ) {
    super(message);
    this.name = 'GraphError';
  }
}

/** No answer at all (connection refused or dropped, timeout): the request may have arrived. */
export class GraphUnreachable extends Error {
  constructor(
    message: string,
    /** Why, as the outbound policy classified it. */
    readonly failure: OutboundFailure | 'tls' = 'network',
  ) {
    super(message);
    this.name = 'GraphUnreachable';
  }
}

/** An answer that is not the Graph API's (not JSON, or not the shape it documents). */
export class NotGraph extends Error {
  constructor(readonly httpStatus: number) {
    super(`the answer (HTTP ${httpStatus}) is not the Graph API's`);
    this.name = 'NotGraph';
  }
}

const TLS_FAILURE =
  /certificate|CERT_|SSL|TLS|EPROTO|wrong version number|handshake|self[- ]signed/i;

/** Meta's messaging limit tiers, as business-initiated conversations per 24 h (null: unlimited). */
const TIERS: Record<string, number | null> = {
  TIER_50: 50,
  TIER_250: 250,
  TIER_1K: 1000,
  TIER_2K: 2000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_UNLIMITED: null,
};
/** Throughput levels: 80 messages per second by default, up to 1,000 when upgraded. */
const THROUGHPUT: Record<string, number> = { STANDARD: 80, HIGH: 1000 };

export interface PhoneNumberInfo {
  displayPhoneNumber: string | null;
  verifiedName: string | null;
  qualityRating: string | null;
  tier: number | null | undefined;
  mps: number | undefined;
}

export interface ProviderTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  rejectedReason: string | null;
}

/** Values of the variables a text uses, in order, renumbered from 1 (Meta numbers per component). */
const parametersFor = (text: string | undefined, variables: Record<string, string>) =>
  [...new Set(variablesIn(text ?? ''))]
    .sort((a, b) => a - b)
    .map((n) => ({ type: 'text', text: variables[String(n)] ?? '' }));

/** Our `{{n}}` renumbered per component, as Meta counts them. */
function renumber(text: string): string {
  const order = [...new Set(variablesIn(text))].sort((a, b) => a - b);
  return text.replace(
    /\{\{\s*(\d+)\s*\}\}/g,
    (_, n: string) => `{{${order.indexOf(Number(n)) + 1}}}`,
  );
}

/** The request body of `POST /{phone-number-id}/messages` for one of our messages. */
export function messagePayload(
  m: ChannelMessage,
  template: { language: string; components: TemplateComponent[] } | null,
): Record<string, unknown> {
  const base = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    // A customer known only by their business-scoped user id is addressed by `recipient`;
    // a BSUID never goes in `to` (README "Connecting WhatsApp").
    ...(isWaUserId(m.phone) ? { recipient: m.phone } : { to: m.phone.replace(/^\+/, '') }),
    // Our message id comes back on its status webhooks: a crash mid-call is reconciled by it.
    biz_opaque_callback_data: m.id,
  };
  if (m.type === 'template') {
    const variables = m.variables ?? {};
    const components: Record<string, unknown>[] = [];
    for (const c of template?.components ?? []) {
      if (c.type === 'BUTTONS') {
        // A copy-code button carries the code to copy (Meta's `coupon_code` parameter).
        (c.buttons ?? []).forEach((button, index) => {
          if (button.type !== 'COPY_CODE') return;
          components.push({
            type: 'button',
            sub_type: 'copy_code',
            index: String(index),
            parameters: [{ type: 'coupon_code', coupon_code: offerCode(button) }],
          });
        });
        continue;
      }
      if (c.type !== 'HEADER' && c.type !== 'BODY') continue;
      const parameters = parametersFor(c.text, variables);
      if (parameters.length) components.push({ type: c.type.toLowerCase(), parameters });
    }
    return {
      ...base,
      type: 'template',
      template: {
        name: m.templateName,
        language: { code: template?.language ?? 'en' },
        ...(components.length ? { components } : {}),
      },
    };
  }
  // A reply quotes the message it answers (`context.message_id`, the provider's id).
  const quoted = m.contextChannelId ? { context: { message_id: m.contextChannelId } } : {};
  if (m.type === 'list' && m.list)
    return { ...base, ...quoted, type: 'interactive', interactive: listPayload(m.list) };
  if (m.type === 'reaction') {
    // An empty emoji takes the reaction back.
    return {
      ...base,
      type: 'reaction',
      reaction: { message_id: m.contextChannelId, emoji: m.text },
    };
  }
  if (m.type === 'media' && m.media) return { ...base, ...quoted, ...mediaPayload(m.media) };
  return { ...base, ...quoted, type: 'text', text: { preview_url: false, body: m.text } };
}

/**
 * A media message by the id its upload got: images, videos and documents take a caption,
 * documents a file name; audio and stickers take neither (Meta's media object).
 */
function mediaPayload(media: ChannelMedia): Record<string, unknown> {
  if (!media.providerId) throw new Error('a media message is sent after its upload');
  const caption =
    media.caption && (media.kind === 'image' || media.kind === 'video' || media.kind === 'document')
      ? { caption: media.caption }
      : {};
  const filename = media.kind === 'document' && media.fileName ? { filename: media.fileName } : {};
  return { type: media.kind, [media.kind]: { id: media.providerId, ...caption, ...filename } };
}

/**
 * Where Meta serves media from (`GET /{media-id}`'s `url`): the token goes only there, or to the
 * Graph URL's own origin (a local test server).
 */
const META_MEDIA_HOSTS = /(^|\.)(fbsbx\.com|facebook\.com|fbcdn\.net|whatsapp\.net)$/i;
export function mayCarryToken(mediaUrl: string, graphBaseUrl: string): boolean {
  try {
    const u = new URL(mediaUrl);
    if (u.origin === new URL(graphBaseUrl).origin) return true;
    return u.protocol === 'https:' && META_MEDIA_HOSTS.test(u.hostname);
  } catch {
    return false;
  }
}

/** What `GET /{media-id}` tells of a file (Meta documents `file_size` as a string or a number). */
export interface ProviderMedia {
  url: string;
  mimeType: string | null;
  sha256: string | null;
  size: number | null;
}

/** The longest a media transfer may take (a 100 MB document on a slow line). */
export const MEDIA_TRANSFER_TIMEOUT_MS = 10 * 60_000;

function listPayload(list: InteractiveList): Record<string, unknown> {
  return {
    type: 'list',
    ...(list.header ? { header: { type: 'text', text: list.header } } : {}),
    body: { text: list.body },
    ...(list.footer ? { footer: { text: list.footer } } : {}),
    action: {
      button: list.buttonText,
      sections: list.sections.map((s) => ({
        ...(s.title ? { title: s.title } : {}),
        rows: s.rows.map((r) => ({
          id: r.id,
          title: r.title,
          ...(r.description ? { description: r.description } : {}),
        })),
      })),
    },
  };
}

/**
 * The code a copy-code button copies: its offer code (Meta's `example`, at most 15 characters),
 * or, for a template saved without one, its text.
 */
const offerCode = (b: Extract<TemplateButton, { type: 'COPY_CODE' }>): string =>
  (b.example?.trim() || b.text.trim()).slice(0, 15);

/** One of our buttons as Meta's template-creation API spells it (never our own field names). */
function buttonPayload(b: TemplateButton): Record<string, unknown> {
  switch (b.type) {
    case 'QUICK_REPLY':
      return { type: 'QUICK_REPLY', text: b.text };
    case 'URL':
      return { type: 'URL', text: b.text, url: b.url };
    case 'PHONE_NUMBER':
      return { type: 'PHONE_NUMBER', text: b.text, phone_number: b.phoneNumber };
    case 'COPY_CODE':
      // Meta labels the button itself ("Copy offer code"): it takes the code's example only.
      return { type: 'COPY_CODE', example: offerCode(b) };
  }
}

/** One of our components as `POST /{waba-id}/message_templates` documents it. */
function componentPayload(c: TemplateComponent): Record<string, unknown> {
  switch (c.type) {
    case 'HEADER':
    case 'BODY': {
      const text = renumber(c.text ?? '');
      const count = new Set(variablesIn(text)).size;
      const example = Array.from({ length: count }, (_, i) => `sample${i + 1}`);
      return {
        type: c.type,
        ...(c.type === 'HEADER' ? { format: 'TEXT' } : {}),
        text,
        ...(count
          ? c.type === 'BODY'
            ? { example: { body_text: [example] } }
            : { example: { header_text: example } }
          : {}),
      };
    }
    case 'FOOTER':
      return { type: 'FOOTER', text: c.text ?? '' };
    case 'BUTTONS':
      return { type: 'BUTTONS', buttons: (c.buttons ?? []).map(buttonPayload) };
  }
}

/** A template as `POST /{waba-id}/message_templates` takes it. */
export function templatePayload(t: {
  name: string;
  language: string;
  category: string;
  components: TemplateComponent[];
}): Record<string, unknown> {
  return {
    name: t.name,
    language: t.language,
    category: t.category,
    components: t.components.map(componentPayload),
  };
}

/** A Graph answer's JSON, or the error it carries (GraphError), or NotGraph. */
function answerOf<T>(res: OutboundResponse): T {
  let json: unknown;
  try {
    json = res.truncated ? null : JSON.parse(res.body.toString('utf8'));
  } catch {
    json = null;
  }
  if (res.status < 200 || res.status >= 300) {
    const error = (
      json as {
        error?: { code?: number; message?: string; error_data?: { details?: string } };
      } | null
    )?.error;
    if (!error || typeof error !== 'object') {
      // A redirect, a proxy's page, another service: not an answer of the Graph API.
      throw new NotGraph(res.status);
    }
    throw new GraphError(
      res.status,
      typeof error.code === 'number' ? error.code : null,
      typeof error.message === 'string' ? error.message : `HTTP ${res.status}`,
      typeof error.error_data?.details === 'string' ? error.error_data.details : null,
    );
  }
  if (json === null || typeof json !== 'object') throw new NotGraph(res.status);
  return json as T;
}

export function cloudApiClient(config: CloudApiConfig) {
  const base = config.graphBaseUrl.replace(/\/+$/, '');

  async function call<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    let res: OutboundResponse;
    try {
      res = await config.outbound.send({
        url: `${base}${path}`,
        method,
        headers: {
          authorization: `Bearer ${config.accessToken}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        allowPrivate: config.allowPrivate,
        keepAlive: true,
        timeoutMs: GRAPH_TIMEOUT_MS,
        maxResponseBytes: MAX_ANSWER_BYTES,
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (e instanceof OutboundError) {
        throw new GraphUnreachable(
          e.message,
          e.failure === 'network' && TLS_FAILURE.test(e.message) ? 'tls' : e.failure,
        );
      }
      throw e;
    }
    return answerOf<T>(res);
  }

  return {
    /** `GET /{media-id}`: the short-lived URL of a received file, with its type, hash and size. */
    async mediaInfo(providerId: string, signal?: AbortSignal): Promise<ProviderMedia> {
      const r = await call<{
        url?: unknown;
        mime_type?: unknown;
        sha256?: unknown;
        file_size?: unknown;
      }>(
        'GET',
        `/${encodeURIComponent(providerId)}?phone_number_id=${encodeURIComponent(config.phoneNumberId)}`,
        undefined,
        signal,
      );
      if (typeof r.url !== 'string') throw new NotGraph(200);
      const size = Number(r.file_size);
      return {
        url: r.url,
        mimeType: typeof r.mime_type === 'string' ? r.mime_type : null,
        sha256: typeof r.sha256 === 'string' ? r.sha256 : null,
        size: r.file_size !== undefined && Number.isFinite(size) ? size : null,
      };
    },

    /**
     * The download of the URL `mediaInfo` gave, with the token (only to Meta's media hosts or
     * the Graph URL's origin), its address resolved and checked now: the media store makes it
     * on its own thread, to that address.
     */
    async downloadTarget(url: string): Promise<PinnedGet> {
      if (!mayCarryToken(url, config.graphBaseUrl)) {
        throw new GraphError(
          200,
          null,
          'the media URL is not one of Meta’s media hosts: the access token is not sent there',
          null,
        );
      }
      try {
        const to = await config.outbound.pin(url, config.allowPrivate);
        return {
          url,
          headers: { authorization: `Bearer ${config.accessToken}` },
          ...to,
          allowPrivate: config.allowPrivate,
          timeoutMs: MEDIA_TRANSFER_TIMEOUT_MS,
        };
      } catch (e) {
        if (e instanceof OutboundError) throw new GraphUnreachable(e.message, e.failure);
        throw e;
      }
    },

    /**
     * `POST /{phone-number-id}/media` (multipart: `messaging_product`, `type`, `file`): the id
     * Meta gives the file, to send it by (valid 30 days).
     */
    async uploadMedia(
      file: { open(): Readable; size: number },
      mimeType: string,
      fileName: string,
      signal?: AbortSignal,
    ): Promise<string> {
      const boundary = `----parley${randomBytes(12).toString('hex')}`;
      const field = (name: string, value: string) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      const safeName = fileName.replace(/["\r\n\\]/g, '_');
      const head = Buffer.from(
        field('messaging_product', 'whatsapp') +
          field('type', mimeType) +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\nContent-Type: ${mimeType}\r\n\r\n`,
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      let res: OutboundResponse;
      try {
        res = await config.outbound.send({
          url: `${base}/${config.phoneNumberId}/media`,
          method: 'POST',
          headers: {
            authorization: `Bearer ${config.accessToken}`,
            accept: 'application/json',
            'content-type': `multipart/form-data; boundary=${boundary}`,
          },
          body: {
            length: head.length + file.size + tail.length,
            open: () =>
              Readable.from(
                (async function* () {
                  yield head;
                  yield* file.open();
                  yield tail;
                })(),
              ),
          },
          allowPrivate: config.allowPrivate,
          keepAlive: true,
          timeoutMs: MEDIA_TRANSFER_TIMEOUT_MS,
          maxResponseBytes: MAX_ANSWER_BYTES,
          ...(signal ? { signal } : {}),
        });
      } catch (e) {
        if (e instanceof OutboundError) throw new GraphUnreachable(e.message, e.failure);
        throw e;
      }
      const r = answerOf<{ id?: unknown }>(res);
      if (typeof r.id !== 'string' || r.id === '') throw new NotGraph(res.status);
      return r.id;
    },

    /** Sends one message; the provider's message id (`wamid.…`). */
    async send(payload: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
      const r = await call<{ messages?: { id: string }[] }>(
        'POST',
        `/${config.phoneNumberId}/messages`,
        payload,
        signal,
      );
      const id = r.messages?.[0]?.id;
      if (!id) throw new GraphError(200, null, 'the answer named no message id', null);
      return id;
    },

    async phoneNumber(signal?: AbortSignal): Promise<PhoneNumberInfo> {
      const r = await call<{
        display_phone_number?: string;
        verified_name?: string;
        quality_rating?: string;
        messaging_limit_tier?: string;
        throughput?: { level?: string };
        id?: string;
      }>(
        'GET',
        `/${config.phoneNumberId}?fields=id,display_phone_number,verified_name,quality_rating,messaging_limit_tier,throughput`,
        undefined,
        signal,
      );
      // The phone number node names itself, or at least its number: anything else is not it.
      if (typeof r.id !== 'string' && typeof r.display_phone_number !== 'string') {
        throw new NotGraph(200);
      }
      return {
        displayPhoneNumber: r.display_phone_number ?? null,
        verifiedName: r.verified_name ?? null,
        qualityRating: r.quality_rating ?? null,
        tier:
          r.messaging_limit_tier !== undefined && r.messaging_limit_tier in TIERS
            ? TIERS[r.messaging_limit_tier]
            : undefined,
        mps: r.throughput?.level ? THROUGHPUT[r.throughput.level] : undefined,
      };
    },

    async createTemplate(
      t: Parameters<typeof templatePayload>[0],
    ): Promise<{ id: string; status: string }> {
      return call('POST', `/${config.wabaId}/message_templates`, templatePayload(t));
    },

    async editTemplate(id: string, components: TemplateComponent[]): Promise<void> {
      const { components: c } = templatePayload({
        name: '',
        language: '',
        category: '',
        components,
      });
      await call('POST', `/${id}`, { components: c });
    },

    async deleteTemplate(name: string): Promise<void> {
      await call('DELETE', `/${config.wabaId}/message_templates?name=${encodeURIComponent(name)}`);
    },

    /** Every template of the account, all pages. */
    async templates(): Promise<ProviderTemplate[]> {
      const out: ProviderTemplate[] = [];
      let after: string | null = null;
      for (let page = 0; page < 100; page++) {
        const r: {
          data: {
            id: string;
            name: string;
            language: string;
            status: string;
            category: string;
            rejected_reason?: string;
          }[];
          paging?: { cursors?: { after?: string }; next?: string };
        } = await call(
          'GET',
          `/${config.wabaId}/message_templates?fields=id,name,language,status,category,rejected_reason&limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        );
        for (const t of r.data) {
          out.push({
            id: t.id,
            name: t.name,
            language: t.language,
            status: t.status,
            category: t.category,
            rejectedReason:
              t.rejected_reason && t.rejected_reason !== 'NONE' ? t.rejected_reason : null,
          });
        }
        after = r.paging?.next ? (r.paging.cursors?.after ?? null) : null;
        if (!after) break;
      }
      return out;
    },
  };
}
export type CloudApiClient = ReturnType<typeof cloudApiClient>;
