/**
 * Which zone a routine's times are read in, and the wording of what a fire did. A schedule trigger
 * keeps its zone (the workspace's when none was given, as the server saves it); a routine's other
 * times are in its schedule's zone, else its workspace's. Pure, for the unit tests.
 */
import { isReasonCode, reasonClause } from '../../src/domain/activityCodes.js';
import type { Routine, RoutineRun, Trigger } from './types.js';

/** The zone a trigger's times are in. */
export function triggerZone(trigger: Pick<Trigger, 'kind' | 'timezone'>, workspaceZone: string): string {
  return (trigger.kind === 'schedule' && trigger.timezone) || workspaceZone;
}

/** The zone of a routine's times: its first schedule's, else its workspace's. */
export function routineZone(routine: Pick<Routine, 'triggers'>, workspaceZone: string): string {
  const schedule = routine.triggers.find((t) => t.kind === 'schedule' && t.timezone);
  return schedule?.timezone ?? workspaceZone;
}

/** The soonest fire among the enabled schedule triggers, with the zone it is in. */
export function nextFire(triggers: Trigger[], workspaceZone: string): { at: string; zone: string } | null {
  const next = triggers.filter((t) => t.enabled && t.next_run_at).sort((a, b) => a.next_run_at!.localeCompare(b.next_run_at!))[0];
  return next ? { at: next.next_run_at!, zone: triggerZone(next, workspaceZone) } : null;
}

/** When a trigger last fired: a schedule's tick, or the newest of the routine's runs it started (Run now, a webhook). */
export function lastFiredOf(trigger: Pick<Trigger, 'id' | 'last_fired_at'>, runs: RoutineRun[] | undefined): string | null {
  const times = [trigger.last_fired_at, ...(runs ?? []).filter((r) => r.trigger_id === trigger.id).map((r) => r.started_at)];
  return times.filter((t): t is string => Boolean(t)).sort().pop() ?? null;
}

/** What a fire did, for a person: "created the task", "woke the assignee", "skipped: its last fire is still active". */
export function fireOutcome(run: Pick<RoutineRun, 'status' | 'skip_reason' | 'error'>): string {
  switch (run.status) {
    case 'task_created': return 'created a task';
    case 'dispatched': return 'woke the assignee';
    case 'coalesced': return 'joined the work of an earlier fire that is still active';
    case 'skipped': return `skipped: ${isReasonCode(run.skip_reason) ? reasonClause(run.skip_reason) : (run.skip_reason ?? 'no reason given').replaceAll('_', ' ')}`;
    case 'failed': return `could not fire: ${run.error ?? 'no reason given'}`;
    default: return 'is being handled';
  }
}
