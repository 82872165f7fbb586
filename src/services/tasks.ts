/** Tasks, comments, approvals and budgets: the writes that produce the events agents wake on. */
import type { z } from 'zod';
import type { ActivityCode } from '../domain/activityCodes.js';
import type { CreateApprovalBody, CreateBudgetBody, CreateTaskBody, PatchBudgetBody, PatchTaskBody } from '../domain/schemas.js';
import type { ActorFields } from '../domain/governance.js';
import { ATTENDED, provenanceOf, type Provenance } from '../domain/provenance.js';
import { newTask } from '../domain/tasks.js';
import type { Approval, Budget, Comment, Task, TaskState } from '../domain/types.js';
import type { Tx } from '../persistence/store.js';
import { recordDecision } from './activity.js';
import { raiseInboxItem } from './inbox.js';
import type { ServiceDeps, WakeupNotifier } from './deps.js';
import { conflict, invalid, notFound } from './errors.js';
import { newId } from './ids.js';
import { executorToStore, requireAgentIn, requireProjectIn, requireWorkspace } from './org.js';
import type { RoutineOutcomes } from './routines/outcomes.js';
import type { WakeupService } from './wakeups.js';

/**
 * Who writes. An agent writes during a run (`runId`); what it writes is that run's follow-on work and
 * carries the run's provenance. `provenance` given: the caller knows it already (a fire, a finish).
 */
export type Actor = { type: 'user' | 'agent' | 'system'; id: string | null; runId?: string; provenance?: Provenance };

/** A comment to store: its author decided already, from the credential (governance.ts, commentAuthorOf). */
export type NewComment = Pick<Comment, 'body' | 'author_type' | 'author_id'>;

/** What caused a write: given, or the run's that wrote it, or attended. */
async function provenanceOfActor(tx: Tx, by: Actor): Promise<Provenance> {
  if (by.provenance) return by.provenance;
  return by.runId ? provenanceOf(await tx.runs.get(by.runId)) : ATTENDED;
}

