import { ApprovalsSql, CommentsSql, TasksSql } from '../sql/tasks.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/tasks.ts) on this backend's connection. */
export class SqliteTasks extends TasksSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}

export class SqliteComments extends CommentsSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}

export class SqliteApprovals extends ApprovalsSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
