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
 * An admin may cancel any run, and a member the runs done on its behalf (API.md, "Trust
 * boundaries"): those of the routines it owns, and their follow-on work (a subtask's run, a woken
 * agent's run), which carries its token as `on_behalf_of` wherever the chain went. A run done on no
 * one's behalf (a person's wake, an assignment) is the deployment's: an admin's act.
 */
export function mayCancelRun(
  principal: Principal, run: { id: string; on_behalf_of: string | null }, routine: { id: string; owner_id: string | null } | null,
): Permission {
  if (principal.kind === 'agent') return { allowed: false, reason: 'a run token may not cancel runs' };
  if (principal.role === 'admin' || run.on_behalf_of === principal.tokenId) return { allowed: true };
  if (routine) return mayManageRoutine(principal, routine);
  return { allowed: false, reason: `run ${run.id} was not started by a routine, nor done on behalf of ${principal.tokenId}; only an admin may cancel it` };
}

/** The run's error text: says who stopped it and why, for the run page and the activity feed. */
export function cancelledError(by: string, reason: string | null): string {
  return reason ? `cancelled by ${by}: ${reason}` : `cancelled by ${by}`;
}
