/**
 * The database cannot be written: a full disk, a read-only file or volume, an I/O error. The HTTP
 * layer answers it with 503 `storage_unavailable`, readiness reports it, and the run pipeline keeps
 * a run's outcome in memory until it can be recorded. Dialect-neutral: each store maps its own
 * error codes to it (see sqlite/storageFailure.ts).
 */
export class StorageUnavailableError extends Error {
  constructor(
    /** The store's own code for the failure, e.g. SQLITE_FULL. */
    readonly storageCode: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `the database cannot be written (${storageCode}: ${detail}); free space on its volume or make it writable: ` +
        'writes resume by themselves once one succeeds',
      options,
    );
    this.name = 'StorageUnavailableError';
  }
}

export function isStorageUnavailable(error: unknown): error is StorageUnavailableError {
  return error instanceof StorageUnavailableError;
}

/**
 * How often the scheduler tries writing again while the database cannot be written (the store's
 * probe, a run outcome waiting to be recorded): soon after space is freed, then every 5 s, so an
 * outage costs one small write every 5 s and writing resumes within 5 s of the cause going away.
 */
export const STORAGE_RETRY_STEPS_MS = [250, 500, 1_000, 2_000, 5_000];
