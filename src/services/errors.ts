import type { ErrorCode } from '../domain/errorCodes.js';

/** Typed service errors; the HTTP layer maps each to its status and the API's error envelope. */
export class ServiceError extends Error {
  constructor(
    /** The codes of the catalogue (domain/errorCodes.ts) a service throws. */
    readonly code: Extract<ErrorCode, 'validation_error' | 'not_found' | 'conflict' | 'forbidden' | 'unauthorized'>,
    message: string,
    readonly details: { path: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const notFound = (resource: string, id: string) =>
  new ServiceError('not_found', `${resource} '${id}' was not found`);

export const invalid = (path: string, message: string) =>
  new ServiceError('validation_error', `${path}: ${message}`, [{ path, message }]);

export const conflict = (message: string) => new ServiceError('conflict', message);

export const forbidden = (message: string) => new ServiceError('forbidden', message);