export class TaskService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly notifier: WakeupNotifier,
    private readonly wakeups: WakeupService,
    /** A retry cancelled by a reassignment ends the routine run it carries. */
    private readonly routineOutcomes: Pick<RoutineOutcomes, 'recordOutcome'>,
  ) {}

  createTask(body: z.output<typeof CreateTaskBody>, by: Actor = { type: 'user', id: null }): Promise<Task> {
    return this.deps.store.transaction((tx) => this.createTaskIn(tx, body, by));
  }

  async createTaskIn(tx: Tx, body: z.output<typeof CreateTaskBody>, by: Actor, extra: Partial<Task> = {}): Promise<Task> {
    const ws = body.workspace_id;
    // Links are checked one by one, after the task's own references, so each error names its field.
    if (body.blocked_by?.length || body.reviewers?.length) await checkReferences(tx, body);
    const now = this.deps.clock.now();
    const provenance = await provenanceOfActor(tx, by);
    const task = newTask({ id: newId('tsk'), workspace_id: ws, title: body.title }, now, {
      project_id: body.project_id ?? null,
      parent_id: body.parent_id ?? null,
      description: body.description ?? '',
      assignee_agent_instance_id: body.assignee_agent_instance_id ?? null,
      requires_approval: body.requires_approval ?? false,
      executor: executorToStore(body.executor ?? null, null, 'executor'),
      origin: by.type === 'agent' ? 'agent' : 'user',
      origin_id: by.id,
      blocked_by: body.blocked_by ?? [],
      reviewers: body.reviewers ?? [],
      ...provenance,
      ...extra,
    });
    if (!(await tx.tasks.insert(task))) await explainRefusedTask(tx, body);
    if (by.type === 'agent') {
      await recordAgentWrite(tx, this.deps.log, by, provenance, now, {
        workspace_id: ws, code: 'task_created', task_id: task.id,
        message: `created ${task.parent_id ? `subtask of ${task.parent_id}` : 'task'} '${task.title}'`
          + (task.assignee_agent_instance_id ? ` for ${task.assignee_agent_instance_id}` : ''),
        details: { parent_id: task.parent_id, assignee_agent_instance_id: task.assignee_agent_instance_id },
      });
    }
    tx.emit('task.created', { task_id: task.id, workspace_id: ws, provenance });
    if (task.assignee_agent_instance_id) {
      tx.emit('task.assigned', { task_id: task.id, workspace_id: ws, agent_id: task.assignee_agent_instance_id, previous_agent_id: null, provenance });
    }
    return task;
  }

  updateTask(id: string, body: z.output<typeof PatchTaskBody>): Promise<Task> {
    return this.deps.store.transaction(async (tx) => {
      const task = await tx.tasks.get(id);
      if (!task) throw notFound('task', id);
      const ws = task.workspace_id;
      const reassigned = body.assignee_agent_instance_id !== undefined && body.assignee_agent_instance_id !== task.assignee_agent_instance_id;
      if (body.assignee_agent_instance_id) await requireAgentIn(tx, ws, body.assignee_agent_instance_id, 'assignee_agent_instance_id');
      for (const [i, blocker] of (body.blocked_by ?? []).entries()) {
        await requireTaskIn(tx, ws, blocker, `blocked_by.${i}`);
        if (blocker === id) throw invalid(`blocked_by.${i}`, 'a task cannot block itself');
      }
      for (const [i, reviewer] of (body.reviewers ?? []).entries()) await requireAgentIn(tx, ws, reviewer, `reviewers.${i}`);
      const now = this.deps.clock.now();
      const { blocked_by, reviewers, assignee_agent_instance_id: assignee, ...fields } = body;
      if (fields.executor !== undefined) fields.executor = executorToStore(fields.executor, task.executor, 'executor');
      if (reassigned) {
        // The assignee it was read with is the guard: of two reassignments at once, the second finds
        // another assignee and is refused, so the retries cancelled are always the real previous one's.
        if (!(await tx.tasks.reassign(id, task.assignee_agent_instance_id, assignee ?? null, now))) {
          throw conflict(`task '${id}' was reassigned by someone else meanwhile; read it again and retry`);
        }
        await this.cancelRetriesOfPreviousAssignee(tx, task, now);
        tx.emit('task.assigned', { task_id: id, workspace_id: ws, agent_id: assignee ?? null, previous_agent_id: task.assignee_agent_instance_id });
      }
      if (blocked_by) await tx.tasks.setBlockers(id, blocked_by);
      if (reviewers) await tx.tasks.setReviewers(id, reviewers);
      // Last, so that the task it answers has its links and its assignee as this edit left them.
      const edited = await tx.tasks.edit(id, { ...fields, updated_at: now });
      if (!edited) throw notFound('task', id);
      return edited;
    });
  }

  /**
   * A reassignment cancels the previous assignee's pending retries at once, not at promotion: in one
   * statement, so a retry claimed meanwhile (its run about to start) is left to run.
   */
  private async cancelRetriesOfPreviousAssignee(tx: Tx, task: Task, now: number) {
    if (!task.assignee_agent_instance_id) return;
    for (const retry of await tx.wakeups.cancelRetriesOf(task.id, task.assignee_agent_instance_id, 'retry_stale_assignee', now)) {
      await this.wakeups.requeueFolded(tx, retry, now);
      await this.routineOutcomes.recordOutcome(tx, retry, 'cancelled', now, false);
      await this.wakeups.releaseCheckout(tx, task.id, retry.id);
      await recordDecision(tx, this.deps.log, {
        workspace_id: task.workspace_id, code: 'wakeup_retry_cancelled', agent_id: retry.agent_id, task_id: task.id,
        wakeup_id: retry.id, message: 'retry cancelled: the task was reassigned',
        details: { reason: 'retry_stale_assignee', task_id: task.id, old_agent: retry.agent_id },
      }, now);
      tx.afterCommit(() => this.notifier.wakeupWithdrawn(retry.agent_id, retry.id));
    }
  }

  moveTask(id: string, state: TaskState, by: Actor, note?: string | null): Promise<Task> {
    return this.deps.store.transaction((tx) => this.moveTaskIn(tx, id, state, by, note ?? null));
  }

  /**
   * The kanban move. A `requires_approval` task moved to DONE goes to IN_REVIEW with an approval
   * and an inbox item instead; only resolving that approval moves it on.
   */
  moveTaskIn(tx: Tx, id: string, state: TaskState, by: Actor, note: string | null, bypassApproval = false): Promise<Task> {
    return moveTaskWithin(tx, this.deps, id, state, by, note, bypassApproval);
  }

  createComment(taskId: string, body: NewComment, by?: Actor): Promise<Comment> {
    return this.deps.store.transaction((tx) => this.createCommentIn(tx, taskId, body, by));
  }

  /** `by`: who writes it (the author when absent): an agent's write is its run's follow-on work. */
  async createCommentIn(tx: Tx, taskId: string, body: NewComment, by: Actor = { type: body.author_type, id: body.author_id }): Promise<Comment> {
    const task = await tx.tasks.get(taskId);
    if (!task) throw notFound('task', taskId);
    if (body.author_type === 'agent') await requireAgentIn(tx, task.workspace_id, body.author_id, 'author_id');
    const comment: Comment = {
      id: newId('cmt'), workspace_id: task.workspace_id, task_id: taskId, author_type: body.author_type,
      author_id: body.author_id, body: body.body, created_at: this.deps.clock.now(),
    };
    await tx.comments.insert(comment);
    const provenance = await provenanceOfActor(tx, by);
    if (by.type === 'agent') {
      await recordAgentWrite(tx, this.deps.log, by, provenance, comment.created_at, {
        workspace_id: task.workspace_id, code: 'comment_created', task_id: taskId,
        message: `commented on task ${taskId}`, details: { comment_id: comment.id },
      });
    }
    tx.emit('comment.created', { comment_id: comment.id, task_id: taskId, author_type: comment.author_type, author_id: comment.author_id, provenance });
    return comment;
  }

  createApproval(body: z.output<typeof CreateApprovalBody>): Promise<Approval> {
    return this.deps.store.transaction(async (tx) => {
      const requester = await tx.agents.get(body.requested_by_agent_id);
      if (!requester || requester.deleted_at !== null) {
        throw Object.assign(notFound('agent', body.requested_by_agent_id), { details: [{ path: 'requested_by_agent_id', message: 'not found' }] });
      }
      if (body.task_id) await requireTaskIn(tx, requester.workspace_id, body.task_id, 'task_id');
      const now = this.deps.clock.now();
      const approval: Approval = {
        id: newId('apr'), workspace_id: requester.workspace_id, task_id: body.task_id ?? null,
        requested_by_agent_id: requester.id, title: body.title, status: 'pending', decision_note: null, created_at: now, resolved_at: null,
      };
      const stored = await tx.approvals.insertPending(approval);
      if (!stored.created) {
        throw conflict(`task '${approval.task_id}' already waits on approval '${stored.approval.id}'; resolve it first (POST /api/office/approvals/${stored.approval.id}/resolve)`);
      }
      await raiseInboxItem(tx, {
        workspace_id: approval.workspace_id, kind: 'approval', title: approval.title, body: '',
        agent_id: requester.id, task_id: approval.task_id, ref_id: approval.id,
      }, now);
      tx.emit('approval.created', { approval_id: approval.id, task_id: approval.task_id, requested_by_agent_id: requester.id });
      return approval;
    });
  }

  /**
   * Approving moves an in-review task to DONE; rejecting sends it back to IN_PROGRESS. `by`: the
   * person deciding, whom the activity entry and the move name.
   */
  resolveApproval(id: string, status: 'approved' | 'rejected', note: string | null, by: Actor = { type: 'user', id: null }): Promise<Approval> {
    return this.deps.store.transaction(async (tx) => {
      const approval = await tx.approvals.get(id);
      if (!approval) throw notFound('approval', id);
      const now = this.deps.clock.now();
      const resolved = await tx.approvals.resolve(id, status, note, now);
      if (!resolved) throw conflict(`approval '${id}' is already ${approval.status}`);
      await tx.inbox.resolveByRef(id);
      await recordDecision(tx, this.deps.log, {
        workspace_id: approval.workspace_id, code: 'approval_resolved', agent_id: approval.requested_by_agent_id, task_id: approval.task_id,
        actor_type: by.type, actor_id: by.id,
        message: `approval '${approval.title}' ${status} by ${by.id ?? 'a person'}${note ? `: ${note}` : ''}`,
        details: { approval_id: id, status, decision_note: note },
      }, now);
      tx.emit('approval.resolved', {
        approval_id: id, task_id: approval.task_id, requested_by_agent_id: approval.requested_by_agent_id, status, decision_note: note,
      });
      const task = approval.task_id ? await tx.tasks.get(approval.task_id) : undefined;
      if (task && task.state === 'IN_REVIEW') {
        await this.moveTaskIn(tx, task.id, status === 'approved' ? 'DONE' : 'IN_PROGRESS', by, note, true);
      }
      return resolved;
    });
  }

  createBudget(body: z.output<typeof CreateBudgetBody>): Promise<Budget> {
    return this.deps.store.transaction(async (tx) => {
      const workspaceId = await workspaceOfScope(tx, body.scope, body.scope_id);
      const budget: Budget = {
        id: newId('bdg'), workspace_id: workspaceId, scope: body.scope, scope_id: body.scope_id, limit_usd: body.limit_usd,
        period: body.period, action_on_exceed: body.action_on_exceed, alert_threshold_pct: body.alert_threshold_pct ?? null,
        created_at: this.deps.clock.now(),
      };
      await tx.budgets.insert(budget);
      return budget;
    });
  }

  /** A budget's limit, period, action or threshold; its scope stays (a budget for another scope is a new budget). */
  updateBudget(id: string, body: z.output<typeof PatchBudgetBody>, by?: ActorFields): Promise<Budget> {
    return this.deps.store.transaction(async (tx) => {
      const budget = await tx.budgets.edit(id, body);
      if (!budget) throw notFound('budget', id);
      const now = this.deps.clock.now();
      await recordDecision(tx, this.deps.log, {
        workspace_id: budget.workspace_id, code: 'budget_changed', ...agentOfBudget(budget), ...by,
        message: `${budget.scope} budget now ${budgetTerms(budget)}`, details: { budget_id: id, changed: Object.keys(body) },
      }, now);
      return budget;
    });
  }

  /** Deleting a budget lifts its limit from now on; what runs spent stays in the ledger. */
  deleteBudget(id: string, by?: ActorFields): Promise<void> {
    return this.deps.store.transaction(async (tx) => {
      const budget = await tx.budgets.get(id);
      if (!budget || !(await tx.budgets.delete(id))) throw notFound('budget', id);
      await recordDecision(tx, this.deps.log, {
        workspace_id: budget.workspace_id, code: 'budget_deleted', ...agentOfBudget(budget), ...by,
        message: `${budget.scope} budget of ${budgetTerms(budget)} deleted`, details: { budget_id: id },
      }, this.deps.clock.now());
    });
  }
}

