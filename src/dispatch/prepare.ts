/**
 * Steps 1 to 9 of processWakeup, in one transaction: claim, agent status guard, retry promotion
 * checks, staleness, idle skip, blockers, checkout, budget pre-check, executor resolution, prompt,
 * and the run row. Each way out writes its status, its reason and an activity entry.
 */
import { budgetVerdict, periodStart, standingOf, type BudgetStanding } from '../domain/budgets.js';
import { isAgentProgramSpec, resolveExecutor, runsFromItsClaim, type ExecutorSpec } from '../domain/executors.js';
import { QUOTA_HOLD, quotaHoldSentence, releaseTimeOf } from '../domain/quotas.js';
import { hasDailyCap, hasZeroDailyCap, nextUtcDay, startOfUtcDay, type DailyCap } from '../domain/dailyCaps.js';
import { assemblePrompt } from '../domain/prompt.js';
import { retryCancellationOf, stalenessOf } from '../domain/staleness.js';
import { hashRunToken } from '../domain/runTokens.js';
import { routineSummaryScope } from '../domain/summary.js';
import type { Agent, Run, Task, Wakeup } from '../domain/types.js';
import { isIdleSkippable } from '../domain/wakeupSources.js';
import { provenanceOf } from '../domain/provenance.js';
import type { ClaimedWakeup, Fence, Tx, WakeupEnding } from '../persistence/store.js';
import { recordDecision } from '../services/activity.js';
import { raiseInboxItem } from '../services/inbox.js';
import { newId, newSecret } from '../services/ids.js';
import type { WakeContext } from '../services/wakeups.js';
import { decide } from './decisions.js';
import type { ResumeRequest } from './launch.js';
import type { PipelineContext } from './pipelineContext.js';

export type Preparation =
  | { kind: 'gone' }
  | { kind: 'ended'; wakeup: Wakeup; agentChanged: boolean }
  /**
   * Back in the queue (a daily cap): not an ending. The actor offers it again at `until`; with no
   * `until` (a zero cap) it holds nothing, and a change of the cap releases the wakeup.
   */
  | { kind: 'deferred'; wakeup: Wakeup; until: number | null; holdAgent?: boolean }
  /** Parked behind another run's checkout of its task: not an ending, the release offers it again. */
  | { kind: 'waiting'; wakeup: Wakeup }
  | {
    kind: 'launch'; wakeup: Wakeup; agent: Agent; task: Task | null; run: Run; spec: ExecutorSpec; token: string;
    /** The agent program's session this run resumes, with the full prompt should the program refuse. */
    resume: ResumeRequest | null;
    /** The shared quota the session spends (API.md, "A quota is shared"); null for command, http and function agents. */
    quotaKey: string | null;
  };

/** The session an agent CLI may resume: one per (task, agent) pair. */
export const sessionKeyOf = (taskId: string | null, agentId: string) => (taskId ? `task:${taskId}:agent:${agentId}` : null);

