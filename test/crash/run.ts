/**
 * `npm run test:crash`: the full crash-restart run (20 SIGKILLs, 500 wakeups in flight).
 * CRASH_KILLS, CRASH_WAKEUPS, CRASH_SEED and CRASH_KEEP=1 (keep the database) change it.
 */
import { runCrashHarness } from './harness.js';

const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const kills = Number(process.env.CRASH_KILLS ?? 20);
const wakeups = Number(process.env.CRASH_WAKEUPS ?? 500);
process.stderr.write(`crash-restart harness: ${kills} kills, ${wakeups} wakeup requests, seed ${seed} (replay with CRASH_SEED=${seed})\n`);

const report = await runCrashHarness({
  kills, wakeups, seed, keep: process.env.CRASH_KEEP === '1',
  log: (line) => process.stderr.write(`  ${line}\n`),
});

const rows: [string, unknown][] = [
  ...Object.entries(report.figures),
  ['wakeups', report.invariants.wakeups],
  ['wakeups_by_status', report.invariants.wakeupsByStatus],
  ['runs', report.invariants.runs],
  ['runs_by_status', report.invariants.runsByStatus],
  ['interrupted_runs', report.invariants.runsByStatus.interrupted ?? 0],
  ['cron_ticks_fired', report.invariants.cronTicks],
  ['routine_runs', report.invariants.routineRuns],
  ['outbox_rows_left', report.invariants.outboxLeft],
  ['violations', report.violations.length],
];
const width = Math.max(...rows.map(([k]) => k.length));
console.log('\nCrash-restart harness');
for (const [key, value] of rows) console.log(`  ${key.padEnd(width)}  ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
if (report.violations.length) {
  console.log(`\nINVARIANTS VIOLATED (seed ${seed}${process.env.CRASH_KEEP === '1' ? `, database kept in ${report.dir}` : ''}):`);
  for (const violation of report.violations) console.log(`  - ${violation}`);
  process.exit(1);
}
console.log(`\nall invariants hold (seed ${seed})`);
