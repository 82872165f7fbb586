/**
 * P4: 10,000 agents and 10,000 cron routines in one process: RSS after boot, time to restore
 *     everything after a restart, and time until 10,000 fires due in the same second are dispatched.
 * P5: SQL statements and CPU while the process sits idle (BENCH_IDLE_SEC, default 60 s) with
 *     1,000 agents and 1,000 routines that are not due: on SQLite, and as one replica on an
 *     embedded PostgreSQL, where the lease heartbeat is the only statement allowed (one per
 *     OFFICE_LEASE_SEC / 3).
 *
 * Each runs in its own process, compiled (`node --expose-gc dist-bench/bench/cronScaleAndIdle.js
 * P4|P5`, started by bench/run.ts, which compiles it), so that RSS and CPU are this scenario's alone.
 * The last stdout line is the figures as JSON, with the statement profile of P4's fires under `--sql`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import type { Agent } from '../src/domain/types.js';
import type { Routine, RoutineTrigger } from '../src/domain/routines.js';
import type { AgentFunction } from '../src/executors/types.js';
import { createScheduler, type Scheduler } from '../src/scheduler.js';
import { withEmbeddedPostgres } from './postgresServer.js';
import { enableSqlProfiling, keptSqlReports, profileWindow, sqlProfileIfAsked, sqliteWindowEnd, type SqlReport } from './sqlProfile.js';
import type { Figure } from './support.js';

/** What a suite run in its own process prints as its last line, for bench/run.ts. */
export interface IsolatedOutput {
  figures: Figure[];
  sqlReports: SqlReport[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => bytes / 1024 / 1024;
const gc = (globalThis as { gc?: () => void }).gc;

function rss(): number {
  gc?.();
  return mb(process.memoryUsage().rss);
}

/** Rows straight through the store: the agents, their routines and one schedule trigger each. */
async function seed(scheduler: Scheduler, count: number, cron: string, nextRunAt: number | null) {
  const now = Date.now();
  const workspace = await scheduler.services.org.createWorkspace({ name: 'bench' });
  const pad = (i: number) => String(i).padStart(8, '0');
  await scheduler.store.transaction(async (tx) => {
    for (let i = 0; i < count; i++) {
      const agent: Agent = {
        id: `agt_bench${pad(i)}`, workspace_id: workspace.id, name: `agent-${i}`, role: 'worker', status: 'idle', paused_reason: null,
        skip_idle_wakeups: false, max_concurrent_sessions: 1, cooldown_sec: 0, last_wakeup_finished_at: null,
        executor: { kind: 'function', name: 'noop' }, daily_run_cap: null, daily_cost_cap_usd: null, max_concurrent_routine_runs: null,
        warnings: [], deleted_at: null, created_at: now, updated_at: now,
      };
      await tx.agents.insert(agent);
      const routine: Routine = {
        id: `rtn_bench${pad(i)}`, workspace_id: workspace.id, name: `routine-${i}`, description: '', assignee_agent_instance_id: agent.id,
        owner_id: 'workspace', status: 'active', paused_reason: null, concurrency_policy: 'coalesce_if_active',
        catch_up_policy: 'skip_missed', catch_up_max: 25, task_template: null, variables: [], priority: 0, jitter_sec: 0, delivery: null,
        consecutive_failures: 0, consecutive_failure_limit: 5, carried_missed_ticks: null, created_at: now, updated_at: now,
      };
      await tx.routines.insert(routine);
      const trigger: RoutineTrigger = {
        id: `trg_bench${pad(i)}`, routine_id: routine.id, kind: 'schedule', cron_expression: cron, timezone: 'UTC', next_run_at: nextRunAt,
        last_fired_at: null, public_id: null, signing_mode: null, secret: null, enabled: true, created_at: now, updated_at: now,
      };
      await tx.routines.insertTrigger(trigger);
    }
  });
}

export async function p4(): Promise<Figure[]> {
  const N = Number(process.env.BENCH_P4_N ?? 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'office-bench-p4-'));
  const dbPath = join(dir, 'office.db');
  let started = 0;
  let lastStartAt = 0;
  let allStarted!: () => void;
  const everyoneStarted = new Promise<void>((resolve) => (allStarted = resolve));
  const functions = new Map<string, AgentFunction>([['noop', async () => {
    lastStartAt = performance.now();
    if (++started === N) allStarted();
    return {};
  }]]);
  // The deployment-wide cap on routine runs in flight (default 100) would refuse 9,900 of the
  // 10,000 fires, and the coalescing hold (default 5 s) would delay every routine wakeup: both off.
  const config = loadConfig({
    OFFICE_DB: dbPath, OFFICE_LOG_LEVEL: 'silent', OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: '1000000', OFFICE_COALESCE_WINDOW_MS: '0',
    OFFICE_LOOP_DETECTOR_RUNS: '0',
  });

  try {
    return await measureP4(N, config, functions, dbPath, () => lastStartAt, everyoneStarted);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureP4(
  N: number, config: ReturnType<typeof loadConfig>, functions: Map<string, AgentFunction>, dbPath: string,
  lastStart: () => number, everyoneStarted: Promise<void>,
): Promise<Figure[]> {
  const seeder = await createScheduler({ config, functions });
  const seedStart = performance.now();
  // Dormant at first (no next fire): the first boot only restores.
  await seed(seeder, N, '0 0 1 1 *', null);
  const seedMs = performance.now() - seedStart;
  await seeder.stop();

  const rssBefore = rss();
  const bootStart = performance.now();
  const first = await createScheduler({ config, functions });
  await first.start({ listen: false });
  const firstBootMs = performance.now() - bootStart;
  await first.supervisor.flush();
  await first.triggers.flush();
  await sleep(200);
  const rssAfterBoot = rss();
  const actors = first.supervisor.size + first.triggers.size;
  await first.stop();

  // All due in the same second, a few seconds after the restart below has finished.
  const due = Math.ceil((Date.now() + Math.max(8_000, 2 * firstBootMs + 3_000)) / 1000) * 1000;
  const cron = `${new Date(due).getUTCSeconds()} * * * * *`;
  const db = new Database(dbPath);
  db.prepare("UPDATE office_routine_triggers SET cron_expression = ?, next_run_at = ? WHERE kind = 'schedule'").run(cron, due);
  db.close();

  const restartStart = performance.now();
  const profile = sqlProfileIfAsked();
  const second = await createScheduler({ config, functions, statementProfile: profile });
  let fired = 0;
  let lastFireAt = 0;
  let allFired!: () => void;
  const everyoneFired = new Promise<void>((resolve) => (allFired = resolve));
  second.feed.on('changed', ({ item }) => {
    if (item.kind !== 'routine') return;
    lastFireAt = performance.now();
    if (++fired === N) allFired();
  });
  await second.start({ listen: false });
  const restoreMs = performance.now() - restartStart;
  const restored = second.supervisor.size + second.triggers.size;
  if (Date.now() > due) throw new Error(`restart took too long: the fire second passed before it finished (${Math.round(restoreMs)} ms)`);

  // performance.now() at the due instant.
  const dueAt = performance.now() + (due - Date.now());
  // The window opens before the due second (a waiting scheduler runs no statement) and closes when
  // the last fire is queued: it holds the dispatch of the runs fired so far, which competes with the fires.
  const window = profile && profileWindow(`P4 fires (${N} due in one second)`, 'SQLite', profile);
  window?.start();
  const timeout = sleep(60_000).then(() => 'timeout');
  const outcome = await Promise.race([everyoneFired.then(() => 'fired'), timeout]);
  if (window) window.end(N, sqliteWindowEnd(dbPath, profile!));
  const fireMs = lastFireAt - dueAt;
  await Promise.race([everyoneStarted, sleep(60_000)]);
  const startMs = lastStart() - dueAt;
  const rssPeak = rss();
  await second.stop();
  if (outcome !== 'fired') throw new Error(`only ${fired} of ${N} routines fired within 60 s`);

  return [
    { id: 'P4', name: `RSS after boot (${N} agents + ${N} cron routines)`, value: rssAfterBoot, unit: 'MB', goal: '< 300', ok: rssAfterBoot < 300,
      note: `${actors} actors; RSS before boot ${rssBefore.toFixed(0)} MB; first boot ${Math.round(firstBootMs)} ms; seeding ${Math.round(seedMs)} ms` },
    { id: 'P4', name: `restore ${N} agents + ${N} routines after a restart`, value: restoreMs, unit: 'ms', goal: '< 2000', ok: restoreMs < 2000,
      note: `${restored} actors restored from snapshots and reconciled with the rows` },
    { id: 'P4', name: `${N} fires due in one second: all recorded and queued`, value: fireMs, unit: 'ms', goal: '< 1000', ok: fireMs < 1000,
      note: `from the due second until every routine run is recorded and its wakeup queued (committed)` },
    { id: 'P4', name: `${N} fires due in one second: all executors started`, value: startMs, unit: 'ms', goal: '', ok: true,
      note: `claim + run + function executor start for all ${N}; RSS then ${rssPeak.toFixed(0)} MB` },
  ];
}

export async function p5(): Promise<Figure[]> {
  const N = Number(process.env.BENCH_P5_N ?? 1_000);
  const idleSec = Number(process.env.BENCH_IDLE_SEC ?? 60);
  const dir = mkdtempSync(join(tmpdir(), 'office-bench-p5-'));
  try {
    // The default sweep interval (600 s): it does not fall inside the idle window.
    const sqlite = await idleWindow(loadConfig({ OFFICE_DB: join(dir, 'office.db'), OFFICE_LOG_LEVEL: 'silent' }), N, idleSec);
    const postgres = await withEmbeddedPostgres(async (server) => idleWindow(loadConfig({
      OFFICE_DB: join(dir, 'unused.db'), OFFICE_DATABASE_URL: await server.createDatabase('office_p5'), OFFICE_REPLICA_ID: 'p5', OFFICE_LOG_LEVEL: 'silent',
    }), N, idleSec));
    // The heartbeat runs every third of a lease; the window may hold one more than it divides into.
    const allowed = Math.floor(idleSec / (postgres.leaseSec / 3)) + 1;
    return [
      { id: 'P5', name: `idle ${idleSec} s (${N} agents + ${N} routines not due): SQL statements`, value: sqlite.statements, unit: 'statements', goal: '0',
        ok: sqlite.statements === 0, note: `one recovery sweep (every ${sqlite.sweepSec} s) runs ${sqlite.sweepStatements} statements` },
      { id: 'P5', name: `idle ${idleSec} s: CPU`, value: sqlite.cpuPct, unit: '%', goal: '< 1', ok: sqlite.cpuPct < 1, note: sqlite.cpuNote },
      { id: 'P5', name: `idle ${idleSec} s, one replica on PostgreSQL: SQL statements`, value: postgres.statements, unit: 'statements',
        goal: `<= ${allowed}`, ok: postgres.statements <= allowed,
        note: `the lease heartbeat alone: one statement per OFFICE_LEASE_SEC / 3 = ${postgres.leaseSec / 3} s; LISTEN waits without a statement` },
      { id: 'P5', name: `idle ${idleSec} s, one replica on PostgreSQL: CPU`, value: postgres.cpuPct, unit: '%', goal: '< 1', ok: postgres.cpuPct < 1,
        note: `${postgres.cpuNote} (this process; the server's own CPU not counted)` },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seeds `n` agents and routines not due, restarts on them, and counts what the idle process does for `idleSec`. */
async function idleWindow(config: ReturnType<typeof loadConfig>, n: number, idleSec: number) {
  const functions = new Map<string, AgentFunction>([['noop', async () => ({})]]);
  const seeder = await createScheduler({ config, functions });
  const nextYear = Date.UTC(new Date().getUTCFullYear() + 1, 0, 1);
  await seed(seeder, n, '0 0 1 1 *', nextYear);
  await seeder.stop();

  const scheduler = await createScheduler({ config, functions });
  await scheduler.start({ listen: false });
  // Let boot finish its writes (snapshots of the restored actors, the boot sweep).
  await scheduler.supervisor.flush();
  await scheduler.triggers.flush();
  await sleep(2_000);
  const statementsBefore = scheduler.store.statementsExecuted();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await sleep(idleSec * 1000);
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - wallBefore;
  const statements = scheduler.store.statementsExecuted() - statementsBefore;
  // For scale: what one recovery sweep costs when its interval comes round.
  const beforeSweep = scheduler.store.statementsExecuted();
  await scheduler.recovery.sweep();
  const sweepStatements = scheduler.store.statementsExecuted() - beforeSweep;
  await scheduler.stop();
  return {
    statements, sweepStatements, sweepSec: config.recoverySweepSec, leaseSec: config.leaseSec,
    cpuPct: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
    cpuNote: `${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU in ${(wallMs / 1000).toFixed(1)} s`,
  };
}

// As a child process of bench/run.ts.
if (process.argv[1] && /cronScaleAndIdle\.[jt]s$/.test(process.argv[1])) {
  const which = process.argv[2];
  if (process.argv.includes('--sql')) enableSqlProfiling();
  const figures = which === 'P4' ? await p4() : which === 'P5' ? await p5() : null;
  if (!figures) throw new Error('usage: bench/cronScaleAndIdle.ts P4|P5 [--sql]');
  const output: IsolatedOutput = { figures, sqlReports: [...keptSqlReports()] };
  process.stdout.write(`${JSON.stringify(output)}\n`);
  process.exit(0);
}
