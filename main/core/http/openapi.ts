/**
 * Shapes `/openapi.json` beyond what the zod schemas say: the shared `Error` envelope and every
 * operation's error answers, operation ids, the security schemes, the headers the core reads and
 * writes, the non-JSON media types and the webhook payloads (OpenAPI 3.1 `webhooks`).
 *
 * What is common is derived here from what the HTTP pipeline does to every request (auth, the
 * origin guard, rate limits, body parsing, idempotency); what one operation adds is declared on
 * its route as `config.docs` (or, for routes whose file cannot carry it, in OPERATION_DOCS).
 */
import { can, PUBLIC, RIGHT_ENVIRONMENT } from '../../../shared/permissions.ts';
import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ErrorCode } from '../../../shared/errors.ts';
import { ERROR_CATALOG, ERROR_CODES } from '../../../shared/errors.ts';
import { importResultSchema } from '../../../shared/schemas/contacts.ts';
import type { EventType } from '../../../shared/schemas/events.ts';
import { EVENT_TYPES, eventSchema } from '../../../shared/schemas/events.ts';

/** Request headers an operation may read besides the credentials (see PARAMETERS). */
export type DocumentedHeader = 'X-Parley-Agent' | 'Last-Event-ID';

/** One media type of a request or response body. */
export interface MediaDoc {
  schema: JsonObject;
  example?: unknown;
  /** Named examples (Example Objects), each matching `schema`. */
  examples?: Record<string, { summary?: string; value: unknown }>;
}

/** What the reference says about an operation beyond its zod schemas. */
export interface OperationDocs {
  /** Used where the route's own `schema.operationId` cannot be set (OPERATION_DOCS). */
  operationId?: string;
  /** Codes this operation answers beyond the ones every operation of its kind does. */
  errors?: readonly ErrorCode[];
  headers?: readonly DocumentedHeader[];
  /** Example of the JSON request body. */
  requestExample?: unknown;
  /** Example of the JSON body of the first 2xx response. */
  responseExample?: unknown;
  /** Request media types the zod body schema cannot express (the CSV upload), replacing it. */
  requestMedia?: Record<string, MediaDoc>;
  /** Media types of the first 2xx response besides (or instead of) JSON (streams). */
  responseMedia?: Record<string, MediaDoc>;
  /** The 2xx answer is only `responseMedia` (the event stream has no JSON answer). */
  replaceResponseMedia?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What /openapi.json says about the route beyond its schemas (http/openapi.ts). */
    docs?: OperationDocs;
  }
}

type JsonObject = Record<string, unknown>;

interface MediaObject {
  schema?: JsonObject;
  example?: unknown;
  examples?: Record<string, { $ref: string } | { summary?: string; value: unknown }>;
}

interface ResponseObject {
  description: string;
  headers?: Record<string, JsonObject>;
  content?: Record<string, MediaObject>;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { required?: boolean; description?: string; content: Record<string, MediaObject> };
  responses?: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
  [ROUTE_FACTS]?: RouteFacts;
}

interface Document {
  info?: JsonObject;
  servers?: { url: string; description?: string }[];
  components?: Record<string, Record<string, unknown> | undefined>;
  paths?: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, unknown>;
  security?: Record<string, string[]>[];
}

