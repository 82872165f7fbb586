/** Workspaces, projects and agents: the org the scheduler reads. */
import type { z } from 'zod';
import type { CreateAgentBody, CreateProjectBody, CreateWorkspaceBody, PatchAgentBody, PatchProjectBody, PatchWorkspaceBody, WakeAgentBody } from '../domain/schemas.js';
import type { Agent, AgentRole, Project, Workspace } from '../domain/types.js';
import { BOOTSTRAP_ADMIN_ID, type ActorFields } from '../domain/governance.js';
import { clientWakeKey } from '../domain/idempotency.js';
import { SECRET_MASK, keepStoredSecrets } from '../domain/secrets.js';
import type { Tx } from '../persistence/store.js';
import { recordDecision } from './activity.js';
import type { ServiceDeps, WakeupNotifier } from './deps.js';
import { conflict, invalid, notFound } from './errors.js';
import { newId } from './ids.js';
import type { EnqueueOutcome, WakeupService } from './wakeups.js';

/** The spec's idle-skip defaults: coordinators survey on their own, so their wakes always proceed. */
export const SKIP_IDLE_WAKEUPS_BY_ROLE: Record<AgentRole, boolean> = {
  worker: true,
  specialist: true,
  assistant: true,
  ceo: false,
  coordinator: false,
};

export const isCoordinatorRole = (role: AgentRole) => role === 'ceo' || role === 'coordinator';

/** The routine side of an agent's lifecycle; provided by the routine catalogue. */
export interface AgentRoutines {
  /** Installs a coordinator's heartbeat routine inside the transaction that creates the coordinator. */
  installHeartbeat(tx: Tx, agent: Agent, ownerId?: string): Promise<void>;
  pauseRoutinesOf(tx: Tx, agentId: string, now: number, by?: ActorFields): Promise<void>;
}

/**
 * An executor as a write stores it: whole, except that a secret sent back masked (as every read
 * answers it) keeps the stored value of the same name. A masked value with nothing behind it is a 400.
 */
export function executorToStore<T>(next: T, stored: unknown, field: string): T {
  const kept = keepStoredSecrets(next, stored);
  if ('unknown' in kept) {
    throw invalid(`${field}.${kept.unknown.path}`, `"${SECRET_MASK}" keeps the stored secret of that name, but none is stored; send the value itself`);
  }
  return kept.executor;
}

/** A deleted workspace is gone from the API, like one that never existed. */
export async function requireWorkspace(tx: Tx, id: string, field = 'workspace_id'): Promise<Workspace> {
  const workspace = await tx.workspaces.get(id);
  if (!workspace || workspace.deleted_at !== null) throw workspaceNotFound(id, field);
  return workspace;
}

const workspaceNotFound = (id: string, field: string) => Object.assign(notFound('workspace', id), { details: [{ path: field, message: 'not found' }] });

/** An id in a body must exist and belong to the same workspace: cross-workspace dispatch is impossible by construction. */
export async function requireAgentIn(tx: Tx, workspaceId: string, agentId: string, field: string): Promise<Agent> {
  const agent = await tx.agents.get(agentId);
  if (!agent || agent.deleted_at !== null) throw Object.assign(notFound('agent', agentId), { details: [{ path: field, message: 'not found' }] });
  if (agent.workspace_id !== workspaceId) throw invalid(field, `agent '${agentId}' belongs to another workspace`);
  return agent;
}

export async function requireProjectIn(tx: Tx, workspaceId: string, projectId: string, field: string): Promise<Project> {
  const project = await tx.projects.get(projectId);
  if (!project) throw Object.assign(notFound('project', projectId), { details: [{ path: field, message: 'not found' }] });
  if (project.workspace_id !== workspaceId) throw invalid(field, `project '${projectId}' belongs to another workspace`);
  return project;
}

