/**
 * Step 11 of processWakeup and HandleWakeupFailure: record the run's result, release the task,
 * start the cooldown, and on failure either schedule a retry (parsed rate-limit reset or backoff)
 * or escalate to the coordinator.
 */
import { planRetry } from '../domain/backoff.js';
import type { Agent, Run, Wakeup } from '../domain/types.js';
import { agentErrorKey } from '../domain/idempotency.js';
import { provenanceOf } from '../domain/provenance.js';
import { reportedCost, usageFromResult } from '../domain/agentPrograms.js';
import type { Fence, RunEnding, Tx } from '../persistence/store.js';
import type { SessionReport } from './launch.js';
import { recordDecision } from '../services/activity.js';
import { raiseInboxItem } from '../services/inbox.js';
import { decide } from './decisions.js';
import type { PipelineContext } from './pipelineContext.js';

export interface RunResult {
  ok: boolean;
  resultJson: Record<string, unknown>;
  error: string | null;
  /** A run a dead process left behind: it may have spent money, so it is not simply failed. */
  interrupted?: boolean;
  /** False on the fallback path after a failed finish: record the result, skip actions and summaries. */
  followUps?: boolean;
  /** What an agent program's session reported; absent: the usage, cost and session id are read from resultJson. */
  report?: SessionReport | undefined;
  /** The shared quota the session spent: a limit with a reset exhausts it for every agent on it. */
  quotaKey?: string | null;
  /** The agent program's session the run was to resume. */
  resumedSessionId?: string | null;
  /** The session could not start for how it is set up: it fails at once, with no retry, and a person is told. */
  setupError?: string | undefined;
}

export interface FinishOutcome {
  /** When the wakeup waits for a retry, the time it becomes available again. */
  retryAt: number | null;
}

/**
 * `wakeup` is the wakeup as claimed: nothing a finish reads of it changes while its run runs.
 * `fence` is the one the run was claimed with: a replica that lost the agent since then (another
 * took it over, and settles the run itself) finds its close refused, and nothing else is written.
 */
export async function finishRun(
  ctx: PipelineContext, tx: Tx, wakeup: Wakeup, run: Run, result: RunResult, now: number, fence: Fence = ctx.fenceOf(run.agent_id),
): Promise<FinishOutcome> {
  const status: Run['status'] = result.ok ? 'succeeded' : result.interrupted ? 'interrupted' : 'failed';
  const session = sessionRecordOf(result);
  const cost = session.cost_usd;
  const ended: RunEnding = { status, result_json: result.resultJson, error: result.error, finished_at: now, ...session };
  // Whether the run changed its task is the loop detector's question, asked of succeeded runs only.
  const progress = result.ok && run.task_id && result.followUps !== false ? { taskId: run.task_id, since: run.started_at ?? now } : null;
  // A succeeded session's wakeup is finished by the close itself, in the same statement.
  const closed = await tx.runs.close(run.id, ended, progress, fence, result.ok ? wakeup.id : null);
  if (!closed.closed) {
    await recordLateResult(ctx, tx, wakeup, run, status, fence, now);
    await recordLateSpend(ctx, tx, run, session, now);
    return { retryAt: null };
  }
  await recordSessionNews(ctx, tx, wakeup, run, result, now);
  ctx.wakeups.offerToCheckoutWaiters(tx, closed.checkoutWaiters);
  if (cost !== null && cost > 0) await recordCost(ctx, tx, run, cost, now);
  tx.afterCommit(() => ctx.observer.runEnded({ agent_id: run.agent_id, status, started_at: run.started_at, finished_at: now }));
  tx.emit('run.finished', { run_id: run.id, wakeup_id: wakeup.id, agent_id: run.agent_id, task_id: run.task_id, status, cost_usd: cost, provenance: provenanceOf(run) });

  const finished = {
    wakeup, run: { ...run, ...ended, assembled_prompt: ended.assembled_prompt ?? run.assembled_prompt, made_progress: closed.madeProgress ?? run.made_progress ?? null }, runId: run.id, agentId: run.agent_id, taskId: run.task_id, ok: result.ok,
    resultJson: result.resultJson, error: result.error, madeProgress: closed.madeProgress,
  };
  if (result.ok) {
    await ctx.routineOutcomes.recordOutcome(tx, wakeup, 'succeeded', now, true);
    if (result.followUps !== false) await ctx.afterRun(tx, finished, now);
    return { retryAt: null };
  }
  if (result.followUps !== false) await ctx.afterRun(tx, finished, now);
  if (result.setupError) {
    await failForSetup(ctx, tx, wakeup, run, result.setupError, now);
    return { retryAt: null };
  }
  return handleWakeupFailure(ctx, tx, wakeup, run, result, now);
}

