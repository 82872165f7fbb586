/**
 * `/metrics` for operators (prom-client): the run histograms fill from real runs of fixture agents,
 * the process and Node.js figures are there, the counts of wakeups and runs by status agree with the
 * rows after a mix of wakeups, and a scrape reads no history table. Real SQLite, real HTTP server,
 * real child processes.
 */
import Database from 'better-sqlite3';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/persistence/sqlite/database.js';
import { loadSqliteMigrations, migrate } from '../../src/persistence/sqlite/migrate.js';
import { STATUS_COUNT_READS } from '../../src/persistence/sql/statusCounts.js';
import { apiClient } from '../helpers/client.js';
import { ROWS_BEFORE_DAILY_USAGE } from '../helpers/dailyUsageUpgrade.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { gaugesOf, rowCounts, scrape, scrapeBetweenStillRows, scrapeReadFault } from '../helpers/metrics.js';
import { profiledSchedulerPerTest } from '../helpers/statementProfile.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, post, createWorkspace, createAgent, waitForRun, waitForWakeupEnd, quiet } = apiClient(() => h);

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const wake = async (agentId: string): Promise<string> => (await post(`/api/office/agents/${agentId}/wake`, { reason: 'metrics test' }, 202)).wakeup.id;

describe('/metrics histograms and process figures', () => {
  it('after a real run of a fixture agent, shows its wakeup-to-start latency, its duration as succeeded and its cost under its agent, and the process and Node.js figures', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const agentId = await createAgent(ws, { name: 'Spender', executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '0.25' }) });
    const before = await scrape(h.url);
    expect(before.get('office_wakeup_to_start_seconds_count')).toBe(0);

    await waitForWakeupEnd(await wake(agentId));
    const run = await waitForRun({ agent_id: agentId }, 'succeeded', 'the run to succeed');
    const samples = await scrape(h.url);

    expect(samples.get('office_wakeup_to_start_seconds_count')).toBe(1);
    // The session started after its wakeup was asked for, and sooner than the +Inf bucket's bound.
    expect(samples.get('office_wakeup_to_start_seconds_sum')).toBeGreaterThan(0);
    expect(samples.get('office_wakeup_to_start_seconds_bucket{le="60"}')).toBe(1);
    expect(samples.get('office_run_duration_seconds_count{status="succeeded"}')).toBe(1);
    expect(samples.get('office_run_duration_seconds_sum{status="succeeded"}')).toBeCloseTo((Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000, 6);
    expect(samples.get(`office_run_cost_usd_count{agent_id="${agentId}"}`)).toBe(1);
    expect(samples.get(`office_run_cost_usd_sum{agent_id="${agentId}"}`)).toBe(0.25);
    expect(samples.get(`office_run_cost_usd_bucket{le="0.1",agent_id="${agentId}"}`)).toBe(0);
    expect(samples.get(`office_run_cost_usd_bucket{le="0.25",agent_id="${agentId}"}`)).toBe(1);

    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(samples.has(name), name).toBe(true);
    }
    // The figures that were there before prom-client keep their names.
    for (const name of ['office_sql_statements_total', 'office_agent_actors', 'office_runs_in_flight', 'office_storage_writable', 'office_sqlite_wal_bytes']) {
      expect(samples.has(name), name).toBe(true);
    }
  });

  it('counts a failed run and its retries as failed, and a cancelled run as cancelled', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const failing = await createAgent(ws, { name: 'Failing', executor: fixtureAgent('fail.mjs') });
    const release = join(h.dir, 'never');
    const waiting = await createAgent(ws, { name: 'Waiting', executor: fixtureAgent('wait-for-release.mjs', { FIXTURE_RELEASE_FILE: release }) });

    const [failingWakeup] = await Promise.all([wake(failing), wake(waiting)]);
    const failed = await waitForWakeupEnd(failingWakeup!, 'the failing wakeup to fail after its retries', 30_000);
    expect(failed.status).toBe('failed');
    const running = await waitForRun({ agent_id: waiting }, 'running', 'the waiting session to start');
    await call('POST', `/api/office/runs/${running.id}/cancel`, { reason: 'not needed' });
    const samples = await scrape(h.url);

    // One run per attempt: the first and every retry (OFFICE_BACKOFF has four steps).
    expect(samples.get('office_run_duration_seconds_count{status="failed"}')).toBe(5);
    expect(samples.get('office_run_duration_seconds_count{status="cancelled"}')).toBe(1);
    // Retries wait for a backoff the scheduler chose: only first attempts count as wakeup-to-start latency.
    expect(samples.get('office_wakeup_to_start_seconds_count')).toBe(2);
  }, 60_000);
});

