import { SessionsSql } from '../sql/sessions.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/sessions.ts) on this backend's connection. */
export class SqliteSessions extends SessionsSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
