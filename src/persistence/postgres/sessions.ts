import { SessionsSql } from '../sql/sessions.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/sessions.ts) on this backend's connection. */
export class PgSessions extends SessionsSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
