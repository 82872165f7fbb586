/** Workspaces, projects and agents: the statements both backends run. */
import type { Agent, Project, Workspace } from '../../domain/types.js';
import type { AgentFields, AgentRepo, ProjectRepo, WorkspaceRepo } from '../store.js';
import { AGENTS, PROJECTS, WORKSPACES } from '../tables.js';
import type { Dialect, RowTable } from './dialect.js';

export class WorkspacesSql implements WorkspaceRepo {
  private readonly table: RowTable<Workspace>;
  constructor(dialect: Dialect) {
    this.table = dialect.table(WORKSPACES);
  }
  async insert(workspace: Workspace) { await this.table.insert(workspace); }
  async get(id: string) { return this.table.get(id); }
  async edit(id: string, fields: Partial<Workspace>) { return this.table.transition(id, { patch: fields }, 'TRUE'); }
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
  async edit(id: string, fields: Partial<Project>) { return this.table.transition(id, { patch: fields }, 'TRUE'); }
}

/** An agent that was not deleted: the one every transition of an agent expects. */
const LIVE = 'deleted_at IS NULL';

export class AgentsSql implements AgentRepo {
  private readonly table: RowTable<Agent>;
  constructor(private readonly dialect: Dialect) {
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
  async edit(id: string, fields: AgentFields) { return this.table.transition(id, { patch: fields }, LIVE); }

  async pause(id: string, reason: string, at: number) {
    return this.table.transition(id, { patch: { status: 'paused', paused_reason: reason, updated_at: at } }, `${LIVE} AND status <> 'paused'`);
  }

  async resume(id: string, at: number) {
    return this.table.transition(id, { patch: { status: 'idle', paused_reason: null, updated_at: at } }, `${LIVE} AND status IN ('paused', 'stopped')`);
  }

  async stop(id: string, at: number) {
    return this.table.transition(id, { patch: { status: 'stopped', updated_at: at } }, `${LIVE} AND status <> 'stopped'`);
  }

  async markDeleted(id: string, at: number) {
    return this.table.transition(id, { patch: { deleted_at: at, status: 'stopped', updated_at: at } }, LIVE);
  }

  async idleLeftWorking(owner: string, agentIds: readonly string[] | null) {
    // Recovery runs after every open run of these agents was closed: none of them still works.
    const changed = await this.dialect.sql.run(
      `UPDATE agent_instances SET status = 'idle' WHERE status = 'working' AND deleted_at IS NULL
         AND id IN (SELECT agent_id FROM agent_leases WHERE owner_id = @owner)
         AND (${this.dialect.cast('@ids', 'jsonb')} IS NULL OR id IN (${this.dialect.jsonElements('@ids')}))`, { owner, ids: agentIds });
    return changed.changes;
  }

  async coordinatorOf(workspaceId: string) {
    // A ceo outranks a coordinator; among equals the oldest is the one people set up first.
    return this.table.one(
      `SELECT * FROM agent_instances WHERE workspace_id = ? AND role IN ('ceo', 'coordinator') AND deleted_at IS NULL
       ORDER BY CASE role WHEN 'ceo' THEN 0 ELSE 1 END, created_at, id LIMIT 1`, [workspaceId]);
  }
}
