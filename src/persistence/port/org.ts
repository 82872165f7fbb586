/**
 * The organisation: workspaces, projects and agents (the port's rules: persistence/store.ts).
 *
 * Isolation: an agent's state changes only through its transitions (pause, resume, stop,
 * markDeleted), each one UPDATE whose WHERE names the state it leaves and RETURNING the row, so two
 * people pausing and deleting at once leave one outcome and each caller learns which. `edit` writes
 * plain fields by id and never state. `insert` refuses a duplicate name in its ON CONFLICT, not after
 * a read. Lists are committed rows, possibly stale; nothing is decided on them.
 */
import type { ListPage } from '../../domain/pagination.js';
import type { Agent, Project, Workspace } from '../../domain/types.js';

export interface WorkspaceRepo {
  insert(workspace: Workspace): Promise<void>;
  /** A deleted workspace too (its runs and tasks still name it); callers that act on it check deleted_at. */
  get(id: string): Promise<Workspace | undefined>;
  /** A person's edit of a live workspace's fields, in one statement; the workspace as it is now, undefined when there is none or it was deleted. */
  edit(id: string, fields: Partial<Omit<Workspace, 'id' | 'created_at'>>): Promise<Workspace | undefined>;
  /** The live workspaces. */
  list(page?: ListPage): Promise<Workspace[]>;
  /**
   * Marks the workspace deleted while it is live and holds no live agent, in one guarded statement;
   * false when either does not hold. On PostgreSQL the workspace row is locked first, so an agent
   * being created in it meanwhile (AgentRepo.insert) is seen by the guard, or sees the deletion.
   */
  markDeleted(id: string, at: number): Promise<boolean>;
}

export interface ProjectRepo {
  insert(project: Project): Promise<void>;
  get(id: string): Promise<Project | undefined>;
  /** A person's edit of its fields, in one statement; the project as it is now, undefined when there is none. */
  edit(id: string, fields: Partial<Omit<Project, 'id' | 'created_at' | 'workspace_id'>>): Promise<Project | undefined>;
}

export interface AgentRepo {
  /** Inserts the agent while its workspace is live (one statement); false when the workspace is deleted or missing. */
  insert(agent: Agent): Promise<boolean>;
  get(id: string): Promise<Agent | undefined>;
  /** Without a page, a workspace's agents whole (the services' read); with one, that page (the API's). */
  list(filter: { workspace_id?: string | undefined }, page?: ListPage): Promise<Agent[]>;
  /** Every live agent this owner holds the lease of, for booting the actors. */
  listLive(owner: string): Promise<Agent[]>;
  // The transitions of an agent: each one statement whose guard (the state it expects, and that the
  // agent was not deleted) is in its WHERE, returning the agent as it left it; undefined when the
  // guard did not hold, with nothing written.
  /** A person's edit of the fields that are no state. */
  edit(id: string, fields: AgentFields): Promise<Agent | undefined>;
  /** Any status but paused to paused, with `reason`. */
  pause(id: string, reason: string, at: number): Promise<Agent | undefined>;
  /** Paused or stopped to idle, its pause reason cleared. */
  resume(id: string, at: number): Promise<Agent | undefined>;
  /** Any status but stopped to stopped. */
  stop(id: string, at: number): Promise<Agent | undefined>;
  /** The soft delete: a live agent becomes deleted (and stopped). */
  markDeleted(id: string, at: number): Promise<Agent | undefined>;
  /**
   * Agents of `owner` (those of `agentIds`, when given) still marked working after recovery closed
   * their runs become idle, in one statement; returns how many.
   */
  idleLeftWorking(owner: string, agentIds: readonly string[] | null): Promise<number>;
  coordinatorOf(workspaceId: string): Promise<Agent | undefined>;
}

/** What a person edits on an agent: its state changes only through the agent's transitions. */
export type AgentFields = Partial<Omit<Agent, 'id' | 'created_at' | 'workspace_id' | 'status' | 'paused_reason' | 'deleted_at' | 'last_wakeup_finished_at'>>;
