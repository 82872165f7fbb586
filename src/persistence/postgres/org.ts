import { AgentsSql, ProjectsSql, WorkspacesSql } from '../sql/org.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/org.ts) on this backend's connection. */
export class PgWorkspaces extends WorkspacesSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}

export class PgProjects extends ProjectsSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}

export class PgAgents extends AgentsSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
