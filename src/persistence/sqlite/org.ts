import { AgentsSql, ProjectsSql, WorkspacesSql } from '../sql/org.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/org.ts) on this backend's connection. */
export class SqliteWorkspaces extends WorkspacesSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}

export class SqliteProjects extends ProjectsSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}

export class SqliteAgents extends AgentsSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
