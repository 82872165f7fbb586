/**
 * Who a piece of work was done for, and whether anybody was watching (API.md, "Governance" ->
 * "Audit"). A cron or webhook fire is unattended, on behalf of its routine's owner; a manual fire is
 * attended, on behalf of whoever fired it; a person's own request is attended and on nobody's behalf.
 * It passes down the chain: fire -> wakeup -> run -> the run's follow-on work (comments, moves,
 * subtasks, wakes of other agents) -> their wakeups and runs, and so on.
 */
export interface Provenance {
  unattended: boolean;
  /** The routine owner's id (a token id), or null. */
  on_behalf_of: string | null;
}

export const ATTENDED: Provenance = Object.freeze({ unattended: false, on_behalf_of: null });

/** The provenance a row carries (a run, a wakeup, a task, a routine run); none: attended. */
export function provenanceOf(row: Partial<Provenance> | null | undefined): Provenance {
  return { unattended: row?.unattended === true, on_behalf_of: row?.on_behalf_of ?? null };
}

/**
 * Follow-on work of unattended work counts against the routine-run caps (API.md, "Routine-run
 * caps"): a wakeup it makes takes a slot, unless a routine run holds one for it already (a fire's own
 * wakeup, or the first assignment of a heavy routine's task).
 */
export function needsCapSlot(wakeup: Provenance & { routine_run_id: string | null }): boolean {
  return wakeup.unattended && wakeup.routine_run_id === null;
}

/** The skip reason of follow-on work refused at a routine-run cap: stored with its wakeup, never queued. */
export const CAP_REACHED = 'cap_reached';
