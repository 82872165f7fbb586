/**
 * The short crash-restart run inside `npm test`: the real server, real child-process agents,
 * 3 SIGKILLs at random moments, then drain and check the invariants on the rows.
 * The full run (20 kills, 500 wakeups) is `npm run test:crash`.
 */
import { describe, expect, it } from 'vitest';
import { runCrashHarness } from './harness.js';

describe('crash-restart harness (short)', () => {
  it('loses nothing and doubles nothing across 3 SIGKILLs', async () => {
    const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const report = await runCrashHarness({ kills: Number(process.env.CRASH_KILLS ?? 3), wakeups: Number(process.env.CRASH_WAKEUPS ?? 60), seed, drainTimeoutMs: 120_000 });
    const summary = `seed ${seed} (replay: CRASH_SEED=${seed} npx vitest run test/crash)\n${JSON.stringify({ ...report.figures, ...report.invariants }, null, 1)}`;
    expect(report.violations, summary).toEqual([]);
    expect(report.invariants.wakeups, summary).toBeGreaterThan(40);
    expect(report.invariants.runsByStatus.succeeded ?? 0, summary).toBeGreaterThan(0);
  }, 180_000);
});