/**
 * A setup error (the program not found or not executable, a missing working directory) is no
 * passing failure: a retry in two minutes would fail the same way for hours. The wakeup fails at
 * once, and the inbox says what is missing and where it was looked for.
 */
async function failForSetup(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, run: Run, setupError: string, now: number) {
  if (!(await tx.wakeups.endClaimed(wakeup.id, { status: 'failed', finished_at: now, error: setupError }))) return;
  const name = (await tx.agents.get(wakeup.agent_id))?.name ?? wakeup.agent_id;
  await ctx.routineOutcomes.recordOutcome(tx, wakeup, 'failed', now, true);
  await raiseInboxItem(tx, {
    workspace_id: wakeup.workspace_id, kind: 'agent.setup_error', title: `${name} cannot start: ${setupError.split(';')[0]}`,
    body: `${setupError}.\nFix the agent's executor (PATCH /api/office/agents/${wakeup.agent_id}), then wake it again.`,
    agent_id: wakeup.agent_id, task_id: wakeup.task_id, ref_id: run.id,
  }, now);
  await decide(ctx, tx, { ...wakeup, run_id: run.id }, 'wakeup_setup_error', `failed at once, not retried: ${setupError}`, now,
    { executor_kind: run.executor_kind, error: setupError }, 'error');
}

/**
 * The run's result arrived after this owner lost the agent: the new owner has settled (or will
 * settle) the run as interrupted and retried its wakeup, so this result changes nothing but the
 * run's late_result_json. Never a second succeeded run for the wakeup.
 */
async function recordLateResult(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, run: Run, status: Run['status'], fence: Fence, now: number) {
  if ((await tx.runs.get(run.id))?.status === 'cancelled') {
    // A note on the run, not a step of the wakeup's story: the wakeup's explain keeps naming who cancelled it.
    await recordDecision(tx, ctx.log, {
      workspace_id: wakeup.workspace_id, code: 'run_result_after_cancel', agent_id: wakeup.agent_id, task_id: wakeup.task_id,
      run_id: run.id, ...provenanceOf(wakeup),
      message: `the session ended ${status} after its run was cancelled; its result is kept on the run as late_result_json, not recorded`,
      details: { source: wakeup.source, wakeup_id: wakeup.id, late_status: status },
    }, now);
    return;
  }
  await decide(ctx, tx, { ...wakeup, run_id: run.id }, 'run_result_fenced_out',
    `the run ended ${status} after this replica lost the agent (epoch ${fence.epoch}); its result is kept on the run as late_result_json, not recorded`,
    now, { owner: fence.owner_id, epoch: fence.epoch, late_status: status }, 'warn');
}

/**
 * Spend counts however a run ends (API.md, "Trust boundaries"): what a session reported after its
 * run was cancelled, or settled as interrupted by a new owner, is the run's cost, counted once (the
 * run takes a cost only while it has none, and the ledger one entry per run).
 */
async function recordLateSpend(ctx: Pick<PipelineContext, 'observer'>, tx: Tx, run: Run, session: Pick<RunEnding, 'cost_usd' | 'usage'>, now: number) {
  if (session.cost_usd === null || session.cost_usd === undefined) return;
  if (!(await tx.runs.recordLateSpend(run.id, { cost_usd: session.cost_usd, usage: session.usage ?? null }))) return;
  if (session.cost_usd > 0) await recordCost(ctx, tx, run, session.cost_usd, now);
}

/** The spend a fenced-out session left in its run's late result, for the owner that settles the run. */
export function lateSpendOf(run: Run): Pick<RunEnding, 'cost_usd' | 'usage'> {
  const late = run.late_result_json;
  const cost = late && typeof late.cost_usd === 'number' && late.cost_usd >= 0 ? late.cost_usd : null;
  return { cost_usd: cost ?? run.cost_usd, usage: (late?.usage as Run['usage']) ?? run.usage ?? null };
}