export async function prepareDispatch(ctx: PipelineContext, tx: Tx, wakeupId: string, now: number, fence: Fence): Promise<Preparation> {
  const claimed = await tx.wakeups.claimForDispatch(wakeupId, now, fence, { daily: periodStart('daily', now), monthly: periodStart('monthly', now) });
  if (!claimed) return { kind: 'gone' };
  const { wakeup, agent, task } = claimed;
  const end = (status: WakeupEnding['status'], fields: Omit<WakeupEnding, 'status' | 'finished_at'>, agentChanged = false) =>
    endWakeup(ctx, tx, wakeup, status, fields, now).then(() => ({ kind: 'ended' as const, wakeup, agentChanged }));

  if (!agent || agent.deleted_at !== null || agent.status === 'paused' || agent.status === 'stopped') {
    await decide(ctx, tx, wakeup, 'wakeup_agent_unavailable', `agent is ${agent?.status ?? 'deleted'}: finished with no run`, now);
    return end('finished', { skip_reason: !agent || agent.deleted_at !== null ? 'agent_deleted' : agent.status === 'paused' ? 'agent_paused' : 'agent_stopped' });
  }

  // An approval decision is news for the agent that asked, whatever became of the task: approving
  // moves it to DONE, which would otherwise cancel every approval_resolved as task_terminal.
  const taskScoped = wakeup.source !== 'approval_resolved';
  const retryCancel = wakeup.retry_count > 0 && taskScoped ? retryCancellationOf(wakeup, task) : null;
  if (retryCancel) {
    await decide(ctx, tx, wakeup, 'wakeup_retry_cancelled', `retry cancelled at promotion: ${retryCancel}`, now, {
      reason: retryCancel, old_agent: wakeup.agent_id,
    });
    return end('cancelled', { cancel_reason: retryCancel });
  }
  if (wakeup.task_id && taskScoped) {
    const stale = stalenessOf(wakeup, task);
    if (stale) {
      await decide(ctx, tx, wakeup, 'wakeup_stale_cancelled', `cancelled as stale: ${stale}`, now, {
        reason: stale, agent: wakeup.agent_id, assignee_now: task?.assignee_agent_instance_id ?? null,
      });
      return end('cancelled', { cancel_reason: stale });
    }
  }

  if (agent.skip_idle_wakeups && isIdleSkippable(wakeup.source, wakeup.payload) && (await tx.tasks.countActionable(agent.id)) === 0) {
    await decide(ctx, tx, wakeup, 'wakeup_idle_skipped', 'skipped: no actionable tasks', now, {
      reason: 'no_actionable_tasks', agent_instance_id: agent.id, agent_name: agent.name,
    });
    return end('finished', { skip_reason: 'no_actionable_tasks' });
  }

  // The task row lists its blockers: a task with none needs no look at their states.
  if (task && wakeup.source === 'task_assigned' && task.blocked_by.length > 0) {
    const openBlockers = await tx.tasks.openBlockers(task.id);
    if (openBlockers.length > 0) {
      // The blockers' completion sends task_blockers_resolved; this wakeup has nothing to do until then.
      await decide(ctx, tx, wakeup, 'wakeup_waiting_on_blockers', `task is blocked by ${openBlockers.join(', ')}`, now, {
        blocked_by: openBlockers,
      });
      return end('skipped', { skip_reason: 'blocked' });
    }
  }

  // Decided on the agent's usage row of the day, which this dispatch holds until it commits: one at a
  // time per agent, whichever replica or slot dispatches, each counting the run of the one before.
  const cap = hasDailyCap(agent) ? await tx.runs.holdDailyCaps(agent.id, startOfUtcDay(now), agent) : null;
  if (cap) return deferForDailyCap(ctx, tx, wakeup, agent, cap, now);

  if (task && heldByAnother(task, wakeup)) return waitForCheckout(ctx, tx, wakeup, task, now);

  const budget = await checkBudgets(ctx, tx, wakeup, agent, claimed.budgets.map(({ budget, spent }) => standingOf(budget, spent)), now);
  if (budget.blocked) {
    await pauseForBudget(ctx, tx, wakeup, agent, budget.blocked, now);
    return end('skipped', { skip_reason: 'budget_exceeded' }, true);
  }

  const executor = await resolveExecutorFor(tx, agent, task ?? null);
  if (!executor) {
    const run = await newRun(tx, { ...claimed, agent }, null, now);
    await tx.runs.insert({ ...run.row, status: 'failed', error: 'no_executor', finished_at: now }, null);
    await decide(ctx, tx, wakeup, 'wakeup_no_executor', 'failed: no executor resolves for this run (task, agent, project, workspace)', now, {}, 'error');
    return end('failed', { run_id: run.row.id, error: 'no_executor' });
  }
  const quotaKey = ctx.quotaKeyOf(executor.spec);
  if (quotaKey !== null && claimed.exhaustedQuotas.some((quota) => quota.key === quotaKey)) {
    const held = await holdForQuota(ctx, tx, wakeup, quotaKey, now);
    if (held) return held;
  }
  const run = await newRun(tx, { ...claimed, agent }, executor.spec, now);
  // The schema takes the task's checkout as the run starts; another run that took it first makes it wait.
  if (!(await tx.runs.start(run.row, hashRunToken(run.token)))) return waitForCheckout(ctx, tx, wakeup, task!, now);
  return { kind: 'launch', wakeup, agent, task: task ?? null, run: run.row, spec: executor.spec, token: run.token, resume: run.resume, quotaKey };
}

