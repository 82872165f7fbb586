import { ReplicasSql } from '../sql/replicas.js';
import { sqliteDialect } from './dialect.js';
import type { SqliteConnection } from './connection.js';

/**
 * The shared statements (../sql/replicas.ts) on this backend's connection. SQLite: one process holds
 * the database, so membership is that process; heartbeats exist for the port's sake.
 */
export class SqliteReplicas extends ReplicasSql {
  /** `WHERE true`: without it SQLite's parser would read the upsert's ON CONFLICT as a join's constraint. */
  protected readonly takeOverIds = { column: 'value', from: 'json_each(@ids) WHERE true' };
  constructor(sql: SqliteConnection) { super(sqliteDialect(sql)); }
}
