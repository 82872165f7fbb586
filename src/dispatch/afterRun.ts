/**
 * What follows a finished run, inside its transaction: the continuation summary of a taskless
 * routine run, the agent's follow-up actions, and the loop detector.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from '../config.js';
import { selfWakeKey } from '../domain/idempotency.js';
import { WakeDelaySec } from '../domain/schemas.js';
import { provenanceOf } from '../domain/provenance.js';
import { buildContinuationSummary, routineSummaryScope } from '../domain/summary.js';
import { TASK_STATES, type Run } from '../domain/types.js';
import type { Tx } from '../persistence/store.js';
import { recordDecision } from '../services/activity.js';
import { raiseInboxItem } from '../services/inbox.js';
import { ServiceError } from '../services/errors.js';
import { InvalidWakeupPayloadError } from '../domain/wakeupSources.js';
import type { TaskService } from '../services/tasks.js';
import type { WakeupService } from '../services/wakeups.js';
import type { FinishedRun } from './pipelineContext.js';

const DAY_MS = 86_400_000;

/** The follow-ups an agent may ask for in result_json.actions. */
export const AgentActionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('self_wake'), reason: z.string().min(1).max(2000), delay_sec: WakeDelaySec.optional() }),
  z.object({ type: z.literal('comment'), task_id: z.string().min(1), body: z.string().min(1).max(100_000) }),
  z.object({ type: z.literal('move_task'), task_id: z.string().min(1), state: z.enum(TASK_STATES) }),
]);
export type AgentAction = z.infer<typeof AgentActionSchema>;

export interface AfterRunDeps {
  config: Config;
  log: Logger;
  wakeups: WakeupService;
  tasks: TaskService;
  /** Told when the loop detector pauses an agent. */
  agentChanged: (agentId: string) => void;
}

export function createAfterRun(deps: AfterRunDeps) {
  return async (tx: Tx, finished: FinishedRun, now: number): Promise<void> => {
    const { run } = finished;
    const progressActions = finished.ok ? await applyActions(deps, tx, run, finished.resultJson, now) : 0;
    if (finished.ok && run.task_id === null && run.routine_id) await upsertSummary(deps, tx, run, finished, now);
    // Failed runs are the retry machinery's business; the loop detector watches runs that "succeed" at nothing.
    if (run.task_id && finished.ok) await detectLoop(deps, tx, run, finished.madeProgress === true || progressActions > 0, now);
  };
}

async function upsertSummary(deps: AfterRunDeps, tx: Tx, run: Run, finished: FinishedRun, now: number) {
  const scope = routineSummaryScope(run.routine_id!);
  const previous = await tx.summaries.get(run.agent_id, scope);
  try {
    const since = previous?.updated_at ?? now - DAY_MS;
    const states = await tx.tasks.countByStateIn(run.workspace_id, since);
    const blocked = await tx.tasks.list({ workspace_id: run.workspace_id, state: 'BLOCKED', limit: 20 });
    const blockers = [];
    for (const task of blocked) {
      const titles = [];
      for (const id of task.blocked_by) titles.push((await tx.tasks.get(id))?.title ?? id);
      blockers.push({ task_id: task.id, title: task.title, blocked_by_titles: titles, since: new Date(task.updated_at) });
    }
    const content = buildContinuationSummary({
      now: new Date(now),
      run: { id: run.id, status: 'succeeded', result_json: finished.resultJson },
      stats: {
        tasks_completed: states.DONE ?? 0,
        tasks_failed: states.CANCELLED ?? 0,
        agent_errors: await tx.activity.countSince(run.workspace_id, 'wakeup_escalated', since),
        budget_alerts: await tx.activity.countSince(run.workspace_id, 'budget_alert', since),
        open_tasks: (states.TODO ?? 0) + (states.IN_PROGRESS ?? 0),
      },
      blockers,
      previous: previous?.content ?? null,
    });
    await tx.summaries.upsert({
      agent_profile_id: run.agent_id, scope, content, content_tokens: Math.ceil(content.length / 4), updated_at: now, updated_by_run_id: run.id,
    });
  } catch (error) {
    // Last good wins: a builder failure leaves the previous summary in place for the next run.
    deps.log.error({ err: error, run_id: run.id, scope }, 'continuation summary builder failed; keeping the previous summary');
  }
}

/**
 * Applies result_json.actions as the agent, within its own workspace and its own tasks. Returns how
 * many applied actions changed something: a self_wake only asks for another run, which is what a
 * loop does, so it is not progress.
 */