/** Pinned: one checkout per task; the wakeup that holds it (a retry of the same dispatch) keeps it. */
const heldByAnother = (task: Task, wakeup: Wakeup) => task.checkout_agent_id !== null && task.checkout_wakeup_id !== wakeup.id;

/**
 * At a daily cap the wakeup goes back to the queue. A positive cap holds it until the next UTC day.
 * A zero cap holds no deadline at all (no midnight timer re-armed every day): the wakeup stays
 * queued, and raising the cap (PATCH of the agent) releases it.
 */
async function deferForDailyCap(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, agent: Agent, cap: DailyCap, now: number): Promise<Preparation> {
  const until = hasZeroDailyCap(agent) ? null : nextUtcDay(now);
  const timed = wakeup.source === 'routine' || wakeup.source === 'self';
  claimHeld(await tx.wakeups.unclaim(wakeup.id, { available_at: until ?? now, skip_reason: cap }), wakeup);
  const when = until === null ? 'the cap changes (a daily cap of 0 never resets)' : new Date(until).toISOString();
  await decide(ctx, tx, wakeup, 'wakeup_deferred_daily_cap',
    `${timed ? 'timed work deferred' : 'event-driven work waits'} until ${when}: ${cap} reached`, now,
    { cap, until: until === null ? null : new Date(until).toISOString(), timed });
  return { kind: 'deferred', wakeup, until };
}

/**
 * Its program's quota is exhausted (another session said when it resets): the wakeup goes back to
 * the queue with no retry spent, until the reset and this agent's share of the spread, and the
 * agent actor holds the agent's other wakeups until then. Undefined when the quota was released
 * meanwhile: the run goes ahead.
 */
async function holdForQuota(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, key: string, now: number): Promise<Preparation | undefined> {
  const slot = await tx.quotas.holdSlot(key, now);
  if (!slot) return undefined;
  const until = releaseTimeOf(slot, slot.slot, ctx.config.quotaReleaseSpreadMs);
  claimHeld(await tx.wakeups.unclaim(wakeup.id, { available_at: until, skip_reason: QUOTA_HOLD }), wakeup);
  await decide(ctx, tx, wakeup, 'wakeup_held_by_quota', quotaHoldSentence(slot.kind, slot.exhausted_until, until), now, {
    quota_key: key, exhausted_until: new Date(slot.exhausted_until).toISOString(), starts_at: new Date(until).toISOString(), slot: slot.slot,
  });
  return { kind: 'deferred', wakeup, until, holdAgent: true };
}

async function newRun(tx: Tx, claimed: ClaimedWakeup & { agent: Agent }, spec: ExecutorSpec | null, now: number) {
  const { wakeup, agent } = claimed;
  const task = claimed.task ?? null;
  // The claim that creates a run records it on the wakeup in the same transaction: no run_id, no run yet.
  const attempt = wakeup.run_id === null ? 1 : claimed.attempts + 1;
  const routineId = typeof wakeup.payload.routine_id === 'string' ? wakeup.payload.routine_id : null;
  const prompt = await buildPromptFor(tx, claimed, routineId, spec);
  const row: Run = {
    id: newId('run'),
    wakeup_id: wakeup.id,
    workspace_id: wakeup.workspace_id,
    agent_id: agent.id,
    task_id: task?.id ?? null,
    routine_id: routineId,
    attempt,
    status: spec && runsFromItsClaim(spec) ? 'running' : 'queued',
    executor_kind: spec?.kind ?? null,
    session_key: sessionKeyOf(task?.id ?? null, agent.id),
    idempotency_key: `${wakeup.id}:${attempt}`,
    context_snapshot: wakeup.context_snapshot,
    assembled_prompt: prompt.prompt,
    summary_injected: prompt.summaryInjected,
    result_json: {},
    error: null,
    cost_usd: null,
    // The wakeup carries what caused it (a fire, or unattended work's follow-on): the run is done for the same person.
    ...provenanceOf(wakeup),
    created_at: now,
    started_at: spec && runsFromItsClaim(spec) ? now : null,
    finished_at: null,
  };
  return { row, token: newSecret(), resume: prompt.resume };
}

