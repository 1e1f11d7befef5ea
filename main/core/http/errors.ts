import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorBody, ErrorCode } from '../../../shared/errors.ts';
import { ApiError, ERROR_CATALOG } from '../../../shared/errors.ts';
import { DataKeyUnavailable } from '../secrets.ts';

export interface DocsLocator {
  /** Absolute base URL of this server (e.g. http://127.0.0.1:4780), or null before listening. */
  baseUrl(request: FastifyRequest): string;
}

export function docsUrl(base: string, code: ErrorCode): string {
  return `${base}/docs#${code}`;
}

export function errorBody(base: string, err: ApiError): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      docs: docsUrl(base, err.code),
      ...(err.param !== undefined ? { param: err.param } : {}),
      ...(err.details !== undefined ? { details: err.details } : {}),
    },
  };
}

const FRAMEWORK_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_error',
  FST_ERR_BAD_URL: 'validation_error',
};

/** Any other 4xx a framework layer raises, by status, so no answer escapes the envelope. */
const BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_error',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
};

/** SQLite's answers that are the machine's state, not a bug: said as such, with what to do. */
function storeError(code: string): ApiError | null {
  if (code === 'SQLITE_FULL') return new ApiError('storage_full');
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new ApiError('store_busy', undefined, { headers: { 'retry-after': '1' } });
  }
  return null;
}

/** Turns whatever was thrown into an ApiError from the catalog. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // `parley serve` on a data dir whose data key only the desktop's keychain opens.
  if (error instanceof DataKeyUnavailable) {
    return new ApiError(
      'service_unavailable',
      `${error.message}: provider secrets cannot be saved or used by this process`,
    );
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0]!;
    const path = first.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
    const where = (error as { validationContext?: string }).validationContext ?? 'body';
    const param = path || where;
    // Our schema messages usually name the field already ("name is required").
    const field = param.split('.').pop()!;
    const text = first.message ?? 'is invalid';
    const message = text.startsWith(field) ? text : `${param}: ${text}`;
    return new ApiError('validation_error', message, { param });
  }
  const fe = error as FastifyError;
  if (fe && typeof fe.code === 'string' && FRAMEWORK_CODES[fe.code]) {
    const code = FRAMEWORK_CODES[fe.code]!;
    return new ApiError(
      code,
      code === 'invalid_json' ? `The request body is not valid JSON: ${fe.message}` : undefined,
    );
  }
  if (fe instanceof SyntaxError && fe.statusCode === 400) return new ApiError('invalid_json');
  if (fe && typeof fe.code === 'string') {
    const stored = storeError(fe.code);
    if (stored) return stored;
  }
  const status = fe?.statusCode;
  if (typeof status === 'number' && BY_STATUS[status]) {
    return new ApiError(BY_STATUS[status]!, status === 400 ? fe.message : undefined);
  }
  // Any other client error a plugin raises (e.g. 416 from a bad Range): still the envelope.
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError('validation_error', fe.message);
  }
  return new ApiError('internal_error');
}

export function registerErrorHandling(
  app: FastifyInstance,
  docs: DocsLocator,
  log: (e: unknown) => void,
) {
  app.setErrorHandler((error, request, reply) => {
    const err = toApiError(error);
    if (err.code === 'internal_error') log(error);
    sendError(reply, docs.baseUrl(request), err);
  });
}

export function sendError(reply: FastifyReply, base: string, err: ApiError) {
  if (err.headers) reply.headers(err.headers);
  reply.code(ERROR_CATALOG[err.code].status).type('application/json').send(errorBody(base, err));
}

/**
 * Which methods each route path takes, so a known path with the wrong method answers 405 with
 * `Allow` instead of 404. Fed by an onRoute hook; paths are matched as templates (`:id` = one
 * segment).
 */
export function createMethodIndex() {
  const routes: { pattern: RegExp; method: string }[] = [];
  const toPattern = (url: string) =>
    new RegExp(
      `^${url
        .split('/')
        .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')}/?$`,
    );
  return {
    add(method: string | string[], url: string) {
      for (const m of Array.isArray(method) ? method : [method]) {
        routes.push({ pattern: toPattern(url), method: m.toUpperCase() });
      }
    },
    allowed(path: string): string[] {
      return [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    },
  };
}

/** The envelope for errors Node's HTTP parser raises before Fastify sees a request. */
export function clientErrorResponse(base: string, err: NodeJS.ErrnoException): string {
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const apiError = tooLarge
    ? new ApiError('headers_too_large')
    : new ApiError(
        'validation_error',
        `The request is not valid HTTP (${err.code ?? 'bad framing'}).`,
      );
  const body = JSON.stringify(errorBody(base, apiError));
  const status = ERROR_CATALOG[apiError.code].status;
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
