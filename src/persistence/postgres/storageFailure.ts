import { StorageUnavailableError } from '../storageUnavailable.js';

/**
 * SQLSTATE classes and codes that mean the database cannot take writes, as opposed to a bad
 * statement or a constraint: insufficient resources (53: disk full, out of memory, too many
 * connections), a read-only transaction (25006, a hot standby), the server shutting down or
 * crashed (57P01-57P03), a lost connection (08).
 */
const STORAGE_CLASSES = ['53', '08'];
const STORAGE_CODES = new Set(['25006', '57P01', '57P02', '57P03']);
/** Errors from the socket, before PostgreSQL says anything. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/** The one mapping from a PostgreSQL (or connection) error to StorageUnavailableError; null for any other error. */
export function toStorageUnavailable(error: unknown): StorageUnavailableError | null {
  if (error instanceof StorageUnavailableError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const storage = STORAGE_CODES.has(code) || CONNECTION_CODES.has(code) || (code.length === 5 && STORAGE_CLASSES.includes(code.slice(0, 2)));
  return storage ? new StorageUnavailableError(code, (error as Error).message, { cause: error }) : null;
}