/** What `transform` learns from a route and `transformObject` needs; removed from the output. */
const ROUTE_FACTS = 'x-parley-route';
interface RouteFacts {
  dashboardOnly: boolean;
  testOnly: boolean;
  docs: OperationDocs;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const BODY_METHODS = new Set(['post', 'put', 'patch']);

/** The example server the reference's examples point at (the CLI's default port). */
const EXAMPLE_BASE = 'http://127.0.0.1:4780';

/**
 * `info.license`: Parley is not published under an open licence (package.json is private and
 * names none); an SPDX `LicenseRef-` says so in the form the document asks for.
 */
const LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

/** Errors any API request can get, whatever the operation. */
const EVERY_OPERATION: readonly ErrorCode[] = [
  // A bad query or header (`?limit=0`, `X-Parley-Environment`, a cursor this API did not give).
  'validation_error',
  'invalid_api_key',
  // The Host/Origin guard runs before anything else.
  'forbidden',
  'rate_limited',
  'headers_too_large',
  'internal_error',
  'service_unavailable',
  'store_busy',
  // Authenticating writes the key's last-used time, so even a read can meet a full disk.
  'storage_full',
];
/** Errors of a request with a body (parsed whatever the operation does with it). */
const WITH_BODY: readonly ErrorCode[] = [
  'invalid_json',
  'payload_too_large',
  'unsupported_media_type',
];
/** What a template send can answer (POST /api/send, a template reply). */
export const TEMPLATE_SEND_ERRORS: readonly ErrorCode[] = [
  'template_not_found',
  'template_variables_mismatch',
  'insufficient_balance',
  'template_not_approved',
  'template_not_ready',
  'template_paused',
  'recipient_invalid',
  'outside_service_window',
  'channel_error',
];

/** Why an operation answers a code, where the catalog's description would not say. */
const WHY: Partial<Record<ErrorCode, string>> = {
  channel_error:
    'live keys on the WhatsApp Cloud API: Meta refused the message (see `details.channelCode`)',
  not_found: 'the id in the path (or one the body names) does not exist in the key’s scope',
  idempotency_conflict: 'the `Idempotency-Key` was used with a different request, or is in use',
  rate_limited: 'wait `Retry-After` seconds',
};

const contactExample = {
  id: 'ct_8Jd2kQ1xZr',
  phone: '+14155552671',
  waUserId: null,
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  labels: ['vip'],
  attributes: { plan: 'pro' },
  createdAt: '2026-01-05T10:00:00.000Z',
  updatedAt: '2026-01-05T10:00:00.000Z',
  lastInboundAt: null,
  emailUnsubscribedAt: null,
};

export const messageExample = {
  id: 'msg_3Fh7LwQ2pN',
  conversationId: 'conv_9Kq2mZ7sT1',
  contactId: 'ct_8Jd2kQ1xZr',
  phone: '+14155552671',
  direction: 'outbound',
  type: 'text',
  templateName: null,
  text: 'Your order has shipped.',
  variables: null,
  status: 'accepted',
  sentBy: 'agent',
  agentId: 'agt_4Tz8pQ1vXy',
  campaignId: null,
  environment: 'test',
  category: 'SERVICE',
  costMicros: 0,
  channelMessageId: 'wamid.HBgLMTQxNTU1NTI2NzE',
  error: null,
  createdAt: '2026-01-05T10:00:00.000Z',
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
};

/** One NDJSON line of `POST /api/contacts/import` with `Accept: application/x-ndjson`. */
const importLineSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('progress'),
    processed: z.number().int().describe('data rows read so far'),
    total: z.number().int().describe('an estimate from Content-Length until the last line'),
  }),
  importResultSchema.extend({ type: z.literal('result') }),
  z.object({
    type: z.literal('error'),
    error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }),
  }),
]);

/**
 * Docs of operations whose route file cannot carry `config.docs` right now (contacts: its
 * routes file is being reworked); keyed by `METHOD /openapi/path`.
 */
const OPERATION_DOCS: Record<string, OperationDocs> = {
  // `group` naming a group that does not exist.
  'GET /api/contacts': { operationId: 'listContacts', errors: ['not_found'] },
  'POST /api/contacts': {
    operationId: 'upsertContact',
    requestExample: {
      phone: '+14155552671',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      labels: ['vip'],
      attributes: { plan: 'pro' },
    },
    responseExample: contactExample,
  },
  'GET /api/contacts/groups': { operationId: 'listContactGroups' },
  'POST /api/contacts/groups': {
    operationId: 'createContactGroup',
    // `contactIds` naming a contact that does not exist.
    errors: ['not_found'],
  },
  'GET /api/contacts/groups/{id}': { operationId: 'getContactGroup' },
  'POST /api/contacts/groups/{id}/members': { operationId: 'addContactGroupMembers' },
  'POST /api/contacts/import': {
    operationId: 'importContacts',
    // `groupId` naming a group that does not exist.
    errors: ['not_found'],
    requestMedia: {
      'text/csv': {
        schema: { type: 'string', contentMediaType: 'text/csv', maxLength: 16 * 1024 * 1024 },
        example:
          'phone,First Name,Last Name,email,labels\n+14155552671,Ada,Lovelace,ada@example.com,vip;beta\n',
      },
      'application/csv': { schema: { type: 'string', contentMediaType: 'text/csv' } },
    },
    responseMedia: {
      // The schema and the examples are of one line: OpenAPI 3.1 has no way to say "a sequence
      // of" (3.2's `itemSchema`), and an example must match the schema it sits under.
      'application/x-ndjson': {
        schema: toJsonSchema(importLineSchema),
        examples: {
          progress: {
            summary: 'A progress line',
            value: { type: 'progress', processed: 1, total: 1 },
          },
          result: {
            summary: 'The last line when the import ran',
            value: { type: 'result', total: 1, created: 1, updated: 0, failed: 0, errors: [] },
          },
          error: {
            summary: 'The last line when the import stopped',
            value: {
              type: 'error',
              error: {
                code: 'payload_too_large',
                message: ERROR_CATALOG.payload_too_large.message,
              },
            },
          },
        },
      },
    },
  },
  'GET /api/contacts/{id}': { operationId: 'getContact' },
  'PATCH /api/contacts/{id}': { operationId: 'updateContact' },
};