/**
 * The session a run resumes (API.md, "Resumed sessions"): the one the last run of this agent on the
 * task recorded, when this run's executor is the same agent program. Any other run starts afresh.
 */
function resumableSession(claimed: ClaimedWakeup, spec: ExecutorSpec | null) {
  const previous = claimed.previousSession;
  if (!claimed.task || claimed.resumeSince === null || !previous || !spec || !isAgentProgramSpec(spec) || previous.kind !== spec.kind) return null;
  return { sessionId: previous.id, totals: previous.totals, since: claimed.resumeSince };
}

/**
 * The full prompt, with the task's title and description and its comments, and for a resumed
 * session the delta it is given instead: what is new since its last run.
 */
async function buildPromptFor(tx: Tx, claimed: ClaimedWakeup & { agent: Agent }, routineId: string | null, spec: ExecutorSpec | null) {
  const { wakeup, agent } = claimed;
  const task = claimed.task ?? null;
  const summary = !task && routineId ? (await tx.summaries.get(agent.id, routineSummaryScope(routineId)))?.content ?? null : null;
  const wakes = (wakeup.context_snapshot as WakeContext).wakes ?? [];
  const missed = wakes.map((w) => w.payload).find((p) => typeof p.missed_ticks === 'number' && p.missed_ticks > 0);
  const input = {
    agentName: agent.name,
    agentId: agent.id,
    source: wakeup.source,
    reason: wakeup.reason,
    payload: wakeup.payload,
    wakes,
    task,
    comments: task ? claimed.comments : [],
    summary,
    resumeSince: null,
    missedTicks: missed ? { count: missed.missed_ticks as number, since: String(missed.missed_since ?? '') } : null,
  };
  const full = assemblePrompt(input);
  const session = resumableSession(claimed, spec);
  if (!session) return { ...full, resume: null };
  const delta = assemblePrompt({ ...input, resumeSince: session.since, comments: input.comments.filter((c) => c.created_at > session.since) });
  return { ...delta, resume: { sessionId: session.sessionId, fullPrompt: full.prompt, totals: session.totals } };
}

/** The project and the workspace are read only when neither the task nor the agent names an executor. */
async function resolveExecutorFor(tx: Tx, agent: Agent, task: Task | null) {
  const own = resolveExecutor({ task: task?.executor ?? null, agent: agent.executor, project: null, workspace: null });
  if (own) return own;
  const project = task?.project_id ? await tx.projects.get(task.project_id) : undefined;
  const workspace = await tx.workspaces.get(agent.workspace_id);
  return resolveExecutor({
    task: task?.executor ?? null,
    agent: agent.executor,
    project: project?.default_executor ?? null,
    workspace: workspace?.default_executor ?? null,
  });
}

/**
 * Pinned: a checkout conflict waits, like a blocker, and is never skipped. The wakeup goes back to
 * the queue parked behind the holder; the holder's release offers it again (WakeupService.
 * releaseCheckout), and that claim runs the staleness check again.
 */
async function waitForCheckout(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, task: Task, now: number): Promise<Preparation> {
  const held = (await tx.tasks.get(task.id))!;
  const holder = held.checkout_wakeup_id ? await tx.wakeups.get(held.checkout_wakeup_id) : undefined;
  const holderAgent = held.checkout_agent_id ? await tx.agents.get(held.checkout_agent_id) : undefined;
  const holderName = holderAgent?.name ?? held.checkout_agent_id;
  const session = holder?.run_id ? `run ${holder.run_id}` : `wakeup ${held.checkout_wakeup_id}`;
  const own = held.checkout_agent_id === wakeup.agent_id ? ' (its own earlier session)' : '';
  claimHeld(await tx.wakeups.unclaim(wakeup.id, { waiting_on_checkout: held.checkout_wakeup_id }), wakeup);
  await decide(ctx, tx, wakeup, 'wakeup_waiting_on_checkout',
    `waiting for ${session} of ${holderName} to release the task${own}; it runs once that run ends`, now, {
      holder_agent_id: held.checkout_agent_id, holder_wakeup_id: held.checkout_wakeup_id, holder_run_id: holder?.run_id ?? null,
    });
  return { kind: 'waiting', wakeup };
}