/**
 * The kanban move, in the caller's transaction (TaskService.moveTaskIn). A function of its own, not
 * only a method: the end of a routine run moves its task to DONE, and what settles that end is
 * reached from the wakeup service, which TaskService itself depends on.
 */
export async function moveTaskWithin(
  tx: Tx, deps: Pick<ServiceDeps, 'clock' | 'log'>, id: string, state: TaskState, by: Actor, note: string | null, bypassApproval = false,
): Promise<Task> {
  const task = await tx.tasks.get(id);
  if (!task) throw notFound('task', id);
  const now = deps.clock.now();
  const provenance = await provenanceOfActor(tx, by);
  let target = state;
  // An already-approved (DONE) task moved to DONE again stays put: no second approval round.
  if (state === 'DONE' && task.requires_approval && !bypassApproval && task.state !== 'DONE') {
    target = 'IN_REVIEW';
    if (!(await requestApproval(tx, task, by, now))) {
      // Another move asked first (perhaps at this very moment, on another replica): it moves the task.
      const current = (await tx.tasks.get(id))!;
      if (current.state === 'IN_REVIEW') return current;
    }
  }
  if (target === task.state) return task;
  // The state it was read in is the guard: a move made meanwhile (another replica, an agent's action)
  // refuses this one, which was decided on a state the task no longer has.
  const moved = await tx.tasks.move(id, task.state, target, now);
  if (!moved) throw conflict(`task '${id}' was moved by someone else meanwhile (it is no longer ${task.state}); read it again and retry`);
  if (by.type === 'agent') {
    await recordAgentWrite(tx, deps.log, by, provenance, now, {
      workspace_id: task.workspace_id, code: 'task_moved', task_id: id,
      message: `moved task from ${task.state} to ${target}`, details: { from: task.state, to: target },
    });
  }
  tx.emit('task.moved', { task_id: id, workspace_id: task.workspace_id, from: task.state, to: target, by: { type: by.type, id: by.id }, note, provenance });
  return moved;
}

