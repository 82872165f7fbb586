/**
 * Catch-up after downtime (spec: Catch-up policy; API.md Pinned details: Catch-up). `planTicks`
 * gets the trigger's stored next_run_at (`due`, the first tick nobody fired) and `now`.
 */
import { describe, expect, it } from 'vitest';
import { planTicks } from '../../src/actors/triggers.js';

const at = (hhmm: string) => Date.parse(`2026-04-25T${hhmm}:00.000Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const everyMinute = { cron_expression: '* * * * *', timezone: 'UTC' };
const everyFive = { cron_expression: '*/5 * * * *', timezone: 'UTC' };
const cap = (catch_up_max: number) => ({ catch_up_policy: 'enqueue_missed_with_cap' as const, catch_up_max });
const skip = { catch_up_policy: 'skip_missed' as const, catch_up_max: 25 };

describe('planTicks: enqueue_missed_with_cap', () => {
  it('every minute, next_run_at 12:00, now 12:10 (down 10 minutes): fires 11 ticks, 12:00 through 12:10 inclusive, none dropped', () => {
    const plan = planTicks(cap(25), everyMinute, at('12:00'), at('12:10'));
    expect(plan.fire).toHaveLength(11);
    expect(plan.fire.map(iso)).toEqual(['12:00', '12:01', '12:02', '12:03', '12:04', '12:05', '12:06', '12:07', '12:08', '12:09', '12:10']);
    expect(plan.missed).toBeNull();
  });

  it('cap 5, every minute, down 100 minutes (12:00 → 13:40 is 101 due ticks): fires the oldest 5 (12:00–12:04) and reports the other 96 as missed since 12:04', () => {
    const plan = planTicks(cap(5), everyMinute, at('12:00'), at('13:40'));
    expect(plan.fire.map(iso)).toEqual(['12:00', '12:01', '12:02', '12:03', '12:04']);
    expect(plan.missed).toEqual({ count: 96, since: at('12:04') });
    expect(plan.fire.length + plan.missed!.count).toBe(101);
  });

  it('exactly at the cap (25 due ticks, cap 25) drops nothing', () => {
    const plan = planTicks(cap(25), everyMinute, at('12:00'), at('12:24'));
    expect(plan.fire).toHaveLength(25);
    expect(plan.missed).toBeNull();
  });

  it('on time (now is the due tick) fires just that tick', () => {
    expect(planTicks(cap(25), everyMinute, at('12:00'), at('12:00'))).toEqual({ fire: [at('12:00')], missed: null });
  });

  it('a cap of 0 still fires the due tick (cap is at least 1)', () => {
    const plan = planTicks(cap(0), everyMinute, at('12:00'), at('12:10'));
    expect(plan.fire).toEqual([at('12:00')]);
    expect(plan.missed).toEqual({ count: 10, since: at('12:00') });
  });
});

describe('planTicks: skip_missed', () => {
  it('every minute, due 12:00, now 12:10: fires only 12:10, the latest tick not after now', () => {
    expect(planTicks(skip, everyMinute, at('12:00'), at('12:10'))).toEqual({ fire: [at('12:10')], missed: null });
  });

  it('between ticks (now 12:10:30) it still fires 12:10, never a tick after now', () => {
    expect(planTicks(skip, everyMinute, at('12:00'), at('12:10') + 30_000)).toEqual({ fire: [at('12:10')], missed: null });
  });

  it('one tick late (now 12:01) fires 12:01 only', () => {
    expect(planTicks(skip, everyMinute, at('12:00'), at('12:01'))).toEqual({ fire: [at('12:01')], missed: null });
  });

  it('on time fires the due tick', () => {
    expect(planTicks(skip, everyMinute, at('12:00'), at('12:00'))).toEqual({ fire: [at('12:00')], missed: null });
  });
});

describe('spec scenario: the scheduler was down for 3 hours (*/5 * * * *, next_run_at 09:00, restart at 12:00)', () => {
  // 09:00, 09:05, …, 12:00 are due: 3 h × 12 per hour + 1 = 37 ticks.
  it('skip_missed fires exactly 1 tick: 12:00', () => {
    const plan = planTicks(skip, everyFive, at('09:00'), at('12:00'));
    expect(plan.fire.map(iso)).toEqual(['12:00']);
    expect(plan.missed).toBeNull();
  });

  it('enqueue_missed_with_cap (cap 25) fires 25 ticks, 09:00 through 11:00, and reports the remaining 12 (11:05–12:00) as missed since 11:00', () => {
    const plan = planTicks(cap(25), everyFive, at('09:00'), at('12:00'));
    expect(plan.fire).toHaveLength(25);
    expect(iso(plan.fire[0]!)).toBe('09:00');
    expect(iso(plan.fire[24]!)).toBe('11:00');
    // Oldest first, 5 minutes apart.
    expect(plan.fire.every((tick, i) => i === 0 || tick - plan.fire[i - 1]! === 300_000)).toBe(true);
    expect(plan.missed).toEqual({ count: 12, since: at('11:00') });
    expect(plan.fire.length + plan.missed!.count).toBe(37);
  });

  it('the same 3 hours with the restart at 11:59 (not on a tick) gives 36 due ticks: 25 fired, 11 missed; skip fires 11:55', () => {
    const plan = planTicks(cap(25), everyFive, at('09:00'), at('11:59'));
    expect(plan.fire).toHaveLength(25);
    expect(plan.missed).toEqual({ count: 11, since: at('11:00') });
    expect(planTicks(skip, everyFive, at('09:00'), at('11:59')).fire.map(iso)).toEqual(['11:55']);
  });
});