/** A zod schema as the document's JSON Schema (2020-12, as fastify-type-provider-zod does). */
function toJsonSchema(schema: z.ZodType): JsonObject {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as JsonObject;
  delete json.$schema;
  return json;
}

const errorRef = { $ref: '#/components/schemas/Error' };

export function errorExample(code: ErrorCode, base = EXAMPLE_BASE) {
  return {
    error: {
      code,
      message: ERROR_CATALOG[code].message,
      docs: `${base}/docs#${code}`,
      ...(code === 'validation_error' ? { param: 'phone' } : {}),
      ...(code === 'outside_service_window' ? { details: { channelCode: 131047 } } : {}),
    },
  };
}

/** `components.schemas.Error`: the one envelope of every error answer, from the catalog. */
function errorSchema(): JsonObject {
  return {
    type: 'object',
    description:
      'Every error answer. `code` is one of the catalog’s codes (see /docs#errors); `docs` links to its entry.',
    properties: {
      error: {
        type: 'object',
        properties: {
          code: { type: 'string', enum: [...ERROR_CODES] },
          message: { type: 'string', description: 'for people; may change, match on `code`' },
          docs: { type: 'string', format: 'uri', description: 'this server’s /docs#<code>' },
          param: {
            type: 'string',
            description: 'the field, query parameter or header at fault (dot path)',
          },
          details: { type: 'object', additionalProperties: true },
        },
        required: ['code', 'message', 'docs'],
        additionalProperties: false,
      },
    },
    required: ['error'],
    additionalProperties: false,
    example: errorExample('validation_error'),
  };
}

const PARAMETERS: Record<string, JsonObject> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Replays the first response of this key for 24 hours (with `Idempotent-Replayed: true`); the same key with a different request answers 409 `idempotency_conflict`.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
    example: 'order-1042-confirmation',
  },
  LastEventId: {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description:
      'Resume after this event sequence number (the `id:` of the last event received); EventSource sends it on reconnect.',
    schema: { type: 'string', pattern: '^\\d{1,15}$' },
    example: '1042',
  },
  ParleyAgent: {
    name: 'X-Parley-Agent',
    in: 'header',
    required: false,
    description:
      'The agent acting (an agent id): `assignee=me` resolves to it, and an agent reply is signed by it.',
    schema: { type: 'string', maxLength: 100 },
    example: 'agt_4Tz8pQ1vXy',
  },
};
const HEADER_PARAMETER: Record<DocumentedHeader, string> = {
  'X-Parley-Agent': 'ParleyAgent',
  'Last-Event-ID': 'LastEventId',
};

const HEADERS: Record<string, JsonObject> = {
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 1 },
    example: 1,
  },
  RateLimitPolicy: {
    description:
      'The quota (draft-ietf-httpapi-ratelimit-headers): `"<policy>";q=<burst>;w=<seconds to refill>`.',
    schema: { type: 'string' },
    example: '"api-key";q=200;w=2',
  },
  RateLimit: {
    description:
      'The bucket now: `"<policy>";r=<remaining>;t=<seconds until a request is allowed>`.',
    schema: { type: 'string' },
    example: '"api-key";r=0;t=1',
  },
  IdempotentReplayed: {
    description: '`true` when this answer is the stored first response of the `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
};

interface ApiKeyScheme {
  type: 'apiKey';
  in: 'header' | 'cookie';
  name: string;
  description: string;
}

