/** Workspaces, projects and agents: the statements both backends run. */
import type { Agent, Project, Workspace } from '../../domain/types.js';
import type { AgentFields, AgentRepo, ProjectRepo, WorkspaceRepo } from '../store.js';
import { AGENTS, PROJECTS, WORKSPACES } from '../tables.js';
import type { Dialect, RowTable, SqlRunner } from './dialect.js';
import { paged, whereClause } from './filters.js';
import { LISTS, type ListPage } from '../../domain/pagination.js';

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
  async edit(id: string, fields: Partial<Workspace>) { return this.table.transition(id, { patch: fields }, 'deleted_at IS NULL'); }
  async list(page?: ListPage) {
    const { tail, params } = paged({ where: 'WHERE deleted_at IS NULL', params: {} }, page, LISTS.workspaces);
    return this.table.many(`SELECT * FROM workspaces ${tail}`, params);
  }
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
  async list(workspaceId: string | undefined, page?: ListPage) {
    const { tail, params } = paged(whereClause({ workspaceId }, { workspaceId: 'workspace_id' }), page, LISTS.projects, 'LIMIT 1000');
    return this.table.many(`SELECT * FROM projects ${tail}`, params);
  }
  async edit(id: string, fields: Partial<Project>) { return this.table.transition(id, { patch: fields }, 'TRUE'); }
}

/** An agent that was not deleted: the one every transition of an agent expects. */
const LIVE = 'deleted_at IS NULL';

export class AgentsSql implements AgentRepo {
  private readonly table: RowTable<Agent>;
  private readonly workspaceIsLive: string;
  constructor(private readonly dialect: Dialect) {
    this.table = dialect.table(AGENTS);
    this.workspaceIsLive = liveWorkspace(dialect);
  }
  async insert(agent: Agent) { return this.table.insertIf(agent, this.workspaceIsLive); }
  async get(id: string) { return this.table.get(id); }
  async list(filter: { workspace_id?: string | undefined }, page?: ListPage) {
    const live = filter.workspace_id
      ? { where: `WHERE workspace_id = @workspace_id AND ${LIVE}`, params: { workspace_id: filter.workspace_id } }
      : { where: `WHERE ${LIVE}`, params: {} };
    const { tail, params } = paged(live, page, LISTS.agents, filter.workspace_id ? '' : 'LIMIT 1000');
    return this.table.many(`SELECT * FROM agent_instances ${tail}`, params);
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
