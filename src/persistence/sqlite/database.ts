import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface OpenOptions {
  /** NORMAL survives a process crash; FULL also survives power loss, at a write-latency cost. */
  synchronous: 'NORMAL' | 'FULL';
}

/** How long a writer waits on another connection's lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Pages after which a commit checkpoints the WAL into the database (about 40 MiB at 4 KiB pages).
 * That checkpoint runs inside the commit that crosses the mark, on the event loop, and syncs both
 * files: at SQLite's default of 1,000 pages a saturated scheduler paid it every dozen commits. Ten
 * times as many pages made P2's measured window 10% shorter in three runs out of three, taken in
 * turn with the default. During a burst a thread checkpoints in the background (checkpointer.ts), so
 * the commit that crosses the mark has little left to copy; the mark still bounds the WAL, and the
 * store truncates it to zero once writes stop (see SqliteStore).
 */
const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * After a checkpoint the WAL is reused from its start but keeps its size on disk; this cuts it back
 * to 64 MiB, so one huge transaction does not hold its space on a small volume for ever. It is above
 * the WAL's size at the autocheckpoint's mark (about 40 MiB) on purpose: SQLite cuts the file when
 * the log starts afresh, inside a commit, and at 4 MiB that cut cost 40-60 ms a restart in a
 * saturated bench. The idle TRUNCATE checkpoint (SqliteStore) still gives the space back.
 */
const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export function openDatabase(path: string, options: OpenOptions): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`synchronous = ${options.synchronous}`);
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
  return db;
}

export interface CheckpointResult {
  /** 1 when a reader or writer kept the checkpoint from finishing. */
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * A TRUNCATE checkpoint that never waits. It runs on the event loop, and the busy timeout would
 * stall every timer, socket and actor for up to BUSY_TIMEOUT_MS while another connection (a backup,
 * the sqlite3 shell) reads an older snapshot; a checkpoint that cannot finish now is tried after the
 * next burst instead.
 */
export function truncateWalWithoutWaiting(db: Database.Database): CheckpointResult | undefined {
  db.pragma('busy_timeout = 0');
  try {
    return db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as CheckpointResult | undefined;
  } finally {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}