const SECURITY_SCHEMES = (cookieName: string): Record<string, ApiKeyScheme> => ({
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      '`svc_test_…` (test environment: simulated, never charged) or `svc_live_…`. Create keys in the app (Settings → API keys).',
  },
  session: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Parley-Session',
    description:
      'The desktop app’s per-launch session token (never shown). It may call every operation, including the dashboard-only ones; `X-Parley-Environment: test|live` and `X-Parley-Workspace` choose the scope.',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: cookieName,
    description:
      'The browser session of `parley serve`, set by its sign-in link (`/login?token=…`). The cookie’s name carries the port (`parley_session_<port>`) so two servers on one machine keep apart. Same powers as `session`.',
  },
});
const SESSION_ONLY: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];

/** `listWebhookDeliveries`-style id for a route that did not name itself. */
function derivedOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith('{') ? `by ${part.slice(1, -1)}` : part))
    .join(' ')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return [method, ...words]
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1)))
    .join('');
}

/** `message.received` → `onMessageReceived`. */
const webhookOperationId = (type: string) =>
  'on' +
  type
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

function describeCodes(codes: readonly ErrorCode[], facts: RouteFacts | undefined): string {
  return codes
    .map((code) => {
      let why = WHY[code] ?? ERROR_CATALOG[code].description;
      if (code === 'forbidden' && facts?.dashboardOnly) {
        why = `an API key (this is dashboard-only), or ${why}`;
      } else if (code === 'forbidden' && facts?.testOnly) {
        why = `a live key (this route is for test keys), or ${why}`;
      }
      return `- \`${code}\` — ${why}`;
    })
    .join('\n');
}

/** The error responses of an operation, one per status, every code with an example. */
function errorResponses(codes: readonly ErrorCode[], facts: RouteFacts | undefined) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ERROR_CODES) {
    if (!codes.includes(code)) continue;
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, ResponseObject> = {};
  for (const [status, list] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    const headers: Record<string, JsonObject> = {};
    if (status === 429 || status === 503) {
      headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    }
    if (status === 429) {
      headers['RateLimit-Policy'] = { $ref: '#/components/headers/RateLimitPolicy' };
      headers.RateLimit = { $ref: '#/components/headers/RateLimit' };
    }
    out[String(status)] = {
      description: describeCodes(list, facts),
      ...(Object.keys(headers).length ? { headers } : {}),
      content: {
        'application/json': {
          schema: errorRef,
          // One example per code: the checker in test/ reads them as the codes a status may carry.
          examples: Object.fromEntries(
            list.map((code) => [code, { $ref: `#/components/examples/${code}` }]),
          ),
        },
      },
    };
  }
  return out;
}

function shapeOperation(method: string, path: string, op: Operation, ids: Set<string>) {
  const facts = op[ROUTE_FACTS];
  delete op[ROUTE_FACTS];
  const docs: OperationDocs = {
    ...OPERATION_DOCS[`${method.toUpperCase()} ${path}`],
    ...facts?.docs,
  };

  op.operationId ??= docs.operationId ?? derivedOperationId(method, path);
  if (ids.has(op.operationId)) {
    throw new Error(`openapi: operationId ${op.operationId} is used twice (${method} ${path})`);
  }
  ids.add(op.operationId);
  if (facts?.dashboardOnly) {
    op.security = SESSION_ONLY;
    op.description = [op.description, 'Dashboard only: the Parley app’s session, not an API key.']
      .filter(Boolean)
      .join('\n\n');
  }

  const parameters = op.parameters ?? [];
  const refs: string[] = [];
  if (method === 'post') refs.push('IdempotencyKey');
  for (const h of docs.headers ?? []) refs.push(HEADER_PARAMETER[h]);
  for (const name of refs) parameters.push({ $ref: `#/components/parameters/${name}` } as never);
  if (parameters.length) op.parameters = parameters;

  if (docs.requestMedia) {
    op.requestBody = { required: true, content: { ...docs.requestMedia } };
  }
  const requestJson = op.requestBody?.content['application/json'];
  if (requestJson && docs.requestExample !== undefined) requestJson.example = docs.requestExample;

  const responses = op.responses ?? {};
  const okStatus = Object.keys(responses).find((s) => s.startsWith('2'));
  const ok = okStatus ? responses[okStatus] : undefined;
  for (const [status, response] of Object.entries(responses)) {
    if (!status.startsWith('2')) continue;
    if (response.description === 'Default Response') response.description = 'Success';
    if (method === 'post') {
      response.headers = {
        ...response.headers,
        'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' },
      };
    }
  }
  if (ok) {
    const json = ok.content?.['application/json'];
    if (json && docs.responseExample !== undefined) json.example = docs.responseExample;
    if (docs.responseMedia) {
      ok.content = {
        ...(docs.replaceResponseMedia ? {} : ok.content),
        ...docs.responseMedia,
      };
    }
  }

  const hasPathParams = parameters.some((p) => p.in === 'path');
  const codes = new Set<ErrorCode>([
    ...EVERY_OPERATION,
    ...(BODY_METHODS.has(method) ? WITH_BODY : []),
    ...(method === 'post' ? (['idempotency_conflict'] as const) : []),
    ...(hasPathParams ? (['not_found'] as const) : []),
    ...(docs.errors ?? []),
  ]);
  op.responses = { ...responses, ...errorResponses([...codes], facts) };
}

