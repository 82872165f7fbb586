/** Workspaces, projects and agents: the statements both backends run. */
import type { Agent, Project, Workspace } from '../../domain/types.js';
import type { AgentRepo, ProjectRepo, WorkspaceRepo } from '../store.js';
import { AGENTS, PROJECTS, WORKSPACES } from '../tables.js';
import type { Dialect, RowTable } from './dialect.js';

export class WorkspacesSql implements WorkspaceRepo {
  private readonly table: RowTable<Workspace>;
  constructor(dialect: Dialect) {
    this.table = dialect.table(WORKSPACES);
  }
  async insert(workspace: Workspace) { await this.table.insert(workspace); }
  async get(id: string) { return this.table.get(id); }
  async update(id: string, patch: Partial<Workspace>) { await this.table.update(id, patch); }
  async list() { return this.table.many('SELECT * FROM workspaces ORDER BY created_at, id'); }
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
  constructor(dialect: Dialect) {
    this.table = dialect.table(AGENTS);
  }
  async insert(agent: Agent) { await this.table.insert(agent); }
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
