import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorCode } from '../domain/errorCodes.js';
import { InvalidWakeupPayloadError } from '../domain/wakeupSources.js';
import { isStorageUnavailable } from '../persistence/storageUnavailable.js';
import { ServiceError } from '../services/errors.js';

const STATUS_BY_CODE: Record<ServiceError['code'], number> = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
};

/** A hint sent with 503 storage_unavailable: retrying sooner only adds load while a volume is full. */
const STORAGE_RETRY_AFTER_SEC = 5;

export function errorBody(code: ErrorCode, message: string, details?: unknown[]) {
  return { error: { code, message, ...(details && details.length ? { details } : {}) } };
}

/** One mapping from every error to the API's envelope; bad input never becomes a 500. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const details = error.validation.map((issue) => ({
      path: [error.validationContext, ...String(issue.instancePath).split('/').filter(Boolean)].join('.'),
      message: issue.message,
    }));
    return reply.code(400).send(errorBody('validation_error', details.map((d) => `${d.path}: ${d.message}`).join('; '), details));
  }
  if (error instanceof ServiceError) {
    return reply.code(STATUS_BY_CODE[error.code]).send(errorBody(error.code, error.message, error.details));
  }
  if (error instanceof InvalidWakeupPayloadError) {
    return reply.code(400).send(errorBody('validation_error', error.message, error.issues));
  }
  if (isStorageUnavailable(error)) {
    request.log.warn({ err: error }, 'storage unavailable');
    return reply.code(503).header('retry-after', String(STORAGE_RETRY_AFTER_SEC)).send(errorBody('storage_unavailable', error.message));
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return reply.code(413).send(errorBody('payload_too_large', error.message));
  if (status === 415) return reply.code(415).send(errorBody('unsupported_media_type', error.message));
  if (status >= 400 && status < 500) {
    const code = error.code === 'validation_error' ? 'validation_error' : status === 404 ? 'not_found' : 'bad_request';
    return reply.code(status).send(errorBody(code, error.message));
  }
  request.log.error({ err: error }, 'request failed');
  return reply.code(500).send(errorBody('internal_error', 'internal error; see the server log'));
}