function webhookItem(type: EventType): JsonObject {
  const header = (name: string, description: string, example: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
    example,
  });
  const example = {
    id: 'evt_7Rk2pX9mQa',
    type,
    createdAt: '2026-01-05T10:00:00.000Z',
    workspaceId: 'ws_1Hq8nV3cLd',
    environment: 'test',
    data: type.startsWith('message.') ? { message: messageExample } : {},
  };
  return {
    post: {
      operationId: webhookOperationId(type),
      summary: `The \`${type}\` event, POSTed to every webhook subscribed to it`,
      description:
        'Verify `X-Parley-Signature` (or the Standard Webhooks headers) before trusting the body; dedupe by the event id. Any 2xx within 10 s acknowledges; anything else is retried with exponential backoff and jitter for up to 3 days.',
      tags: ['Webhooks'],
      parameters: [
        header(
          'X-Parley-Signature',
          '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`',
          't=1767607200,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
        ),
        header('X-Parley-Event-Id', 'The event id: the same on every retry.', example.id),
        header('X-Parley-Event-Type', 'The event type.', type),
        header('X-Parley-Delivery-Id', 'This delivery (a webhook and an event).', 'dlv_2Nc6sB8wEe'),
        header('webhook-id', 'Standard Webhooks: the event id.', example.id),
        header('webhook-timestamp', 'Standard Webhooks: unix seconds.', '1767607200'),
        header(
          'webhook-signature',
          'Standard Webhooks: `v1,<base64 HMAC-SHA256>` with the same `whsec_` secret.',
          'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
        ),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              allOf: [
                { $ref: '#/components/schemas/Event' },
                { type: 'object', properties: { type: { const: type } } },
              ],
            },
            example,
          },
        },
      },
      responses: {
        '2XX': { description: 'Received: the delivery is done.' },
        default: { description: 'Not received: the delivery is retried later.' },
      },
    },
  };
}

/**
 * `GET /login`: session.ts registers it as a page (hidden from the API's routes), but it is
 * how a browser gets the `sessionCookie`, and it answers like the API when refused.
 */
function signInItem(): JsonObject {
  const errors = errorResponses(
    ['forbidden', 'rate_limited', 'headers_too_large', 'internal_error', 'service_unavailable'],
    undefined,
  );
  const refused = errors['403']!;
  refused.description = `${refused.description}\n- an HTML page when the sign-in link is wrong, used or expired`;
  refused.content = {
    'text/html': { schema: { type: 'string' } },
    ...refused.content,
  };
  return {
    get: {
      operationId: 'signInWithLink',
      summary: 'Sign a browser in as the desk’s owner with the link `parley serve` printed',
      description:
        'Single use, valid 10 minutes: opens an ordinary session (HttpOnly, SameSite=Strict cookie) and redirects to the app. Opened on 127.0.0.1 or localhost, it first redirects to the UI’s own host name `p<PORT>.localhost` (the link is not spent), so the cookie never reaches another server on a loopback port. `parley login-url` mints a new link.',
      tags: ['Members'],
      security: [],
      parameters: [
        {
          name: 'token',
          in: 'query',
          required: true,
          description: 'The one-use sign-in token.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '303': {
          description: 'Signed in: the cookie is set and the browser goes to `/`.',
          headers: {
            'Set-Cookie': { schema: { type: 'string' } },
            Location: { schema: { type: 'string', const: '/' } },
          },
        },
        ...errors,
      },
    },
  };
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null;

/**
 * `z.unknown().nullable()` becomes `anyOf: [{}, {type: 'null'}]`: a union with a branch that
 * matches anything is that branch, so the union goes (its annotations stay).
 */
function dropAnyBranches(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropAnyBranches(item);
    return;
  }
  if (!isObject(node)) return;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches) && branches.some((b) => isObject(b) && !Object.keys(b).length)) {
      delete node[keyword];
    }
  }
  for (const value of Object.values(node)) dropAnyBranches(value);
}