/**
 * Asks for the task's approval, once: the database keeps one pending approval per task, so of two
 * moves at once one inserts it (with its inbox item) and the other finds it. True when this one asked.
 */
async function requestApproval(tx: Tx, task: Task, by: Actor, now: number): Promise<boolean> {
  const requester = by.type === 'agent' && by.id ? by.id : task.assignee_agent_instance_id;
  if (!requester) {
    // Nobody could ask; an approval already waiting is enough.
    if (await tx.approvals.pendingForTask(task.id)) return false;
    throw conflict(`task '${task.id}' requires approval but has no agent to request it`);
  }
  const asked: Approval = {
    id: newId('apr'), workspace_id: task.workspace_id, task_id: task.id, requested_by_agent_id: requester,
    title: `Approve: ${task.title}`, status: 'pending', decision_note: null, created_at: now, resolved_at: null,
  };
  const { approval, created } = await tx.approvals.insertPending(asked);
  if (!created) return false;
  await raiseInboxItem(tx, {
    workspace_id: task.workspace_id, kind: 'approval', title: approval.title,
    body: `Task ${task.id} is waiting for approval.`, agent_id: requester, task_id: task.id, ref_id: approval.id,
  }, now);
  tx.emit('approval.created', { approval_id: approval.id, task_id: task.id, requested_by_agent_id: requester });
  return true;
}