export async function recordCost(ctx: Pick<PipelineContext, 'observer'>, tx: Tx, run: Run, cost: number, now: number) {
  const task = run.task_id ? await tx.tasks.get(run.task_id) : undefined;
  await tx.budgets.recordCost({
    workspace_id: run.workspace_id, project_id: task?.project_id ?? null, agent_id: run.agent_id,
    run_id: run.id, cost_usd: cost, created_at: now,
  });
  tx.afterCommit(() => ctx.observer.costRecorded(run.agent_id, cost));
}

/**
 * Every end of a failed run's wakeup below is a transition from `claimed`: a wakeup that left its
 * claim meanwhile (a person cancelled its run, and its wakeup with it) keeps the end it was given,
 * and nothing more is done for it here.
 */
export async function handleWakeupFailure(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, run: Run, result: RunResult, now: number): Promise<FinishOutcome> {
  const errorText = result.error ?? 'run failed';
  const agent = await tx.agents.get(wakeup.agent_id);
  if (!agent || agent.deleted_at !== null) {
    await endForDeletedAgent(ctx, tx, wakeup, run, errorText, now);
    return { retryAt: null };
  }
  const plan = planRetry({
    errorText,
    now: new Date(now),
    retryCount: wakeup.retry_count,
    steps: ctx.config.backoffStepsMs,
    jitter: ctx.config.backoffJitter,
    bufferSec: ctx.config.rateLimitBufferSec,
    random: ctx.random,
    hostZone: ctx.config.hostTimeZone,
    signal: result.report?.rateLimit ? { rateLimited: true, resetAt: result.report.rateLimit.resetAt } : null,
  });
  if (plan.kind === 'retry' && plan.parsedResetAt && result.quotaKey) {
    await ctx.exhaustQuota(tx, { key: result.quotaKey, run, resetAt: plan.parsedResetAt.getTime(), releaseAt: plan.retryAt.getTime(), reason: errorText }, now);
  }
  if (plan.kind === 'retry') {
    const retryAt = plan.retryAt.getTime();
    if (!(await tx.wakeups.scheduleRetry(wakeup.id, { retry_count: plan.retryCount, retry_at: retryAt, error: errorText }))) return { retryAt: null };
    await decide(ctx, tx, { ...wakeup, run_id: run.id }, 'wakeup_retry_scheduled',
      `${result.interrupted ? 'interrupted' : 'failed'}; retry ${plan.retryCount} scheduled for ${plan.retryAt.toISOString()} (${plan.source})${plan.unusableReset ? `; the limit named no usable reset: ${plan.unusableReset}` : ''}`,
      now, {
        source: plan.source,
        parsed_reset_at: plan.parsedResetAt?.toISOString() ?? null,
        reset_form: plan.resetForm,
        // A reset the text named but that is no reset time (a DST gap, an impossible time, already past): said, then backoff.
        unusable_reset: plan.unusableReset,
        retry_count: plan.retryCount,
        scheduled_retry_at: plan.retryAt.toISOString(),
        rate_limited: plan.rateLimited,
        error: errorText.slice(-500),
      }, 'warn');
    return { retryAt };
  }
  await escalateFailure(ctx, tx, wakeup, agent, run, errorText, plan.retryCount, now);
  return { retryAt: null };
}

/**
 * A session that was running when its agent was deleted, and failed: no retry is scheduled, since no
 * actor will ever claim it, and the coordinator is not woken about an agent that is gone.
 */
async function endForDeletedAgent(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, run: Run, errorText: string, now: number) {
  if (!(await tx.wakeups.endClaimed(wakeup.id, { status: 'cancelled', cancel_reason: 'agent_deleted', finished_at: now, error: errorText }))) return;
  await ctx.routineOutcomes.recordOutcome(tx, wakeup, failedOutcomeOf(run), now, true);
  await decide(ctx, tx, { ...wakeup, run_id: run.id }, 'wakeup_cancelled', 'failed and not retried: the agent was deleted', now, {
    reason: 'agent_deleted', error: errorText.slice(-500),
  }, 'warn');
}

