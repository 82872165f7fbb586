/**
 * What the storage tests share: reading one /metrics value, an agent whose run ends when the test
 * says, and `sqliteFaults`, the one door to SQLite itself for the tests that need it.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStore } from '../../src/persistence/sqlite/store.js';
import type { Store } from '../../src/persistence/store.js';
import { fixtureAgent, seedAgent, type Harness } from './harness.js';

/** One unlabelled sample from /metrics; undefined when the metric is absent. */
export async function metricValue(baseUrl: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/**
 * A worker on wait-for-release.mjs, woken once. Its session records itself in `<dir>/record` and
 * ends when `release()` is called. `dir` must not be on a volume the test fills.
 */
export async function heldRun(h: Harness, dir: string) {
  const recordDir = join(dir, 'record');
  const releaseFile = join(dir, 'release');
  mkdirSync(recordDir, { recursive: true });
  const { agentId } = await seedAgent(h, {
    executor: fixtureAgent('wait-for-release.mjs', { FIXTURE_RELEASE_FILE: releaseFile, FIXTURE_RECORD_DIR: recordDir }),
  });
  const wake = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'work through the outage' });
  if (wake.status !== 202) throw new Error(`wake failed: ${wake.status} ${JSON.stringify(wake.body)}`);
  const wakeupId = wake.body.wakeup.id as string;
  return {
    agentId,
    wakeupId,
    /** Sessions started so far (each records one file). */
    sessions: () => (existsSync(recordDir) ? readdirSync(recordDir).length : 0),
    release: () => writeFileSync(releaseFile, 'go'),
  };
}

/** Raw SQL on a SQLite database: what `sqliteFaults` hands out. */
export interface SqliteFaults {
  run(sql: string, ...params: unknown[]): void;
  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[];
  get<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T | undefined;
  exec(sql: string): void;
  pragma(statement: string): unknown;
  /** Makes the connection refuse writes (`query_only`) as a read-only file would, or lifts it. */
  setReadOnly(on: boolean): void;
  /** Closes a connection this helper opened on a path; a no-op on a store's own. */
  close(): void;
  /** Closes the store's own connection under it, as a process that dies does: uncommitted work is lost. */
  kill(): void;
}

/**
 * The one door to SQLite for tests that inject SQLite-specific faults or rewrite what is stored
 * behind the store's back: a read-only connection, rows and migration records as an earlier version
 * left them, a crash between commit and acknowledgement, the fuzz write-counting triggers, raw
 * migration and pragma checks. Every other check goes through the port or `Harness.inspect`.
 *
 * Given a store, it uses the store's own connection (it must be the SQLite store); given a path, it
 * opens a connection of its own, which the caller closes.
 */
export function sqliteFaults(target: Store | string): SqliteFaults {
  const own = typeof target === 'string';
  let db: Database.Database;
  if (own) {
    db = new Database(target);
    db.pragma('busy_timeout = 5000');
  } else if (target instanceof SqliteStore) {
    db = target.db;
  } else {
    throw new Error(`sqliteFaults needs the SQLite store, got ${target.constructor.name}: this test injects a SQLite-specific fault`);
  }
  return {
    run: (sql, ...params) => void db.prepare(sql).run(...params),
    all: <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[],
    get: <T>(sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as T | undefined,
    exec: (sql) => void db.exec(sql),
    pragma: (statement) => db.pragma(statement, { simple: true }),
    setReadOnly: (on) => void db.pragma(`query_only = ${on ? 'ON' : 'OFF'}`),
    close: () => { if (own && db.open) db.close(); },
    kill: () => db.close(),
  };
}
