import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface OpenOptions {
  /** NORMAL survives a process crash; FULL also survives power loss, at a write-latency cost. */
  synchronous: 'NORMAL' | 'FULL';
}

/** How long a writer waits on another connection's lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

export function openDatabase(path: string, options: OpenOptions): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`synchronous = ${options.synchronous}`);
  return db;
}
