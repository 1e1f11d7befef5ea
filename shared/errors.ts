/**
 * The one error catalog. Every error the API can answer with is listed here with its HTTP
 * status, default message and a description for the reference at /docs. The core throws
 * `ApiError`s naming a code; one handler turns them into the envelope
 * `{ error: { code, message, docs, param?, details? } }`.
 */
export const ERROR_CATALOG = {
  validation_error: {
    status: 400,
    message: 'The request is invalid.',
    description:
      'A field is missing, has the wrong type or breaks a rule. `param` names the field (dot path, e.g. `labels.0`).',
  },
  invalid_json: {
    status: 400,
    message: 'The request body is not valid JSON.',
    description:
      'The body could not be parsed as JSON. Send `Content-Type: application/json` and a JSON body.',
  },
  template_variables_mismatch: {
    status: 400,
    message: 'The variables do not match the template placeholders.',
    description:
      'The `variables` object must have exactly one string value for each placeholder `{{1}}…{{n}}` of the template.',
  },
  list_limits_exceeded: {
    status: 400,
    message: 'The interactive list exceeds its limits.',
    description: 'An interactive list has at most 10 sections and at most 10 rows per section.',
  },
  invalid_api_key: {
    status: 401,
    message: 'API key is missing or invalid',
    description:
      'The `X-API-Key` header is missing, malformed, unknown or revoked. Keys look like `svc_test_…` or `svc_live_…`.',
  },
  invalid_credentials: {
    status: 401,
    message: 'The email or password is not right.',
    description:
      '`POST /login`: no active member signs in with this email and password (the answer never says which was wrong). Repeated failures make sign-in wait: see `rate_limited`.',
  },
  invalid_signature: {
    status: 401,
    message: 'The webhook signature is missing or invalid.',
    description:
      '`POST /channel/webhook`: `X-Hub-Signature-256` must be `sha256=` and the HMAC-SHA256 of the exact body bytes with a connected account’s app secret. Nothing was stored.',
  },
  insufficient_balance: {
    status: 402,
    message: 'The wallet balance is too low for this send.',
    description:
      'A live send costs more than the workspace wallet holds. Top up the wallet; nothing was sent.',
  },
  forbidden: {
    status: 403,
    message: 'This request is not allowed.',
    description:
      'The request is not allowed for these credentials or from this origin: a simulator route with a live key, a dashboard-only action with an API key, or a request whose Host or Origin is not this local server.',
  },
  not_found: {
    status: 404,
    message: 'No such resource.',
    description:
      'The path or the id does not exist in the scope (workspace and environment) of the credentials used.',
  },
  template_not_found: {
    status: 404,
    message: 'No template with this name.',
    description: 'No template has exactly this name. Template names are case-sensitive.',
  },
  method_not_allowed: {
    status: 405,
    message: 'This path does not take this method.',
    description:
      'The path exists but not with this HTTP method. The `Allow` header lists the methods it takes.',
  },
  invalid_state: {
    status: 409,
    message: 'The resource is not in a state that allows this.',
    description:
      'For example editing a launched campaign or revoking a key that is already revoked.',
  },
  idempotency_conflict: {
    status: 409,
    message: 'This Idempotency-Key was used with a different request.',
    description:
      'An `Idempotency-Key` replays the first response for 24 hours; reusing it with a different method, path or body is refused.',
  },
  conversation_changed: {
    status: 409,
    message: 'Someone else answered in this conversation since the message you replied to.',
    description:
      '`POST /conversations/:id/reply` with `basedOnMessageId`: the conversation has a newer outbound message or private note from someone else (another member, the API, a workflow). Nothing was sent. `details.message` is the newest of them, as the API shows messages; read it, then send again with `basedOnMessageId` set to its id ("Send anyway") or drop the reply.',
  },
  payload_too_large: {
    status: 413,
    message: 'The request body is too large.',
    description: 'Bodies are limited to 1 MiB (16 MiB for CSV imports).',
  },
  headers_too_large: {
    status: 431,
    message: 'The request headers are too large.',
    description: 'The request line and headers together exceed the server’s limit (16 KiB).',
  },
  unsupported_media_type: {
    status: 415,
    message: 'Unsupported Content-Type.',
    description: 'Send JSON with `Content-Type: application/json` (CSV imports take `text/csv`).',
  },
  template_not_approved: {
    status: 422,
    message: 'The template is not approved.',
    description: 'Only APPROVED templates can be sent.',
  },
  template_not_ready: {
    status: 422,
    message: 'The template was approved moments ago and is not usable yet.',
    description:
      'A newly approved template becomes usable through the API after the post-approval wait.',
  },
  template_paused: {
    status: 422,
    message: 'The template is paused.',
    description: 'The channel paused this template; it cannot be sent until it is approved again.',
  },
  outside_service_window: {
    status: 422,
    message: 'The 24-hour service window is closed; send a template instead.',
    description:
      'Free text and interactive lists need the contact to have messaged within 24 hours. `details.channelCode` is 131047.',
  },
  recipient_invalid: {
    status: 422,
    message: 'The recipient cannot receive messages.',
    description: 'The phone number is not a valid chat-channel recipient.',
  },
  rate_limited: {
    status: 429,
    message: 'Too many requests.',
    description:
      'The per-key request rate was exceeded. Wait the number of seconds in `Retry-After`.',
  },
  internal_error: {
    status: 500,
    message: 'Something went wrong on our side.',
    description:
      'An unexpected error. Nothing was half-written: the request either happened in full or not at all.',
  },
  channel_error: {
    status: 502,
    message: 'The channel provider refused the message.',
    description:
      'A live send through the WhatsApp Cloud API was refused by Meta for a reason that is not the request’s (an expired access token, code 190, or another provider error). The message is stored as failed and refunded; `details.channelCode` is Meta’s code.',
  },
  service_unavailable: {
    status: 503,
    message: 'The service is shutting down.',
    description: 'The core is stopping; retry against the next running instance.',
  },
  store_busy: {
    status: 503,
    message: 'The data store is busy; retry shortly.',
    description:
      'Another process held the database for longer than the wait allows (SQLite busy). Nothing was written; retry after `Retry-After` seconds.',
  },
  storage_full: {
    status: 507,
    message: 'The disk is full; nothing was written.',
    description:
      'The data store could not grow because the disk (or its quota) is full. Nothing was written: free space, then retry.',
  },
} as const satisfies Record<string, { status: number; message: string; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    docs: string;
    param?: string;
    details?: Record<string, unknown>;
  };
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    options: {
      param?: string;
      details?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message ?? ERROR_CATALOG[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    if (options.param !== undefined) this.param = options.param;
    if (options.details !== undefined) this.details = options.details;
    if (options.headers !== undefined) this.headers = options.headers;
  }
}
