/**
 * The read side of the port: what the HTTP API and the dashboard show, through Store.query. It is
 * kept apart from Tx so that the operations the services decide with stay few: a list, a feed or a
 * count that only a page reads is here, not on a repository of Tx. The rows are the same ones; the
 * stores implement both sides with the same statements (persistence/sql/).
 *
 * Isolation: one query is one read unit, so what it reads is one committed view; it may be stale by
 * the time the caller answers, and nothing is decided on it. It never writes.
 */
import type { ListPage, PagePosition } from '../../domain/pagination.js';
import type {
  ActivityEntry, Comment, ContinuationSummary, InboxItem, Project, Run, Wakeup,
} from '../../domain/types.js';
import type { RoutineRun, RoutineTrigger } from '../../domain/routines.js';
import type { AgentRepo, ProjectRepo, WorkspaceRepo } from './org.js';
import type { ActivityFilter } from './people.js';
import type { ApprovalRepo, TaskRepo } from './tasks.js';
import type { WakeupFilter, WakeupRepo } from './wakeups.js';
import type { RunRepo, TranscriptEntry } from './runs.js';
import type { RoutineRepo } from './routines.js';
import type { Replica, SnapshotRepo } from './ownership.js';
import type { StatsRepo } from './stats.js';

/** What the API reads: the read-side lists and counts, with the plain gets of Tx that its pages need beside them. */
export interface Reads {
  readonly workspaces: Pick<WorkspaceRepo, 'get' | 'list'>;
  readonly projects: Pick<ProjectRepo, 'get'> & ProjectReads;
  readonly agents: Pick<AgentRepo, 'get' | 'list'>;
  readonly tasks: Pick<TaskRepo, 'get' | 'list'>;
  readonly comments: CommentReads;
  readonly approvals: Pick<ApprovalRepo, 'get'>;
  readonly activity: ActivityReads;
  readonly inbox: InboxReads;
  readonly wakeups: Pick<WakeupRepo, 'get'> & WakeupReads;
  readonly runs: Pick<RunRepo, 'get' | 'list'> & RunReads;
  readonly summaries: SummaryReads;
  readonly transcripts: TranscriptReads;
  readonly routines: Pick<RoutineRepo, 'get' | 'list' | 'getTrigger' | 'triggersOf'> & RoutineReads;
  readonly replicas: ReplicaReads;
  readonly snapshots: Pick<SnapshotRepo, 'get'>;
  readonly stats: StatsRepo;
}

/** The activity feed, newest first. */
export interface ActivityReads {
  list(filter: ActivityFilter): Promise<ActivityEntry[]>;
}

/** The inbox: every open item and the newest resolved ones. */
export interface InboxReads {
  list(workspaceId: string | undefined, status?: InboxItem['status']): Promise<InboxItem[]>;
}

/** A task's comments, oldest first. */
export interface CommentReads {
  listByTask(taskId: string, since?: number, page?: ListPage): Promise<Comment[]>;
}

/** Projects, of a workspace or all. */
export interface ProjectReads {
  list(workspaceId: string | undefined, page?: ListPage): Promise<Project[]>;
}

/** The run an agent authenticates as (by its token's hash), and the counts /metrics prints. */
export interface RunReads {
  byTokenHash(hash: string): Promise<Run | undefined>;
  countByStatus(): Promise<Record<string, number>>;
}

/** An agent's continuation summaries. */
export interface SummaryReads {
  listForAgent(agentId: string): Promise<ContinuationSummary[]>;
}

/** What a run printed, as stored. */
export interface TranscriptReads {
  list(runId: string): Promise<TranscriptEntry[]>;
}

/** The replicas page, and where explain finds an agent that runs elsewhere. */
export interface ReplicaReads {
  /** The live replicas at `now` (unexpired, or never expiring), by id, with the agents each holds. */
  list(now: number): Promise<Replica[]>;
  /** Who holds each of these agents at `now` (unexpired leases only). */
  holders(agentIds: readonly string[], now: number): Promise<Map<string, string>>;
}

/** The webhook route's trigger lookup, and a routine's runs, newest first. */
export interface RoutineReads {
  triggerByPublicId(publicId: string): Promise<RoutineTrigger | undefined>;
  runsOf(routineId: string, limit: number, after?: PagePosition): Promise<RoutineRun[]>;
}

/** The wakeup list, and the counts /metrics prints. */
export interface WakeupReads {
  list(filter: WakeupFilter): Promise<Wakeup[]>;
  countByStatus(): Promise<Record<string, number>>;
}
