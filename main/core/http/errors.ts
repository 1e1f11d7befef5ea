import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorBody, ErrorCode } from '../../../shared/errors.ts';
import { ApiError, ERROR_CATALOG } from '../../../shared/errors.ts';

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
};

/** Turns whatever was thrown into an ApiError from the catalog. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
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