async function checkBudgets(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, agent: Agent, standings: BudgetStanding[], now: number) {
  if (standings.length === 0) return { blocked: null };
  const verdict = budgetVerdict(standings);
  for (const warning of verdict.warnings) {
    await recordDecision(tx, ctx.log, {
      workspace_id: agent.workspace_id, code: 'budget_warning', agent_id: agent.id, ...provenanceOf(wakeup),
      message: `${warning.budget.scope} budget ${warning.budget.id} exceeded (${warning.spent.toFixed(2)} of ${warning.budget.limit_usd} USD); proceeding (action warn)`,
      details: { budget_id: warning.budget.id, spent_usd: warning.spent, limit_usd: warning.budget.limit_usd },
    }, now, 'warn');
  }
  return { blocked: verdict.kind === 'block' ? verdict.standing : null };
}

async function pauseForBudget(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, agent: Agent, standing: BudgetStanding, now: number) {
  const reason = `${standing.budget.scope} budget exceeded: ${standing.spent.toFixed(2)} of ${standing.budget.limit_usd} USD (${standing.budget.period})`;
  // Paused meanwhile by someone else (a person, another budget's claim): that pause and its reason stand.
  if (await tx.agents.pause(agent.id, reason, now)) {
    // Nothing stops silently: the person who set the budget sees the pause, and resumes the agent when they choose.
    await raiseInboxItem(tx, {
      workspace_id: agent.workspace_id, kind: 'agent.paused', title: `${agent.name} was paused by its budget`, body: reason,
      agent_id: agent.id, task_id: wakeup.task_id, ref_id: standing.budget.id,
    }, now);
  }
  if (wakeup.task_id) await ctx.wakeups.releaseCheckout(tx, wakeup.task_id, wakeup.id);
  await decide(ctx, tx, wakeup, 'wakeup_budget_blocked', `skipped and agent paused: ${reason}`, now, {
    budget_id: standing.budget.id, spent_usd: standing.spent, limit_usd: standing.budget.limit_usd,
  }, 'warn');
}

/** Ends a claimed wakeup without a launch, releasing any checkout it holds. */
export async function endWakeup(ctx: PipelineContext, tx: Tx, wakeup: Wakeup, status: WakeupEnding['status'], fields: Omit<WakeupEnding, 'status' | 'finished_at'>, now: number) {
  claimHeld(await tx.wakeups.endClaimed(wakeup.id, { status, finished_at: now, ...fields }), wakeup);
  if (wakeup.task_id) await ctx.wakeups.releaseCheckout(tx, wakeup.task_id, wakeup.id);
  // Whatever ends this wakeup ends only its own request: requests folded into it (a user wake, an
  // event) always proceed by the idle rule, so they go back to the queue and are judged on their own.
  await ctx.wakeups.requeueFolded(tx, wakeup, now);
  // Nothing to do is a fine result; a fire that never reached its agent (paused, stale, blocked) is not.
  const nothingToDo = status === 'finished' && fields.skip_reason === 'no_actionable_tasks';
  await ctx.routineOutcomes.recordOutcome(tx, wakeup, nothingToDo ? 'succeeded' : 'failed', now, false);
}

/**
 * The claim that started this dispatch holds the wakeup's row until its transaction ends, so a
 * transition from `claimed` cannot be refused here: a refusal is a bug, and fails the dispatch.
 */
function claimHeld(moved: Wakeup | undefined, wakeup: Wakeup): Wakeup {
  if (!moved) throw new Error(`wakeup '${wakeup.id}' left its claim during its own dispatch`);
  return moved;
}