export class OrgService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly wakeups: WakeupService,
    private readonly routines: AgentRoutines,
    private readonly agentChanged: (agent: Agent) => void,
    private readonly notifier: WakeupNotifier,
    /** After a resume commits: the recovery sweep dispatches the agent's open tasks (pinned: nothing is replayed). */
    private readonly agentResumed: (agentId: string) => void,
    /** Takes the lease of a new agent for this process, inside the transaction that creates it. */
    private readonly takeAgent: (tx: Tx, agentId: string) => Promise<void>,
  ) {}

  createWorkspace(body: z.output<typeof CreateWorkspaceBody>): Promise<Workspace> {
    return this.deps.store.transaction(async (tx) => {
      const now = this.deps.clock.now();
      const workspace: Workspace = {
        id: newId('ws'),
        name: body.name,
        timezone: body.timezone ?? 'UTC',
        recovery_lookback_hours: body.recovery_lookback_hours ?? 24,
        default_executor: executorToStore(body.default_executor ?? null, null, 'default_executor'),
        deleted_at: null,
        created_at: now,
        updated_at: now,
      };
      await tx.workspaces.insert(workspace);
      return workspace;
    });
  }

  updateWorkspace(id: string, body: z.output<typeof PatchWorkspaceBody>): Promise<Workspace> {
    return this.deps.store.transaction(async (tx) => {
      const stored = await requireWorkspace(tx, id);
      const executor = body.default_executor === undefined ? {} : { default_executor: executorToStore(body.default_executor, stored.default_executor, 'default_executor') };
      const edited = await tx.workspaces.edit(id, { ...body, ...executor, updated_at: this.deps.clock.now() });
      if (!edited) throw notFound('workspace', id);
      return edited;
    });
  }

  /**
   * Deletes a workspace once it holds no agent: its agents are deleted first, each deletion saying
   * what it cancels, so nothing of the workspace still runs or waits when it goes. Its row, tasks
   * and history stay for the record. `by`: the person deleting it.
   */
  deleteWorkspace(id: string, by?: ActorFields): Promise<void> {
    return this.deps.store.transaction(async (tx) => {
      const workspace = await requireWorkspace(tx, id);
      const now = this.deps.clock.now();
      if (!(await tx.workspaces.markDeleted(id, now))) {
        const agents = await tx.agents.list({ workspace_id: id });
        throw conflict(`workspace '${workspace.name}' still has ${agents.length === 1 ? 'an agent' : `${agents.length} agents`} `
          + `(${agents.map((a) => a.name).join(', ')}): delete ${agents.length === 1 ? 'it' : 'them'} first`);
      }
      await recordDecision(tx, this.deps.log, {
        workspace_id: id, code: 'workspace_deleted', ...by, message: `workspace '${workspace.name}' deleted`,
      }, now);
    });
  }

  createProject(body: z.output<typeof CreateProjectBody>): Promise<Project> {
    return this.deps.store.transaction(async (tx) => {
      await requireWorkspace(tx, body.workspace_id);
      const now = this.deps.clock.now();
      const project: Project = {
        id: newId('prj'), workspace_id: body.workspace_id, name: body.name,
        default_executor: executorToStore(body.default_executor ?? null, null, 'default_executor'), created_at: now, updated_at: now,
      };
      await tx.projects.insert(project);
      return project;
    });
  }

  updateProject(id: string, body: z.output<typeof PatchProjectBody>): Promise<Project> {
    return this.deps.store.transaction(async (tx) => {
      const stored = await tx.projects.get(id);
      if (!stored) throw notFound('project', id);
      const executor = body.default_executor === undefined ? {} : { default_executor: executorToStore(body.default_executor, stored.default_executor, 'default_executor') };
      const edited = await tx.projects.edit(id, { ...body, ...executor, updated_at: this.deps.clock.now() });
      if (!edited) throw notFound('project', id);
      return edited;
    });
  }

  /** `ownerId`: the token creating the agent, which owns a coordinator's heartbeat routine (the admin when absent). */
  async createAgent(body: z.output<typeof CreateAgentBody>, ownerId?: string): Promise<Agent> {
    const agent = await this.deps.store.transaction(async (tx) => {
      await requireWorkspace(tx, body.workspace_id);
      const now = this.deps.clock.now();
      const agent: Agent = {
        id: newId('agt'),
        workspace_id: body.workspace_id,
        name: body.name,
        role: body.role,
        status: 'idle',
        paused_reason: null,
        skip_idle_wakeups: body.skip_idle_wakeups ?? SKIP_IDLE_WAKEUPS_BY_ROLE[body.role],
        max_concurrent_sessions: body.max_concurrent_sessions ?? 1,
        cooldown_sec: body.cooldown_sec ?? 10,
        last_wakeup_finished_at: null,
        executor: executorToStore(body.executor ?? null, null, 'executor'),
        daily_run_cap: body.daily_run_cap ?? null,
        daily_cost_cap_usd: body.daily_cost_cap_usd ?? null,
        max_concurrent_routine_runs: body.max_concurrent_routine_runs ?? null,
        warnings: [],
        deleted_at: null,
        created_at: now,
        updated_at: now,
      };
      // Deleted since the check above: the insert's own guard saw it.
      if (!(await tx.agents.insert(agent))) throw workspaceNotFound(body.workspace_id, 'workspace_id');
      await this.takeAgent(tx, agent.id);
      tx.emit('agent.created', { agent_id: agent.id, workspace_id: agent.workspace_id, role: agent.role });
      if (isCoordinatorRole(agent.role)) await this.routines.installHeartbeat(tx, agent, ownerId);
      return agent;
    });
    this.agentChanged(agent);
    return (await this.deps.store.read((tx) => tx.agents.get(agent.id)))!;
  }

  async updateAgent(id: string, body: z.output<typeof PatchAgentBody>): Promise<Agent> {
    const agent = await this.deps.store.transaction(async (tx) => {
      // Read for the executor's write-only secrets only, which an edit keeps when it leaves them out.
      const existing = body.executor === undefined ? undefined : await tx.agents.get(id);
      const now = this.deps.clock.now();
      const { status, ...fields } = body;
      let agent = await tx.agents.edit(id, {
        ...fields,
        ...(body.executor === undefined ? {} : { executor: executorToStore(body.executor, existing?.executor ?? null, 'executor') }),
        updated_at: now,
      });
      if (!agent) throw notFound('agent', id);
      // Each status is a transition whose guard is the status it leaves: asked for the status the
      // agent has already, it changes nothing (a paused agent keeps the reason it was paused for).
      const moved = status === 'idle' ? await tx.agents.resume(id, now)
        : status === 'paused' ? await tx.agents.pause(id, 'paused by a person', now)
          : status === 'stopped' ? await tx.agents.stop(id, now) : undefined;
      agent = moved ?? agent;
      tx.emit('agent.updated', { agent_id: id });
      if (status === 'idle' && moved) tx.afterCommit(() => this.agentResumed(id));
      if (body.daily_run_cap !== undefined || body.daily_cost_cap_usd !== undefined) {
        // A changed cap may free today's deferred work; if it is still capped, the claim defers it again.
        for (const wakeup of await tx.wakeups.releaseDeferred(id, this.deps.clock.now())) {
          tx.afterCommit(() => this.notifier.wakeupQueued(id, wakeup.id, wakeup.available_at));
        }
      }
      return agent;
    });
    this.agentChanged(agent);
    return agent;
  }

  /** `by`: the person deleting it, whom the entries it writes name. */
  async deleteAgent(id: string, by?: ActorFields): Promise<void> {
    const agent = await this.deps.store.transaction(async (tx) => {
      const now = this.deps.clock.now();
      // Soft delete: runs and wakeups keep pointing at the agent for the record. Of two deletes at
      // once, one deletes; the other finds no live agent.
      const existing = await tx.agents.markDeleted(id, now);
      if (!existing) throw notFound('agent', id);
      // Nothing waits on an agent that is gone: its queue is cancelled and its routines pause.
      await this.wakeups.cancelOpenFor(tx, existing, 'agent_deleted', now, by);
      await this.unassignOpenTasks(tx, existing, now, by);
      await this.routines.pauseRoutinesOf(tx, id, now, by);
      tx.emit('agent.deleted', { agent_id: id });
      return existing;
    });
    this.agentChanged(agent);
  }

  /**
   * A deleted agent's open tasks go back to the pool: no later event about them names an agent that
   * is gone, and a person sees, per task, why it lost its assignee.
   */
  private async unassignOpenTasks(tx: Tx, agent: Agent, now: number, by: ActorFields | undefined): Promise<void> {
    for (const task of await tx.tasks.unassignOpen(agent.id, now)) {
      tx.emit('task.assigned', { task_id: task.id, workspace_id: task.workspace_id, agent_id: null, previous_agent_id: agent.id });
      await recordDecision(tx, this.deps.log, {
        workspace_id: task.workspace_id, code: 'task_unassigned', agent_id: agent.id, task_id: task.id, ...by,
        message: `unassigned: its assignee ${agent.name} was deleted`, details: { reason: 'agent_deleted', previous_agent_id: agent.id },
      }, now);
    }
  }

  /** A person's wake: `userId` is their token id ("admin" for the bootstrap token and the open mode). */
  wake(agentId: string, body: z.output<typeof WakeAgentBody>, userId: string = BOOTSTRAP_ADMIN_ID, notBefore?: number): Promise<EnqueueOutcome> {
    return this.deps.store.transaction(async (tx) => {
      const agent = await tx.agents.get(agentId);
      if (!agent || agent.deleted_at !== null) throw notFound('agent', agentId);
      return this.wakeups.enqueue(tx, {
        agent_id: agentId,
        source: 'user',
        reason: body.reason ?? 'woken by a person',
        payload: { user_id: userId, ...(body.reason ? { reason: body.reason } : {}), ...(body.context ? { context: body.context } : {}) },
        idempotency_key: body.idempotency_key ? clientWakeKey('user', agentId, body.idempotency_key) : null,
        not_before: notBefore,
      }, this.deps.clock.now());
    });
  }
}