async function applyActions(deps: AfterRunDeps, tx: Tx, run: Run, result: Record<string, unknown>, now: number): Promise<number> {
  if (!Array.isArray(result.actions)) return 0;
  let progress = 0;
  for (const [index, raw] of result.actions.slice(0, 20).entries()) {
    const parsed = AgentActionSchema.safeParse(raw);
    const problem = parsed.success ? await applyActionSafely(deps, tx, run, parsed.data, index, now) : parsed.error.issues[0]?.message ?? 'invalid action';
    if (problem) {
      await recordDecision(tx, deps.log, {
        workspace_id: run.workspace_id, code: 'agent_action_rejected', agent_id: run.agent_id, run_id: run.id, ...provenanceOf(run),
        message: `action ${index} rejected: ${problem}`, details: { action: raw as Record<string, unknown> },
      }, now, 'warn');
    } else if (parsed.success && isProgress(parsed.data)) progress++;
  }
  return progress;
}

/** A change to a task (state, comment) is progress; asking to be woken again is not. */
const isProgress = (action: AgentAction) => action.type !== 'self_wake';

/** A refused action (bad id, deleted agent) is rejected on its own; it never fails the run's bookkeeping. */
async function applyActionSafely(deps: AfterRunDeps, tx: Tx, run: Run, action: AgentAction, index: number, now: number): Promise<string | null> {
  try {
    return await applyAction(deps, tx, run, action, index, now);
  } catch (error) {
    if (error instanceof ServiceError || error instanceof InvalidWakeupPayloadError) return error.message;
    throw error;
  }
}

/**
 * Each action is the run's follow-on work: it carries the run's provenance (unattended, on whose
 * behalf) to what it writes and to the wakeups that follow, which count against the routine-run
 * caps when unattended. A self-wake refused at a cap is logged as such by the wakeup service.
 */
async function applyAction(deps: AfterRunDeps, tx: Tx, run: Run, action: AgentAction, index: number, now: number): Promise<string | null> {
  const provenance = provenanceOf(run);
  if (action.type === 'self_wake') {
    await deps.wakeups.enqueue(tx, {
      agent_id: run.agent_id, source: 'self', reason: action.reason,
      payload: { reason: action.reason, ...(run.task_id ? { task_id: run.task_id } : {}) },
      idempotency_key: selfWakeKey(run.id, index),
      not_before: now + (action.delay_sec ?? 0) * 1000,
      provenance,
    }, now);
    return null;
  }
  const task = await tx.tasks.get(action.task_id);
  if (!task || task.workspace_id !== run.workspace_id) return `task '${action.task_id}' is not in the agent's workspace`;
  const by = { type: 'agent' as const, id: run.agent_id, runId: run.id, provenance };
  if (action.type === 'comment') {
    await deps.tasks.createCommentIn(tx, task.id, { body: action.body, author_type: 'agent', author_id: run.agent_id }, by);
    return null;
  }
  if (task.assignee_agent_instance_id !== run.agent_id) return `an agent may only move its own tasks`;
  await deps.tasks.moveTaskIn(tx, task.id, action.state, by, null);
  return null;
}

/**
 * Several runs in a row for the same (agent, task) that change nothing — no state change, no new
 * comment or subtask, no action on a task — is a loop burning money, even when each run wakes
 * itself again. The agent is paused with a reason and an inbox item.
 */
async function detectLoop(deps: AfterRunDeps, tx: Tx, run: Run, progressed: boolean, now: number) {
  const limit = deps.config.loopDetectorRuns;
  // The close recorded changes to the task; an action that changed something counts too.
  if (progressed && run.made_progress !== true) await tx.runs.markProgress(run.id);
  if (limit === 0 || progressed) return;
  const recent = await tx.runs.recentForTask(run.agent_id, run.task_id!, limit);
  if (recent.length < limit || recent.some((r) => r.made_progress !== false)) return;
  const reason = `paused by the loop detector: ${limit} runs in a row on task ${run.task_id} changed nothing`;
  // Paused already (by a person, a budget, another replica's detector): that pause and its reason stand.
  const agent = await tx.agents.pause(run.agent_id, reason, now);
  if (!agent) return;
  await raiseInboxItem(tx, {
    workspace_id: run.workspace_id, kind: 'agent.paused', title: `${agent.name} was paused`, body: reason,
    agent_id: agent.id, task_id: run.task_id, ref_id: run.id,
  }, now);
  await recordDecision(tx, deps.log, {
    workspace_id: run.workspace_id, code: 'agent_loop_paused', agent_id: agent.id, task_id: run.task_id, run_id: run.id, ...provenanceOf(run),
    message: reason, details: { runs: limit },
  }, now, 'warn');
  tx.afterCommit(() => deps.agentChanged(agent.id));
}