describe('/metrics counts of wakeups and runs by status', () => {
  it('agree with the rows while runs are open and once a mix of wakeups (succeeded, failed after retries, cancelled) has ended, and through a restart', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const succeeding = await createAgent(ws, { name: 'Succeeding' });
    const failing = await createAgent(ws, { name: 'Failing', executor: fixtureAgent('fail.mjs') });
    const release = join(h.dir, 'release');
    const waiting = await createAgent(ws, { name: 'Waiting', executor: fixtureAgent('wait-for-release.mjs', { FIXTURE_RELEASE_FILE: release }) });
    const cancelled = await createAgent(ws, { name: 'Cancelled', executor: fixtureAgent('wait-for-release.mjs', { FIXTURE_RELEASE_FILE: join(h.dir, 'never') }) });

    await Promise.all([wake(succeeding), wake(succeeding), wake(failing), wake(waiting), wake(cancelled)]);
    const toCancel = await waitForRun({ agent_id: cancelled }, 'running', 'the session to cancel to start');
    await waitForRun({ agent_id: waiting }, 'running', 'the waiting session to start');
    const open = await scrapeBetweenStillRows(h.url, h.inspect);
    expect(open.rows.runs.running).toBeGreaterThanOrEqual(2);
    expect(open.gauges).toEqual(open.rows);

    await call('POST', `/api/office/runs/${toCancel.id}/cancel`, { reason: 'not needed' });
    writeFileSync(release, '');
    for (const agentId of [succeeding, failing, waiting, cancelled]) await quiet(agentId);
    const ended = await rowCounts(h.inspect);
    expect(ended.wakeups).toMatchObject({ failed: 1, cancelled: 1, queued: 0, claimed: 0, scheduled_retry: 0 });
    expect(ended.runs).toMatchObject({ failed: 5, cancelled: 1, running: 0, queued: 0 });
    expect(ended.runs.succeeded).toBeGreaterThanOrEqual(2);
    expect(gaugesOf(await scrape(h.url))).toEqual(ended);

    await h.restart();
    expect(gaugesOf(await scrape(h.url))).toEqual(ended);
  }, 60_000);

  it('migrations 0032 and 0037 count the wakeups and runs already stored: the ended ones per agent, the open ones from their rows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'office-metrics-'));
    try {
      const db = openDatabase(join(dir, 'office.db'), { synchronous: 'NORMAL' });
      migrate(db, loadSqliteMigrations().filter((m) => m.version < 32));
      db.exec(ROWS_BEFORE_DAILY_USAGE);
      expect(migrate(db)).toEqual(expect.arrayContaining(['0032_status_counts.sql', '0037_open_statuses_counted_from_rows.sql']));
      expect(db.prepare(`SELECT agent_id, runs_succeeded, runs_failed, runs_cancelled, wakeups_finished FROM agent_status_counts ORDER BY agent_id`).all()).toEqual([
        { agent_id: 'agt_a', runs_succeeded: 2, runs_failed: 1, runs_cancelled: 1, wakeups_finished: 0 },
        { agent_id: 'agt_b', runs_succeeded: 0, runs_failed: 0, runs_cancelled: 0, wakeups_finished: 0 },
      ]);
      const [wakeups, runs] = STATUS_COUNT_READS.map((read) => db.prepare(read).get());
      expect(wakeups).toMatchObject({ claimed: 2, queued: 0, scheduled_retry: 0, finished: 0 });
      expect(runs).toMatchObject({ queued: 1, running: 2, succeeded: 2, failed: 1, cancelled: 1, interrupted: 0 });
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a /metrics scrape', () => {
  const profiledScheduler = profiledSchedulerPerTest();

  it('runs two statements that read the counter rows and the open rows only: no scan of wakeups, runs or any other history', async () => {
    // Not started: nothing runs beside the scrape (no sweep, no heartbeat), so its statements are all the profile holds.
    const { scheduler, dbPath, profile } = await profiledScheduler();
    const workspace = await scheduler.services.org.createWorkspace({ name: 'Acme' });
    for (let i = 0; i < 3; i++) {
      const agent = await scheduler.services.org.createAgent({ workspace_id: workspace.id, name: `agent-${i}`, role: 'worker' });
      await scheduler.store.transaction((tx) => scheduler.services.wakeups.enqueue(tx, { agent_id: agent.id, source: 'user', reason: 'history', payload: { user_id: 'u' } }, Date.now()));
    }
    // The agents have no executor: each wakeup fails at its claim, with no retry.
    await waitUntil(async () => (await scheduler.store.query((tx) => tx.wakeups.countByStatus())).failed === 3);
    await scheduler.events.idle();

    profile.reset();
    const response = await scheduler.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(/^office_wakeups\{status="failed"\} 3$/m);
    // A write unit some timer commits meanwhile (BEGIN, COMMIT) is not the scrape's: a scrape writes nothing.
    const statements = profile.statements().filter((s) => !/^(BEGIN|COMMIT|ROLLBACK)\b/.test(s.text));
    expect(statements.map((s) => s.count), statements.map((s) => s.text).join('\n')).toEqual([1, 1]);

    const reader = new Database(dbPath, { readonly: true });
    try {
      for (const { text } of statements) {
        const plan = reader.prepare(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[];
        const reads = plan.flatMap((step) => {
          const read = /^(?:SCAN|SEARCH) (\w+)(?: USING (?:COVERING )?INDEX (\w+))?/.exec(step.detail);
          return read ? [{ table: read[1]!, index: read[2] ?? null }] : [];
        });
        expect(reads.map((read) => read.table), text).toEqual(expect.arrayContaining(['agent_status_counts']));
        for (const { table, index } of reads) expect(scrapeReadFault(table, index), `${text}\n${plan.map((s) => s.detail).join('; ')}`).toBeNull();
      }
    } finally {
      reader.close();
    }
  });
});
