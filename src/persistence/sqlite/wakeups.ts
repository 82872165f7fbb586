import { WakeupsSql } from '../sql/wakeups.js';
import { sqliteDialect } from './dialect.js';
import type { SqliteConnection } from './connection.js';

/** Appends the wake `@entry` to a context's list, in SQL, so two folds never overwrite each other. */
const APPEND_WAKE = `CASE WHEN json_type(context_snapshot, '$.wakes') = 'array'
  THEN json_insert(context_snapshot, '$.wakes[#]', json(@entry))
  ELSE json_set(context_snapshot, '$.wakes', json_array(json(@entry))) END`;

/** The shared statements (../sql/wakeups.ts) on this backend's connection, with SQLite's JSON functions for a fold's wake. */
export class SqliteWakeups extends WakeupsSql {
  constructor(sql: SqliteConnection) { super(sqliteDialect(sql), APPEND_WAKE); }
}
