/**
 * Routines, their triggers and their runs (the port's rules: persistence/store.ts).
 *
 * Isolation: a cron tick is claimed by compare-and-set on the trigger's `next_run_at`, and a fire is
 * recorded under UNIQUE (trigger, scheduled_for), so replicas that tick together record it once. The
 * concurrency caps are slot rows taken and released in one statement each, locked in one order
 * (PostgreSQL's deadlock rule, migration 0028). A routine's status changes only through its named
 * transitions; `edit` writes plain fields.
 */
import type { ListPage } from '../../domain/pagination.js';
import type { ReasonCode } from '../../domain/activityCodes.js';
import type { MissedTicks, Routine, RoutineRun, RoutineTrigger } from '../../domain/routines.js';

/** One cron tick to claim (compare-and-set on next_run_at) and the routine run that records it. */
export interface TickClaim {
  triggerId: string;
  expectedNextRunAt: number;
  nextRunAt: number | null;
  run: RoutineRun;
}

/** What a person edits on a routine: its status changes only through the routine's transitions. */
export type RoutineFields = Partial<Omit<Routine, 'id' | 'created_at' | 'workspace_id' | 'status' | 'paused_reason' | 'consecutive_failures' | 'carried_missed_ticks'>>;

export type TriggerFields = Partial<Omit<RoutineTrigger, 'id' | 'routine_id' | 'kind' | 'created_at'>>;

/** Where a received routine run went. */
export type RunRoute = Partial<Pick<RoutineRun, 'linked_task_id' | 'linked_wakeup_id' | 'coalesced_into_run_id' | 'completed_at'>>
  & { status: 'skipped' | 'coalesced' | 'task_created' | 'dispatched'; skip_reason?: ReasonCode | null };

