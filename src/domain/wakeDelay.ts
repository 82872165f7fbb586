/**
 * When a requested wake may run: at once, after a delay, or at a time. The same bound holds for a
 * delayed wake however it is asked for (a run's `self_wake` action, a wake request, the MCP tool), so
 * that an agent cannot park work further out than a person would look for it.
 */

/** The furthest a wake may be put off: 30 days. */
export const MAX_WAKE_DELAY_SEC = 30 * 86_400;

export interface WakeTiming {
  /** Seconds from now. */
  delay_sec?: number | undefined;
  /** An ISO-8601 time; one in the past means now. */
  at?: string | undefined;
}

export type WakeTime = { notBefore: number | undefined } | { invalid: { field: 'delay_sec' | 'at'; message: string } };

/** The wake's earliest start in epoch ms (undefined: at once), or why the request is refused. */
export function wakeNotBefore(timing: WakeTiming, now: number): WakeTime {
  if (timing.delay_sec !== undefined && timing.at !== undefined) {
    return { invalid: { field: 'at', message: 'give either delay_sec or at, not both' } };
  }
  // Its range is the schema's (WakeDelaySec): a number of seconds needs no clock to check.
  if (timing.delay_sec !== undefined) return { notBefore: now + timing.delay_sec * 1000 };
  if (timing.at === undefined) return { notBefore: undefined };
  const at = Date.parse(timing.at);
  if (Number.isNaN(at)) return { invalid: { field: 'at', message: `'${timing.at}' is not an ISO-8601 time` } };
  if (at > now + MAX_WAKE_DELAY_SEC * 1000) return { invalid: { field: 'at', message: 'at must be within 30 days from now' } };
  return { notBefore: Math.max(at, now) };
}
