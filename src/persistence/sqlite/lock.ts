import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * One scheduler process per database file. Boot recovery marks every running run `interrupted`;
 * a second process doing that to a live one would double work, so it refuses to start instead.
 *
 * The lock is an exclusive lock on a companion SQLite file (`<db>-lock`), held open for the life of
 * the process. It is a POSIX record lock, so the kernel drops it the moment its holder dies, however
 * it dies: no pid to check, so neither a zombie nor a reused pid can keep a restart out.
 *
 * Within one process the lock is shared: a process cannot lock a file against itself, and an
 * embedding (or a test) may open a second scheduler on the file after abandoning the first.
 */
export class DatabaseLockedError extends Error {
  override name = 'DatabaseLockedError';
}

/**
 * How long a start waits for the lock. A killed predecessor's lock goes when the kernel has torn the
 * process down, which can lag the SIGKILL a little; a live scheduler holds it far longer than this.
 */
export const LOCK_WAIT_MS = 3_000;

export function lockPathOf(dbPath: string): string {
  return `${dbPath}-lock`;
}

/** The locks this process holds, by lock file, with how many stores share each. */
const held = new Map<string, { lock: Database.Database; holders: number }>();

export function acquireDatabaseLock(dbPath: string, waitMs: number = LOCK_WAIT_MS): () => void {
  if (dbPath === ':memory:') return () => undefined;
  const lockPath = resolve(lockPathOf(dbPath));
  const entry = held.get(lockPath) ?? { lock: lockFile(dbPath, lockPath, waitMs), holders: 0 };
  held.set(lockPath, entry);
  entry.holders++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--entry.holders > 0) return;
    held.delete(lockPath);
    if (entry.lock.open) entry.lock.close();
  };
}

function lockFile(dbPath: string, lockPath: string, waitMs: number): Database.Database {
  mkdirSync(dirname(lockPath), { recursive: true });
  const lock = new Database(lockPath);
  try {
    lock.pragma(`busy_timeout = ${Math.max(0, Math.round(waitMs))}`);
    // EXCLUSIVE locking mode keeps every lock taken until the connection closes; the write below takes
    // the strongest one. No journal file: there is nothing in this database worth a rollback.
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.pragma('journal_mode = MEMORY');
    lock.exec(`BEGIN EXCLUSIVE;
      CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, locked_at INTEGER NOT NULL);
      DELETE FROM holder;
      INSERT INTO holder (pid, locked_at) VALUES (${process.pid}, ${Date.now()});
      COMMIT;`);
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new DatabaseLockedError(
        `${dbPath}: database is locked by another process (another Office Scheduler holds ${lockPath}; waited ${waitMs} ms). `
        + 'Stop that scheduler first, or set OFFICE_DB to another file.',
      );
    }
    throw error;
  }
  removeLegacyPidFile(dbPath);
  return lock;
}

/**
 * The lock of earlier versions was a pid file, `<db>.lock`, which a crash could leave behind naming
 * a pid that is now someone else's. It no longer means anything; once the real lock is ours it goes.
 */
function removeLegacyPidFile(dbPath: string): void {
  const legacy = `${dbPath}.lock`;
  try {
    if (/^\d*$/.test(readFileSync(legacy, 'utf8').trim())) rmSync(legacy, { force: true });
  } catch {
    // None there, or not readable: either way it does not matter.
  }
}
