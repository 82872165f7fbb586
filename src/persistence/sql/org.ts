/** Workspaces, projects and agents: the statements both backends run. */
import type { Agent, Project, Workspace } from '../../domain/types.js';
import type { AgentRepo, ProjectRepo, WorkspaceRepo } from '../store.js';
import { AGENTS, PROJECTS, WORKSPACES } from '../tables.js';
import type { Dialect, RowTable, SqlRunner } from './dialect.js';

/** The workspace of the row's @workspace_id is there and not deleted; share-locked on PostgreSQL, so a deletion waits for the writer (and the writer for it). */
const liveWorkspace = (dialect: Dialect) => `EXISTS (SELECT 1 FROM workspaces WHERE id = @workspace_id AND deleted_at IS NULL${dialect.lock('share')})`;

export class WorkspacesSql implements WorkspaceRepo {
  private readonly table: RowTable<Workspace>;
  private readonly sql: SqlRunner;
  constructor(private readonly dialect: Dialect) {
    this.table = dialect.table(WORKSPACES);
    this.sql = dialect.sql;
  }
  async insert(workspace: Workspace) { await this.table.insert(workspace); }
  async get(id: string) { return this.table.get(id); }
  async update(id: string, patch: Partial<Workspace>) { await this.table.update(id, patch); }
  async list() { return this.table.many('SELECT * FROM workspaces WHERE deleted_at IS NULL ORDER BY created_at, id'); }
  async markDeleted(id: string, at: number) {
    // The lock comes first, in a statement of its own: the guard below then runs after any agent
    // insert holding the row has committed, and READ COMMITTED gives it a snapshot that sees that agent.
    await this.sql.get(`SELECT id FROM workspaces WHERE id = ?${this.dialect.lock('update')}`, [id]);
    return (await this.sql.run(
      `UPDATE workspaces SET deleted_at = @at, updated_at = @at WHERE id = @id AND deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM agent_instances WHERE workspace_id = @id AND deleted_at IS NULL)`, { id, at })).changes > 0;
  }
}

export class ProjectsSql implements ProjectRepo {
  private readonly table: RowTable<Project>;
  constructor(dialect: Dialect) {
    this.table = dialect.table(PROJECTS);
  }
  async insert(project: Project) { await this.table.insert(project); }
  async get(id: string) { return this.table.get(id); }
  async list(workspaceId: string | undefined) {
    return workspaceId
      ? this.table.many('SELECT * FROM projects WHERE workspace_id = ? ORDER BY created_at, id', [workspaceId])
      : this.table.many('SELECT * FROM projects ORDER BY created_at, id LIMIT 1000');
  }
  async update(id: string, patch: Partial<Project>) { await this.table.update(id, patch); }
}

export class AgentsSql implements AgentRepo {
  private readonly table: RowTable<Agent>;
  private readonly workspaceIsLive: string;
  constructor(dialect: Dialect) {
    this.table = dialect.table(AGENTS);
    this.workspaceIsLive = liveWorkspace(dialect);
  }
  async insert(agent: Agent) { return this.table.insertIf(agent, this.workspaceIsLive); }
  async get(id: string) { return this.table.get(id); }
  async list(filter: { workspace_id?: string | undefined }) {
    return filter.workspace_id
      ? this.table.many('SELECT * FROM agent_instances WHERE workspace_id = ? AND deleted_at IS NULL ORDER BY created_at, id', [filter.workspace_id])
      : this.table.many('SELECT * FROM agent_instances WHERE deleted_at IS NULL ORDER BY created_at, id LIMIT 1000');
  }
  async listLive(owner: string) {
    return this.table.many(
      'SELECT a.* FROM agent_instances a JOIN agent_leases l ON l.agent_id = a.id AND l.owner_id = ? WHERE a.deleted_at IS NULL ORDER BY a.created_at, a.id', [owner]);
  }
  async update(id: string, patch: Partial<Agent>) { await this.table.update(id, patch); }

  async coordinatorOf(workspaceId: string) {
    // A ceo outranks a coordinator; among equals the oldest is the one people set up first.
    return this.table.one(
      `SELECT * FROM agent_instances WHERE workspace_id = ? AND role IN ('ceo', 'coordinator') AND deleted_at IS NULL
       ORDER BY CASE role WHEN 'ceo' THEN 0 ELSE 1 END, created_at, id LIMIT 1`, [workspaceId]);
  }
}
