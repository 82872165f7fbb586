import { ActivitySql, InboxSql } from '../sql/activity.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/activity.ts) on this backend's connection. */
export class SqliteActivity extends ActivitySql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}

export class SqliteInbox extends InboxSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
