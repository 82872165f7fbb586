/**
 * The short chaos run inside `npm test` (issue 15): 3 replica processes on one PostgreSQL database,
 * cron routines every second and wakes through every replica, 2 replicas SIGKILLed and replaced,
 * then drain and check the invariants on the rows. The full run is `npm run test:replicas`
 * (test/replicas/run.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { percentile, runChaos } from '../replicas/harness.js';
import { freshDatabase } from '../store/postgresFactory.js';

const LEASE_SEC = 3;
let database: Awaited<ReturnType<typeof freshDatabase>> | null = null;

afterEach(async () => {
  await database?.drop();
  database = null;
});

describe.runIf(process.platform === 'linux')('replica chaos (short)', () => {
  it('GIVEN 3 replicas with cron every second and wakes through each WHEN replicas are SIGKILLed and replaced THEN every tick fires once, every wakeup ends, no run is left running, no wakeup succeeds twice, and the agents run elsewhere within OFFICE_LEASE_SEC + 5 s', async () => {
    database = await freshDatabase();
    const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const report = await runChaos({
      databaseUrl: database.url, chaosSec: 25, kills: 2, leaseSec: LEASE_SEC, seed, killEveryMs: [1_500, 3_000], drainTimeoutMs: 60_000,
      // The survivors alone take the victim's agents: a replica joining meanwhile is the long run's business.
      replaceAfterFailover: true,
    });
    const times = report.failovers.map((f) => f.ms);
    const summary = `seed ${seed} (replay: CHAOS_SEED=${seed} npx vitest run test/integration/chaos.postgres.test.ts)\n${JSON.stringify({
      kills: report.kills, failovers: times, p50: percentile(times, 50), wakes: report.wakesSent, ...report.counts, drainMs: report.drainMs,
    }, null, 1)}`;
    expect(report.violations, summary).toEqual([]);
    expect(report.kills, summary).toBe(2);
    expect(report.counts.cronFires, summary).toBeGreaterThan(20);
    expect(report.counts.runsByStatus.succeeded ?? 0, summary).toBeGreaterThan(20);
    expect(Math.max(...times, 0), summary).toBeLessThan((LEASE_SEC + 5) * 1000);
  }, 150_000);
});
