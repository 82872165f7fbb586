/**
 * Optional per-agent daily caps (from the peer timer design): at a cap, work waits for the next
 * UTC day rather than running. A cap of 0 means the agent does no capped work at all that day.
 */
const DAY_MS = 86_400_000;

export type DailyCap = 'daily_run_cap' | 'daily_cost_cap';

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
export function hasZeroDailyCap(caps: { daily_run_cap: number | null; daily_cost_cap_usd: number | null }): boolean {
  return caps.daily_run_cap === 0 || caps.daily_cost_cap_usd === 0;
}

export function dailyCapReached(
  caps: { daily_run_cap: number | null; daily_cost_cap_usd: number | null },
  today: { runs: number; costUsd: number },
): DailyCap | null {
  if (caps.daily_run_cap !== null && today.runs >= caps.daily_run_cap) return 'daily_run_cap';
  if (caps.daily_cost_cap_usd !== null && today.costUsd >= caps.daily_cost_cap_usd) return 'daily_cost_cap';
  return null;
}
