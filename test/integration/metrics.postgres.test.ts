/**
 * `/metrics` on PostgreSQL with several replicas: the counts of wakeups and runs by status come from
 * counter rows every replica shares, so each replica's scrape agrees with the rows whichever replica
 * ran the work; the histograms are each replica's own (their sum is the whole); and a scrape's
 * statements read only the counter rows (EXPLAIN). Also migration 0033's backfill.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createInspector } from '../../src/persistence/createStore.js';
import { loadPostgresMigrations, migratePostgres } from '../../src/persistence/postgres/migrate.js';
import { STATUS_COUNT_READS } from '../../src/persistence/sql/statusCounts.js';
import type { AgentFunction } from '../../src/executors/types.js';
import { ROWS_BEFORE_DAILY_USAGE } from '../helpers/dailyUsageUpgrade.js';
import { waitFor } from '../helpers/harness.js';
import { SCRAPE_TABLES, gaugesOf, rowCounts, scrape } from '../helpers/metrics.js';
import { advance, createAgent, holderOf, replicasPerTest, seedWorkspace, untilQuiet } from '../helpers/replicas.js';
import { freshDatabase } from '../store/postgresFactory.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const AGENTS = 6;
const WAKES_PER_AGENT = 3;

const cluster = replicasPerTest();
const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop();
});

const spends: AgentFunction = () => ({ ok: true, cost_usd: 0.5 });
const start = (id: string) => cluster.start(id, { at: T0, functions: new Map([['quick', spends]]), env: { OFFICE_COALESCE_WINDOW_MS: '0' } });

/** Every relation a plan reads, from EXPLAIN's JSON. */
function relationsOf(plan: unknown): string[] {
  if (Array.isArray(plan)) return plan.flatMap(relationsOf);
  if (!plan || typeof plan !== 'object') return [];
  const node = plan as Record<string, unknown>;
  return [...(typeof node['Relation Name'] === 'string' ? [node['Relation Name']] : []), ...Object.values(node).flatMap(relationsOf)];
}

describe('/metrics on several PostgreSQL replicas', () => {
  it('every replica\'s counts agree with the shared rows, whichever replica ran the work, and the replicas\' histograms add up to every run', async () => {
    const r1 = await start('r1');
    const r2 = await start('r2');
    const ws = await seedWorkspace(r1);
    const agents: string[] = [];
    for (let i = 0; i < AGENTS; i++) agents.push(await createAgent(r1, ws, { name: `Worker ${i}` }));
    // The heartbeats spread the agents over both replicas.
    await advance([r1, r2], 15_000);
    const holders = await Promise.all(agents.map((agent) => holderOf(r1, agent)));
    expect(new Set(holders)).toEqual(new Set(['r1', 'r2']));

    // Each agent woken through both replicas, the one holding it and the other.
    for (let i = 0; i < WAKES_PER_AGENT; i++) {
      for (const [n, agent] of agents.entries()) {
        const through = (i + n) % 2 === 0 ? r1 : r2;
        expect((await through.api('POST', `/api/office/agents/${agent}/wake`, { reason: `wake ${i}` })).status).toBe(202);
      }
    }
    const inspect = createInspector({ dbPath: '', databaseUrl: cluster.databaseUrl });
    try {
      await waitFor(async () => (await rowCounts(inspect)).runs.succeeded === AGENTS * WAKES_PER_AGENT, 'every wakeup to run');
      await waitFor(async () => (await rowCounts(inspect)).wakeups.finished === AGENTS * WAKES_PER_AGENT, 'every wakeup to finish');
      const rows = await rowCounts(inspect);
      const [s1, s2] = [await scrape(r1.url), await scrape(r2.url)];
      expect(gaugesOf(s1)).toEqual(rows);
      expect(gaugesOf(s2)).toEqual(rows);

      const succeeded = (samples: Map<string, number>) => samples.get('office_run_duration_seconds_count{status="succeeded"}') ?? 0;
      expect(succeeded(s1)).toBeGreaterThan(0);
      expect(succeeded(s2)).toBeGreaterThan(0);
      expect(succeeded(s1) + succeeded(s2)).toBe(AGENTS * WAKES_PER_AGENT);
      const spent = (samples: Map<string, number>) => agents.reduce((sum, agent) => sum + (samples.get(`office_run_cost_usd_sum{agent_id="${agent}"}`) ?? 0), 0);
      expect(spent(s1) + spent(s2)).toBeCloseTo(0.5 * AGENTS * WAKES_PER_AGENT, 9);
    } finally {
      await inspect.close();
    }
  }, 60_000);

  it('a scrape runs two statements, whose plans read the counter rows only', async () => {
    const r1 = await start('r1');
    const ws = await seedWorkspace(r1);
    await createAgent(r1, ws);
    // Once the new agent's after-effects (its actor, its snapshot) have run.
    await untilQuiet(r1);
    const before = r1.scheduler.store.statementsExecuted();
    await scrape(r1.url);
    // The two reads, in one read unit of their own (BEGIN … COMMIT).
    expect(r1.scheduler.store.statementsExecuted() - before).toBe(STATUS_COUNT_READS.length + 2);

    const client = new pg.Client({ connectionString: cluster.databaseUrl });
    await client.connect();
    try {
      for (const statement of STATUS_COUNT_READS) {
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${statement}`);
        const relations = relationsOf(rows[0]['QUERY PLAN']);
        expect(relations.length, statement).toBeGreaterThan(0);
        for (const relation of relations) expect(SCRAPE_TABLES.has(relation), `${statement} reads ${relation}`).toBe(true);
      }
    } finally {
      await client.end();
    }
  });
});

it('migration 0033 counts the wakeups and runs already stored, per agent', async () => {
  const database = await freshDatabase();
  drops.push(database.drop);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await migratePostgres(client, loadPostgresMigrations().filter((m) => m.version < 33));
    await client.query(ROWS_BEFORE_DAILY_USAGE);
    expect(await migratePostgres(client)).toContain('0033_status_counts.sql');
    const { rows } = await client.query(`SELECT agent_id, wakeups_claimed::int, runs_queued::int, runs_running::int, runs_succeeded::int, runs_failed::int, runs_cancelled::int
      FROM agent_status_counts ORDER BY agent_id`);
    expect(rows).toEqual([
      { agent_id: 'agt_a', wakeups_claimed: 1, runs_queued: 1, runs_running: 1, runs_succeeded: 2, runs_failed: 1, runs_cancelled: 1 },
      { agent_id: 'agt_b', wakeups_claimed: 1, runs_queued: 0, runs_running: 1, runs_succeeded: 0, runs_failed: 0, runs_cancelled: 0 },
    ]);
  } finally {
    await client.end();
  }
});
