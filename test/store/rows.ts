/**
 * Complete rows for the contract suites: each builder fills every field with a plausible default,
 * so a test names only what it is about. Ids come from the product's own newId.
 */
import type { Routine, RoutineRun, RoutineTrigger } from '../../src/domain/routines.js';
import type { Agent, Approval, Budget, Comment, Project, Run, Task, Wakeup, Workspace } from '../../src/domain/types.js';
import type { Tx } from '../../src/persistence/store.js';
import { newId } from '../../src/services/ids.js';

export function workspaceRow(at: number, patch: Partial<Workspace> = {}): Workspace {
  return { id: newId('ws'), name: 'Acme', timezone: 'UTC', recovery_lookback_hours: 24, default_executor: null, deleted_at: null, created_at: at, updated_at: at, ...patch };
}

export function projectRow(workspaceId: string, at: number, patch: Partial<Project> = {}): Project {
  return { id: newId('prj'), workspace_id: workspaceId, name: 'Launch', default_executor: null, created_at: at, updated_at: at, ...patch };
}

export function agentRow(workspaceId: string, at: number, patch: Partial<Agent> = {}): Agent {
  return {
    id: newId('agt'), workspace_id: workspaceId, name: 'Worker', role: 'worker', status: 'idle', paused_reason: null,
    skip_idle_wakeups: false, max_concurrent_sessions: 1, cooldown_sec: 0, last_wakeup_finished_at: null,
    executor: { kind: 'function', name: 'noop' } as Agent['executor'], daily_run_cap: null, daily_cost_cap_usd: null,
    max_concurrent_routine_runs: null, warnings: [], deleted_at: null, created_at: at, updated_at: at, ...patch,
  };
}

export function taskRow(workspaceId: string, at: number, patch: Partial<Task> = {}): Task {
  return {
    id: newId('tsk'), workspace_id: workspaceId, project_id: null, parent_id: null, title: 'Write the report', description: '',
    state: 'TODO', assignee_agent_instance_id: null, requires_approval: false, executor: null, workflow: 'office', origin: 'user',
    origin_id: null, checkout_agent_id: null, checkout_wakeup_id: null, checkout_at: null, assigned_at: null, archived_at: null,
    completed_at: null, created_at: at, updated_at: at, unattended: false, on_behalf_of: null, blocked_by: [], reviewers: [], ...patch,
  };
}

export function commentRow(task: Pick<Task, 'id' | 'workspace_id'>, at: number, patch: Partial<Comment> = {}): Comment {
  return { id: newId('cmt'), workspace_id: task.workspace_id, task_id: task.id, author_type: 'user', author_id: 'usr_1', body: 'Looks good', created_at: at, ...patch };
}

export function approvalRow(agent: Pick<Agent, 'id' | 'workspace_id'>, taskId: string | null, at: number, patch: Partial<Approval> = {}): Approval {
  return {
    id: newId('apr'), workspace_id: agent.workspace_id, task_id: taskId, requested_by_agent_id: agent.id, title: 'Ship it?',
    status: 'pending', decision_note: null, created_at: at, resolved_at: null, ...patch,
  };
}

export function budgetRow(workspaceId: string, at: number, patch: Partial<Budget> = {}): Budget {
  return {
    id: newId('bdg'), workspace_id: workspaceId, scope: 'workspace', scope_id: workspaceId, limit_usd: 10, period: 'monthly',
    action_on_exceed: 'warn', alert_threshold_pct: 80, created_at: at, ...patch,
  };
}

export function wakeupRow(agent: Pick<Agent, 'id' | 'workspace_id'>, at: number, patch: Partial<Wakeup> = {}): Wakeup {
  const id = patch.id ?? newId('wk');
  return {
    id, workspace_id: agent.workspace_id, agent_id: agent.id, source: 'user', reason: 'user', payload: { user_id: 'usr_1' },
    task_id: null, status: 'queued', cancel_reason: null, skip_reason: null, coalesced_count: 1, coalesced_into_id: null,
    idempotency_key: null, retry_count: 0, scheduled_retry_at: null, available_at: at, context_snapshot: {}, run_id: null,
    routine_run_id: null, waiting_on_checkout: null, recovered: false, error: null, requested_at: at, claimed_at: null,
    finished_at: null, unattended: false, on_behalf_of: null, ...patch,
  };
}

export function runRow(wakeup: Pick<Wakeup, 'id' | 'workspace_id' | 'agent_id' | 'task_id'>, at: number, patch: Partial<Run> = {}): Run {
  return {
    id: newId('run'), wakeup_id: wakeup.id, workspace_id: wakeup.workspace_id, agent_id: wakeup.agent_id, task_id: wakeup.task_id,
    routine_id: null, attempt: 1, status: 'queued', executor_kind: 'function', session_key: null, idempotency_key: null,
    context_snapshot: {}, assembled_prompt: '', summary_injected: '', result_json: {}, error: null, cost_usd: null,
    unattended: false, on_behalf_of: null, created_at: at, started_at: null, finished_at: null, ...patch,
  };
}

export function routineRow(agent: Pick<Agent, 'id' | 'workspace_id'>, at: number, patch: Partial<Routine> = {}): Routine {
  return {
    id: newId('rtn'), workspace_id: agent.workspace_id, name: 'Daily digest', description: '', assignee_agent_instance_id: agent.id,
    owner_id: 'usr_1', status: 'active', paused_reason: null, concurrency_policy: 'always_enqueue', catch_up_policy: 'skip_missed',
    catch_up_max: 25, task_template: null, variables: [], priority: 0, jitter_sec: 0, delivery: null, consecutive_failures: 0,
    consecutive_failure_limit: 5, carried_missed_ticks: null, created_at: at, updated_at: at, ...patch,
  };
}

export function triggerRow(routineId: string, at: number, patch: Partial<RoutineTrigger> = {}): RoutineTrigger {
  return {
    id: newId('trg'), routine_id: routineId, kind: 'schedule', cron_expression: '0 * * * *', timezone: 'UTC', next_run_at: at + 3_600_000,
    last_fired_at: null, public_id: null, signing_mode: null, secret: null, enabled: true, created_at: at, updated_at: at, ...patch,
  };
}

export function routineRunRow(routine: Pick<Routine, 'id'>, at: number, patch: Partial<RoutineRun> = {}): RoutineRun {
  return {
    id: newId('rrn'), routine_id: routine.id, trigger_id: null, source: 'manual', status: 'received', skip_reason: null,
    trigger_payload: {}, linked_task_id: null, linked_wakeup_id: null, coalesced_into_run_id: null, dispatch_fingerprint: 'default',
    scheduled_for: null, delivery_id: null, outcome: null, delivery_status: 'none', error: null, unattended: true, on_behalf_of: null,
    started_at: at, completed_at: null, ...patch,
  };
}

/** A workspace with one agent in it: what most contract tests start from. */
export async function seedAgent(tx: Tx, at: number, patch: Partial<Agent> = {}) {
  const workspace = workspaceRow(at);
  await tx.workspaces.insert(workspace);
  const agent = agentRow(workspace.id, at, patch);
  await tx.agents.insert(agent);
  return { workspace, agent };
}