/**
 * An agent's write is its run's follow-on work: the audit trail names the run, and whether it
 * was unattended and for whom (API.md, "Audit").
 */
function recordAgentWrite(tx: Tx, log: ServiceDeps['log'], by: Actor, provenance: Provenance, now: number,
  entry: { workspace_id: string; code: ActivityCode; task_id: string; message: string; details: Record<string, unknown> }) {
  return recordDecision(tx, log, {
    ...entry, agent_id: by.id, run_id: by.runId ?? null, actor_type: 'agent', actor_id: by.id, ...provenance,
  }, now);
}

/** "$10.00 a day, pausing the agent at the limit": a budget's terms in the activity's words. */
function budgetTerms(budget: Budget): string {
  const period = budget.period === 'daily' ? 'a day' : budget.period === 'monthly' ? 'a month' : 'in total';
  const action = budget.action_on_exceed === 'pause_agent' ? 'pausing the agent at the limit' : 'warning at the limit';
  return `$${budget.limit_usd.toFixed(2)} ${period}, ${action}`;
}

const agentOfBudget = (budget: Budget) => (budget.scope === 'agent' ? { agent_id: budget.scope_id } : {});

/**
 * Why the store refused a new task: the check and the insert are one statement, so this reads
 * only on the way to an error, and names the field at fault.
 */
async function explainRefusedTask(tx: Tx, body: z.output<typeof CreateTaskBody>): Promise<never> {
  await checkReferences(tx, body);
  throw conflict('the task could not be stored: a reference changed while it was written; try again');
}

async function checkReferences(tx: Tx, body: z.output<typeof CreateTaskBody>): Promise<void> {
  const ws = body.workspace_id;
  await requireWorkspace(tx, ws);
  if (body.assignee_agent_instance_id) await requireAgentIn(tx, ws, body.assignee_agent_instance_id, 'assignee_agent_instance_id');
  if (body.project_id) await requireProjectIn(tx, ws, body.project_id, 'project_id');
  if (body.parent_id) await requireTaskIn(tx, ws, body.parent_id, 'parent_id');
  for (const [i, id] of (body.blocked_by ?? []).entries()) await requireTaskIn(tx, ws, id, `blocked_by.${i}`);
  for (const [i, id] of (body.reviewers ?? []).entries()) await requireAgentIn(tx, ws, id, `reviewers.${i}`);
}

async function requireTaskIn(tx: Tx, workspaceId: string, taskId: string, field: string): Promise<Task> {
  const task = await tx.tasks.get(taskId);
  if (!task) throw Object.assign(notFound('task', taskId), { details: [{ path: field, message: 'not found' }] });
  if (task.workspace_id !== workspaceId) throw invalid(field, `task '${taskId}' belongs to another workspace`);
  return task;
}

async function workspaceOfScope(tx: Tx, scope: Budget['scope'], scopeId: string): Promise<string> {
  if (scope === 'workspace') return (await requireWorkspace(tx, scopeId, 'scope_id')).id;
  const owner = scope === 'project' ? await tx.projects.get(scopeId) : await tx.agents.get(scopeId);
  if (!owner || ('deleted_at' in owner && owner.deleted_at !== null)) throw Object.assign(notFound(scope, scopeId), { details: [{ path: 'scope_id', message: 'not found' }] });
  return owner.workspace_id;
}
