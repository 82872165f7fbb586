/**
 * "Why did (or didn't) my agent wake?" in one sentence, from the wakeup row, the live actor
 * and the activity that explains its last decision.
 */
import { isReasonCode, reasonClause, type ReasonCode } from './activityCodes.js';
import { QUOTA_HOLD } from './quotas.js';
import { OWNER_REVOKED_REASON, RUN_CANCELLED_REASON } from './runCancel.js';
import type { Wakeup } from './types.js';

export interface ExplainInput {
  wakeup: Wakeup;
  agentName: string;
  agentStatus: string;
  /** A daily cap of 0: deferred work waits for the cap to change, not for a time. */
  zeroDailyCap: boolean;
  actor: { state: string; running: number; max_concurrent_sessions: number; cooldown_until: string | null } | null;
  /** The latest activity message about this wakeup, if any. */
  lastDecision: string | null;
  /** Who holds the task now, for reassignment. */
  assigneeName: string | null;
  coalescedIntoId: string | null;
  /** For a coalesced wakeup: the wakeup it was folded into, and the run it was linked to when folded. */
  foldedInto: FoldTarget | null;
  now: number;
}

export interface FoldTarget {
  status: Wakeup['status'];
  skip_reason: string | null;
  cancel_reason: string | null;
  /** The target's latest run. */
  run_id: string | null;
  /** The run the request was linked to when it was folded, as it is now. */
  linkedRun: { status: string; finished_at: number | null } | null;
}

const hhmmss = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** What follows a cancel reason's sentence (activityCodes.ts): whom the reassigned task went to. */
const CANCEL_DETAILS: Partial<Record<ReasonCode, (i: ExplainInput) => string | null>> = {
  assignee_changed: (i) => i.assigneeName && ` to ${i.assigneeName}`,
  retry_stale_assignee: (i) => i.assigneeName && ` to ${i.assigneeName}`,
};
/** A stopped run is explained by its activity entry, which names who stopped it and why (services/runCancel.ts). */
const TOLD_BY_ITS_ENTRY: readonly ReasonCode[] = [RUN_CANCELLED_REASON, OWNER_REVOKED_REASON];

/** A wakeup that ended for one of these never reached its agent; any other skip reason reads "skipped". */
const ENDED_WITH_NO_RUN: readonly ReasonCode[] = ['agent_paused', 'agent_stopped', 'agent_deleted'];

function explainCancel(input: ExplainInput): string {
  const reason = input.wakeup.cancel_reason;
  if (!isReasonCode(reason)) return `cancelled: ${reason ?? 'no reason recorded'}`;
  if (TOLD_BY_ITS_ENTRY.includes(reason) && input.lastDecision) return `cancelled: ${input.lastDecision}`;
  return `cancelled: ${reasonClause(reason)}${CANCEL_DETAILS[reason]?.(input) ?? ''}`;
}

function explainSkip(w: Wakeup, reason: string): string {
  if (!isReasonCode(reason)) return `${w.status}: ${reason}`;
  return `${ENDED_WITH_NO_RUN.includes(reason) ? 'finished with no run' : 'skipped'}: ${reasonClause(reason)}`;
}

export function explainWakeup(input: ExplainInput): string {
  const w = input.wakeup;
  switch (w.status) {
    case 'queued':
      return explainQueued(input);
    case 'claimed':
      return `running: claimed at ${hhmmss(w.claimed_at ?? w.requested_at)}${w.run_id ? ` as run ${w.run_id}` : ''}`;
    case 'scheduled_retry':
      return `waiting to retry: attempt ${w.retry_count + 1} at ${new Date(w.scheduled_retry_at ?? 0).toISOString()}${w.error ? ` after: ${firstLine(w.error)}` : ''}`;
    case 'coalesced':
      return w.run_id ? explainMergedIntoRun(input) : `coalesced: merged into wakeup ${input.coalescedIntoId} inside the coalescing window`;
    case 'cancelled':
      return explainCancel(input);
    case 'skipped':
    case 'finished':
      if (w.skip_reason) return explainSkip(w, w.skip_reason);
      return `finished: run ${w.run_id ?? '(none)'} completed${w.recovered ? ' (recovered by the sweep)' : ''}`;
    case 'failed':
      return `failed after ${w.retry_count} retries: ${firstLine(w.error ?? input.lastDecision ?? 'unknown error')}`;
  }
}

/**
 * A request merged into a run that had not started, or into a wakeup waiting to retry after its
 * run had failed: then it rides along with the retry, which is a different sentence.
 */
function explainMergedIntoRun(input: ExplainInput): string {
  const { wakeup: w, foldedInto: target } = input;
  const linked = target?.linkedRun;
  const endedBeforeFold = linked !== null && linked !== undefined && linked.finished_at !== null && linked.finished_at <= w.requested_at;
  if (!target || !endedBeforeFold) return `coalesced: merged into run ${w.run_id}, which had not started yet`;
  const into = `merged into wakeup ${input.coalescedIntoId}, which was waiting to retry after run ${w.run_id} ${linked.status}`;
  if (target.status === 'scheduled_retry' || target.status === 'queued' || target.status === 'claimed') {
    return target.run_id !== w.run_id ? `coalesced: ${into}; its retry run ${target.run_id} carries this request` : `coalesced: ${into}; it runs with that retry`;
  }
  if (target.run_id !== w.run_id) return `coalesced: ${into}; its retry run ${target.run_id} handled this request`;
  return `coalesced: ${into}; that wakeup ended (${target.skip_reason ?? target.cancel_reason ?? target.status}) before running it`;
}

function explainQueued(input: ExplainInput): string {
  const { wakeup: w, actor } = input;
  if (input.agentStatus === 'paused' || input.agentStatus === 'stopped') {
    return `queued: agent is ${input.agentStatus}; it will end with no run when claimed`;
  }
  if (w.skip_reason === QUOTA_HOLD && w.available_at > input.now) {
    return `queued: ${input.lastDecision ?? `${reasonClause(QUOTA_HOLD)}; starts at ${new Date(w.available_at).toISOString()}`}`;
  }
  if (w.skip_reason === 'daily_run_cap' || w.skip_reason === 'daily_cost_cap') {
    const until = input.zeroDailyCap ? 'the cap is raised (a cap of 0 never resets)' : new Date(w.available_at).toISOString();
    return `queued: ${reasonClause(w.skip_reason)}; waits until ${until}`;
  }
  if (w.waiting_on_checkout) {
    return `queued: ${input.lastDecision ?? `waiting for wakeup ${w.waiting_on_checkout} to release the task`}`;
  }
  if (w.available_at > input.now) return `queued: held until ${hhmmss(w.available_at)} (coalescing window or delay)`;
  if (actor?.cooldown_until) return `queued: cooling down until ${actor.cooldown_until.slice(11, 19)}`;
  if (actor && actor.running >= actor.max_concurrent_sessions) {
    return `queued: agent at capacity (${actor.running}/${actor.max_concurrent_sessions}) since ${hhmmss(w.requested_at)}`;
  }
  return `queued: waiting for ${input.agentName} to claim it (requested ${hhmmss(w.requested_at)})`;
}

/** The first non-blank line of a text, at most 300 characters: an error's headline. */
export function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim())?.trim().slice(0, 300) ?? text.slice(0, 300);
}
