import Database from 'better-sqlite3';
import { StorageUnavailableError } from '../storageUnavailable.js';

/**
 * SQLite result codes (better-sqlite3 reports the extended ones, e.g. SQLITE_IOERR_WRITE) that mean
 * the file cannot be written, as opposed to a bad statement or a constraint: a full disk, a
 * read-only file or volume, an I/O error, a journal or WAL file that cannot be opened.
 */
const STORAGE_CODE_FAMILIES = ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN'];

/** The one mapping from a SQLite error to StorageUnavailableError; null for any other error. */
export function toStorageUnavailable(error: unknown): StorageUnavailableError | null {
  if (error instanceof StorageUnavailableError) return error;
  if (!(error instanceof Database.SqliteError)) return null;
  const code = error.code;
  const storage = STORAGE_CODE_FAMILIES.some((family) => code === family || code.startsWith(`${family}_`));
  return storage ? new StorageUnavailableError(code, error.message, { cause: error }) : null;
}
