import { fromCallback } from 'xstate';
import type { Clock } from '../domain/clock.js';

/** Node's timers overflow past 2^31-1 ms and fire at once; longer waits are taken in steps. */
const LONGEST_TIMER_MS = 2_147_000_000;

export interface DeadlineInput {
  deadline: number;
}

/**
 * A child actor that waits for an absolute deadline and then sends `{type: 'TIMER', at}` to
 * its parent. Deadlines are absolute so a restored actor waits only for the time that is left.
 */
export function sleepUntil(clock: Clock) {
  return fromCallback<{ type: 'noop' }, DeadlineInput>(({ input, sendBack }) => {
    let handle: unknown;
    const arm = () => {
      const remaining = input.deadline - clock.now();
      handle = clock.setTimeout(remaining <= LONGEST_TIMER_MS ? fire : arm, Math.max(0, Math.min(remaining, LONGEST_TIMER_MS)));
    };
    // Never sendBack synchronously: the parent is still mid-transition while its child starts.
    const fire = () => sendBack({ type: 'TIMER', at: clock.now() });
    arm();
    return () => clock.clearTimeout(handle);
  });
}