/** Every `$ref` below a node. */
function collectRefs(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, into);
  } else if (isObject(node)) {
    if (typeof node.$ref === 'string') into.add(node.$ref);
    for (const value of Object.values(node)) collectRefs(value, into);
  }
}

/**
 * Components nothing refers to (the example of a code no documented operation answers, a
 * schema only an unused one named) are left out; security schemes are named, not referenced.
 */
function dropUnusedComponents(doc: Document): void {
  const components = doc.components ?? {};
  for (let dropped = true; dropped;) {
    dropped = false;
    const refs = new Set<string>();
    collectRefs({ ...doc, components: { ...components, securitySchemes: undefined } }, refs);
    for (const [section, entries] of Object.entries(components)) {
      if (section === 'securitySchemes' || !entries) continue;
      for (const name of Object.keys(entries)) {
        if (refs.has(`#/components/${section}/${name}`)) continue;
        delete entries[name];
        dropped = true;
      }
    }
  }
}

/** Swagger options for app.ts: the document's frame plus the transforms that shape it. */
export function openapiOptions(opts: {
  version: string;
  port: () => number | null;
  /** `parley serve`'s browser sign-in (`GET /login`) is on. */
  browserSignIn: boolean;
}): FastifyDynamicSwaggerOptions {
  const transform: SwaggerTransform = (args) => {
    const out = jsonSchemaTransform(args as Parameters<typeof jsonSchemaTransform>[0]);
    const config = args.route.config ?? {};
    const facts: RouteFacts = {
      // From the route's right (shared/permissions.ts): who is refused, and where.
      dashboardOnly:
        config.right !== undefined && config.right !== PUBLIC && !can('api_key', config.right),
      testOnly:
        config.right !== undefined &&
        config.right !== PUBLIC &&
        RIGHT_ENVIRONMENT[config.right] === 'test',
      docs: config.docs ?? {},
    };
    // Keys starting with `x-` are copied onto the operation, where transformObject picks it up.
    return { ...out, schema: { ...out.schema, [ROUTE_FACTS]: facts } as FastifySchema };
  };

  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: opts.version,
        description:
          'The localhost API of Parley’s service core. Authenticate with `X-API-Key: svc_test_…` (test: simulated, never charges) or `svc_live_…`. Errors: `{ "error": { code, message, docs, param?, details? } }` — see /docs for every code.',
        license: LICENSE,
      },
      // Swagger reads these while building operations; transformObject names the cookie's port.
      components: { securitySchemes: SECURITY_SCHEMES('parley_session') },
      security: [{ apiKey: [] }, ...SESSION_ONLY],
    },
    transform,
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const { openapiObject } = documentObject;
      const doc = openapiObject as unknown as Document;
      const port = opts.port();
      // This server, as the Host guard accepts it and as the errors' `docs` links name it.
      doc.servers = [
        {
          url: port === null ? EXAMPLE_BASE : `http://127.0.0.1:${port}`,
          description: 'This Parley core (it listens on loopback only)',
        },
      ];
      const components = (doc.components ??= {});
      components.securitySchemes = SECURITY_SCHEMES(
        port === null ? 'parley_session' : `parley_session_${port}`,
      );
      components.schemas = {
        ...components.schemas,
        Error: errorSchema(),
        Event: toJsonSchema(eventSchema),
      };
      components.parameters = { ...components.parameters, ...PARAMETERS };
      components.examples = Object.fromEntries(
        ERROR_CODES.map((code) => [
          code,
          { summary: ERROR_CATALOG[code].message, value: errorExample(code) },
        ]),
      );
      components.headers = { ...components.headers, ...HEADERS };
      const ids = new Set<string>();
      for (const [path, item] of Object.entries(doc.paths ?? {})) {
        for (const [method, op] of Object.entries(item)) {
          if (HTTP_METHODS.has(method)) shapeOperation(method, path, op, ids);
        }
      }
      if (opts.browserSignIn) {
        doc.paths = {
          ...doc.paths,
          '/login': { ...(doc.paths?.['/login'] ?? {}), ...signInItem() } as never,
        };
      }
      doc.webhooks = Object.fromEntries(EVENT_TYPES.map((t) => [t, webhookItem(t)]));
      dropAnyBranches(doc);
      dropUnusedComponents(doc);
      return openapiObject;
    },
  };
}