export interface RoutineRepo {
  insert(routine: Routine): Promise<void>;
  get(id: string): Promise<Routine | undefined>;
  /** Archived routines only with `include_archived`: they leave the lists but stay readable by id. */
  list(filter: { workspace_id?: string | undefined; assignee?: string | undefined; include_archived?: boolean }, page?: ListPage): Promise<Routine[]>;
  // The transitions of a routine: one statement each, guarded in its WHERE by the status it leaves
  // (archived is terminal), answering the routine as it left it, or undefined with nothing written.
  /** A person's edit of the fields that are no state. */
  edit(id: string, fields: RoutineFields): Promise<Routine | undefined>;
  /** Active (or paused already) to paused, with `reason`. */
  pause(id: string, reason: string, at: number): Promise<Routine | undefined>;
  /** Paused to active, its pause reason and failure count cleared. */
  resume(id: string, at: number): Promise<Routine | undefined>;
  /** Any status but archived to archived, its triggers disabled in the same unit. */
  archive(id: string, at: number): Promise<Routine | undefined>;
  /** Pauses, in one statement, the active routines assigned to `agentId`, with `reason`; returns them as they are now. */
  pauseActiveOf(agentId: string, reason: string, at: number): Promise<Routine[]>;
  /**
   * Counts a run's outcome in the routine's row, in one statement: a success resets
   * consecutive_failures, a failure adds one and, reaching consecutive_failure_limit, pauses an
   * active routine with `pauseReason` (its `{n}` replaced by the count). `paused`: it paused here.
   */
  countOutcome(id: string, succeeded: boolean, at: number, pauseReason: string): Promise<{ consecutive_failures: number; paused: boolean; paused_reason: string | null } | undefined>;
  /** Adds a skipped fire's missed-ticks note to the routine's carried one (counts add up, the earliest `since` stays), in one statement. */
  carryMissedTicks(id: string, note: MissedTicks): Promise<void>;
  /** Takes the routine's carried missed-ticks note, leaving none: null when none was carried. */
  takeCarriedMissedTicks(id: string): Promise<MissedTicks | null>;
  insertTrigger(trigger: RoutineTrigger): Promise<void>;
  getTrigger(id: string): Promise<RoutineTrigger | undefined>;
  triggersOf(routineId: string): Promise<RoutineTrigger[]>;
  /** Edits a trigger while its routine is not archived, in one statement; the trigger as it is now, else undefined. */
  editTrigger(id: string, fields: TriggerFields): Promise<RoutineTrigger | undefined>;
  deleteTrigger(id: string): Promise<void>;
  /** Enabled schedule triggers of active routines, for booting the trigger actors. */
  liveScheduleTriggers(): Promise<{ trigger: RoutineTrigger; routine: Routine }[]>;
  /** These schedule triggers with their routines (by trigger id; missing ones are left out): one read for a batch of due ticks. */
  scheduleTriggers(triggerIds: readonly string[]): Promise<{ trigger: RoutineTrigger; routine: Routine }[]>;
  /** Moves next_run_at only if it still holds the tick this caller saw: one fire per tick. */
  claimTick(triggerId: string, expectedNextRunAt: number, nextRunAt: number | null, firedAt: number): Promise<boolean>;
  /**
   * Claims a batch of cron ticks and records their routine runs: each claim moves its trigger's
   * next_run_at only if it still holds `expectedNextRunAt` (the compare-and-set), and the run of each
   * claim won is inserted unless its (trigger, scheduled_for) already has one. Two statements for the
   * whole batch; concurrent callers split the ticks between them, each tick claimed and recorded once.
   * Returns the claims this caller won, in input order, with whether their run was recorded.
   */
  claimTicks(claims: readonly TickClaim[], firedAt: number): Promise<{ triggerId: string; recorded: boolean }[]>;
  /** Inserts the run unless its tick or delivery id already has one (UNIQUE keys); true when inserted. */
  insertRun(run: RoutineRun): Promise<boolean>;
  getRun(id: string): Promise<RoutineRun | undefined>;
  runByDelivery(triggerId: string, deliveryId: string): Promise<RoutineRun | undefined>;
  /**
   * Frees this delivery id if its run started at or before `startedBefore` (its idempotency window
   * has passed), so the same id fires again: one guarded UPDATE.
   */
  retireDeliveryBefore(triggerId: string, deliveryId: string, startedBefore: number): Promise<void>;
  /**
   * Where a received run went (skipped, coalesced, a task, a wakeup) and its links, while it is still
   * `received`; false when another path routed it. Its outcome is written only by `settleRun`, which frees its slot.
   */
  routeRun(id: string, route: RunRoute): Promise<boolean>;
  /**
   * Writes the outcome of a run whose outcome is still null, which frees the cap slots it holds (in
   * the same statement, whoever writes an outcome). Undefined when the run had an outcome already
   * (another path settled it).
   */
  settleRun(id: string, patch: Pick<RoutineRun, 'outcome' | 'completed_at'> & Partial<Pick<RoutineRun, 'status' | 'error'>>): Promise<RoutineRun | undefined>;
  /**
   * Takes a slot for this run under both routine-run caps (API.md, "Routine-run caps"): the
   * deployment's and its agent's (null: no cap), each a counter row raised only while below its cap.
   * False, with nothing taken, when either is full. The slot is the run's until `settleRun` or `releaseRunSlot`.
   */
  takeRunSlot(runId: string, agentId: string, caps: { deployment: number; agent: number | null }): Promise<boolean>;
  /**
   * `takeRunSlot` for a batch of runs in a few statements: the deployment's counter is raised by the
   * whole batch only if it stays within `deploymentCap`, then each agent's by its share only if it
   * stays within that agent's max_concurrent_routine_runs (read in the same statement; a deleted
   * agent takes none). Returns the runs that hold a slot now; the others hold none (take theirs one
   * by one, in order, so that a cap still grants what room it has).
   */
  takeRunSlots(runs: readonly { runId: string; agentId: string }[], deploymentCap: number): Promise<Set<string>>;
  /** Gives back the slots a run holds (it ended coalesced or skipped after taking them); false when it held none. */
  releaseRunSlot(runId: string): Promise<boolean>;
  /**
   * `takeRunSlot` for a wakeup that unattended follow-on work made (a subtask's assignment, a wake of
   * another agent): the same counters, so fan-out from a routine counts against both caps. False,
   * with nothing taken, when either is full. The wakeup's end frees the slot in the statement that
   * ends it (migration 0020), whoever ends it.
   */
  takeWakeupSlot(wakeupId: string, agentId: string, caps: { deployment: number; agent: number | null }): Promise<boolean>;
  /** Active routine runs with this fingerprint (API.md, "Active"), oldest first. */
  activeRuns(routineId: string, fingerprint: string): Promise<RoutineRun[]>;
  /** `activeRuns` of several routines in one read, by routine id (a routine with none is left out). */
  activeRunsOf(keys: readonly { routineId: string; fingerprint: string }[]): Promise<Map<string, RoutineRun[]>>;
  /** Dispatched or task-creating runs whose outcome is still null, oldest first. */
  openRunsOf(routineId: string): Promise<RoutineRun[]>;
  /** Routine runs holding a cap slot, deployment-wide or of one agent: the counter row, not a count over runs. */
  countActiveRuns(filter: { agent_id?: string }): Promise<number>;
  runByTask(taskId: string): Promise<RoutineRun | undefined>;
  /** The first `task_assigned` wakeup of a task: a heavy routine run's own wakeup. */
  assignmentWakeupIdOf(taskId: string): Promise<string | undefined>;
}