/** A run a dead process left behind may have spent money: its routine run says so. */
const failedOutcomeOf = (run: Run) => (run.status === 'interrupted' ? 'interrupted' : 'failed');

/** After the last retry: the wakeup fails, a person sees it in the inbox, and the coordinator is woken. */
async function escalateFailure(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, agent: Agent, run: Run, errorText: string, retryCount: number, now: number) {
  if (!(await tx.wakeups.endClaimed(wakeup.id, { status: 'failed', finished_at: now, error: errorText }))) return;
  await ctx.routineOutcomes.recordOutcome(tx, wakeup, failedOutcomeOf(run), now, true);
  await raiseInboxItem(tx, {
    workspace_id: wakeup.workspace_id, kind: 'agent.error',
    title: `${agent.name} failed after ${retryCount} retries`,
    body: errorText.slice(-4000), agent_id: wakeup.agent_id, task_id: wakeup.task_id, ref_id: run.id,
  }, now);
  const coordinator = await tx.agents.coordinatorOf(wakeup.workspace_id);
  // A coordinator is not woken about its own failure: that would loop on a broken coordinator.
  const notify = coordinator && coordinator.id !== wakeup.agent_id ? coordinator : null;
  if (notify) {
    // Waking the coordinator is the failed run's follow-on work: done for the same person, under the same caps.
    await ctx.wakeups.enqueue(tx, {
      agent_id: notify.id, source: 'agent_error', reason: `${agent.name} failed`,
      payload: { agent_profile_id: wakeup.agent_id, run_id: run.id, error: errorText.slice(-4000) },
      idempotency_key: agentErrorKey(wakeup.id), provenance: provenanceOf(run),
    }, now);
  }
  await recordDecision(tx, ctx.log, {
    workspace_id: wakeup.workspace_id, code: 'wakeup_escalated', agent_id: wakeup.agent_id, task_id: wakeup.task_id,
    wakeup_id: wakeup.id, run_id: run.id, ...provenanceOf(wakeup),
    message: `failed after ${retryCount} retries; ${notify ? `escalated to ${notify.name}` : 'no coordinator to escalate to'}`,
    details: { coordinator_id: notify?.id ?? null, retry_count: retryCount },
  }, now, 'error');
}

/** The run's usage, cost and session as the executor reported them, or as a result object carries them (API.md). */
function sessionRecordOf(result: RunResult): Pick<RunEnding, 'cost_usd' | 'usage' | 'cost_note' | 'cli_session_id' | 'cli_session_totals' | 'assembled_prompt'> {
  const report = result.report;
  if (report) {
    return {
      cost_usd: report.cost_usd, usage: report.usage, cost_note: report.cost_note, cli_session_id: report.cli_session_id,
      cli_session_totals: report.totals, ...(report.resumeRefused ? { assembled_prompt: report.prompt } : {}),
    };
  }
  const json = result.resultJson;
  const usage = usageFromResult(json);
  const cost = reportedCost(json.cost_usd);
  const sessionId = typeof json.cli_session_id === 'string' && json.cli_session_id.length > 0 ? json.cli_session_id : null;
  return {
    cost_usd: cost, usage, cli_session_id: sessionId, cli_session_totals: null,
    cost_note: cost !== null ? null : usage !== null ? 'the result reported tokens but no cost_usd' : null,
  };
}

/** What an agent program's session said besides its outcome: a refused resume, a limit that is near. */
async function recordSessionNews(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, run: Run, result: RunResult, now: number) {
  const report = result.report;
  if (!report) return;
  if (report.resumeRefused) {
    await decide(ctx, tx, { ...wakeup, run_id: run.id }, 'run_resume_refused',
      `${run.executor_kind} could not resume session ${result.resumedSessionId ?? '(unknown)'} (not found); the run started afresh at once with the full prompt`,
      now, { executor_kind: run.executor_kind, session_id: result.resumedSessionId ?? null }, 'warn');
  }
  if (report.limitWarning && result.quotaKey) {
    await tx.quotas.warn(result.quotaKey, run.executor_kind ?? 'unknown', report.limitWarning, now);
    await decide(ctx, tx, { ...wakeup, run_id: run.id }, 'quota_limit_near', `its ${run.executor_kind} quota is near its limit: ${report.limitWarning}`,
      now, { quota_key: result.quotaKey }, 'warn');
  }
}