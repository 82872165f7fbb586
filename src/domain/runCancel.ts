/**
 * Stopping a run (API.md, "Governance"): who may, and what its wakeup ends with. Rules only; the
 * service (services/runCancel.ts) applies them.
 */
import { mayManageRoutine, type Permission, type Principal } from './governance.js';

/** The cancel_reason of a wakeup whose run a person cancelled: it ends there, never retried. */
export const RUN_CANCELLED_REASON = 'run_cancelled';

/** The cancel_reason of work done on behalf of a token that was revoked (API.md, "Trust boundaries"). */
export const OWNER_REVOKED_REASON = 'owner_revoked';

/**
 * A member may cancel the runs of routines it owns, and an admin any run. A run no routine caused
 * (a person's wake, an assignment) has no owner but the deployment's: an admin's act.
 */
export function mayCancelRun(principal: Principal, run: { id: string }, routine: { id: string; owner_id: string | null } | null): Permission {
  if (routine) return mayManageRoutine(principal, routine);
  if (principal.kind === 'user' && principal.role === 'admin') return { allowed: true };
  if (principal.kind === 'agent') return { allowed: false, reason: 'a run token may not cancel runs' };
  return { allowed: false, reason: `run ${run.id} was not started by a routine; only an admin may cancel it` };
}

/** The run's error text: says who stopped it and why, for the run page and the activity feed. */
export function cancelledError(by: string, reason: string | null): string {
  return reason ? `cancelled by ${by}: ${reason}` : `cancelled by ${by}`;
}
