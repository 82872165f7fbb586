/**
 * Optional per-agent daily caps (from the peer timer design): at a cap, work waits for the next
 * UTC day rather than running. A cap of 0 means the agent does no capped work at all that day.
 */
/** A UTC day. The triggers that keep agent_daily_usage (migration 0029) find a row's day with the same number. */
const DAY_MS = 86_400_000;

export type DailyCap = 'daily_run_cap' | 'daily_cost_cap';

/** An agent's caps (null: none); what a day counts against them is kept in a row (RunRepo.holdDailyCaps). */
export type DailyCaps = { daily_run_cap: number | null; daily_cost_cap_usd: number | null };

export function hasDailyCap(caps: DailyCaps): boolean {
  return caps.daily_run_cap !== null || caps.daily_cost_cap_usd !== null;
}

export function startOfUtcDay(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}

export function nextUtcDay(now: number): number {
  return startOfUtcDay(now) + DAY_MS;
}

/**
 * A zero cap leaves no timed obligation (the peer timer design): no new day makes the work
 * runnable, only a change of the cap does, so deferred work holds no deadline for it.
 */
export function hasZeroDailyCap(caps: DailyCaps): boolean {
  return caps.daily_run_cap === 0 || caps.daily_cost_cap_usd === 0;
}
