import { ActivitySql, InboxSql } from '../sql/activity.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/activity.ts) on this backend's connection. */
export class PgActivity extends ActivitySql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}

export class PgInbox extends InboxSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
