/**
 * `/metrics` on PostgreSQL with several replicas: the counts of wakeups and runs by status come from
 * counter rows every replica shares, so each replica's scrape agrees with the rows whichever replica
 * ran the work; the histograms are each replica's own (their sum is the whole); and a scrape's
 * statements read only the counter rows and the open rows' partial indexes (EXPLAIN). Also the
 * backfill of migration 0033 and what 0038 leaves of it.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { rendezvousOwner } from '../../src/actors/replicas.js';
import { createInspector } from '../../src/persistence/createStore.js';
import { loadPostgresMigrations, migratePostgres } from '../../src/persistence/postgres/migrate.js';
import { STATUS_COUNT_READS } from '../../src/persistence/sql/statusCounts.js';
import type { AgentFunction } from '../../src/executors/types.js';
import { ROWS_BEFORE_DAILY_USAGE } from '../helpers/dailyUsageUpgrade.js';
import { waitFor } from '../helpers/harness.js';
import { gaugesOf, rowCounts, scrape, scrapeReadFault } from '../helpers/metrics.js';
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

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** Every table a plan reads, with the index it reads it through (a bitmap scan's is its child's), from EXPLAIN's JSON. */
function readsOf(node: PlanNode): { table: string; index: string | null }[] {
  const children = node.Plans ?? [];
  const own = typeof node['Relation Name'] === 'string'
    ? [{ table: node['Relation Name'], index: (node['Index Name'] ?? children.find((child) => child['Node Type'] === 'Bitmap Index Scan')?.['Index Name'] ?? null) as string | null }]
    : [];
  return [...own, ...children.flatMap(readsOf)];
}

describe('/metrics on several PostgreSQL replicas', () => {
  it('every replica\'s counts agree with the shared rows, whichever replica ran the work, and the replicas\' histograms add up to every run', async () => {
    const r1 = await start('r1');
    const r2 = await start('r2');
    const ws = await seedWorkspace(r1);
    // Ids are random, and rendezvous hashing can give all of a few agents to one replica (1 in 32
    // for six): agents are made until each replica will hold one.
    const agents: string[] = [];
    while (agents.length < AGENTS || new Set(agents.map((agent) => rendezvousOwner(agent, ['r1', 'r2']))).size < 2) {
      agents.push(await createAgent(r1, ws, { name: `Worker ${agents.length}` }));
    }
    // The heartbeats spread the agents over both replicas.
    await advance([r1, r2], 15_000);
    const holders = await Promise.all(agents.map((agent) => holderOf(r1, agent)));
    expect(holders).toEqual(agents.map((agent) => rendezvousOwner(agent, ['r1', 'r2'])));

    // Each agent woken through both replicas, the one holding it and the other.
    for (let i = 0; i < WAKES_PER_AGENT; i++) {
      for (const [n, agent] of agents.entries()) {
        const through = (i + n) % 2 === 0 ? r1 : r2;
        expect((await through.api('POST', `/api/office/agents/${agent}/wake`, { reason: `wake ${i}` })).status).toBe(202);
      }
    }
    const inspect = createInspector({ dbPath: '', databaseUrl: cluster.databaseUrl });
    try {
      await waitFor(async () => (await rowCounts(inspect)).runs.succeeded === agents.length * WAKES_PER_AGENT, 'every wakeup to run');
      await waitFor(async () => (await rowCounts(inspect)).wakeups.finished === agents.length * WAKES_PER_AGENT, 'every wakeup to finish');
      const rows = await rowCounts(inspect);
      const [s1, s2] = [await scrape(r1.url), await scrape(r2.url)];
      expect(gaugesOf(s1)).toEqual(rows);
      expect(gaugesOf(s2)).toEqual(rows);

      const succeeded = (samples: Map<string, number>) => samples.get('office_run_duration_seconds_count{status="succeeded"}') ?? 0;
      expect(succeeded(s1)).toBeGreaterThan(0);
      expect(succeeded(s2)).toBeGreaterThan(0);
      expect(succeeded(s1) + succeeded(s2)).toBe(agents.length * WAKES_PER_AGENT);
      const spent = (samples: Map<string, number>) => agents.reduce((sum, agent) => sum + (samples.get(`office_run_cost_usd_sum{agent_id="${agent}"}`) ?? 0), 0);
      expect(spent(s1) + spent(s2)).toBeCloseTo(0.5 * agents.length * WAKES_PER_AGENT, 9);
    } finally {
      await inspect.close();
    }
  }, 60_000);

  it('a scrape runs two statements, whose plans read the counter rows and the open rows\' partial indexes only', async () => {
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
      // The test's tables are small enough for a sequential scan to be cheapest: what is asked is
      // whether the open rows' index can serve the count, as it must once the history is long.
      await client.query('SET enable_seqscan = off');
      for (const statement of STATUS_COUNT_READS) {
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${statement}`);
        const reads = readsOf(rows[0]['QUERY PLAN'][0].Plan);
        expect(reads.map((read) => read.table), statement).toEqual(expect.arrayContaining(['agent_status_counts']));
        for (const { table, index } of reads) expect(scrapeReadFault(table, index), `${statement}: ${JSON.stringify(reads)}`).toBeNull();
      }
    } finally {
      await client.end();
    }
  });
});

it('migrations 0033 and 0038 count the wakeups and runs already stored: the ended ones per agent, the open ones from their rows', async () => {
  const database = await freshDatabase();
  drops.push(database.drop);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await migratePostgres(client, loadPostgresMigrations().filter((m) => m.version < 33));
    await client.query(ROWS_BEFORE_DAILY_USAGE);
    expect(await migratePostgres(client)).toEqual(expect.arrayContaining(['0033_status_counts.sql', '0038_open_statuses_counted_from_rows.sql']));
    const { rows } = await client.query(`SELECT agent_id, runs_succeeded::int, runs_failed::int, runs_cancelled::int, wakeups_finished::int
      FROM agent_status_counts ORDER BY agent_id`);
    expect(rows).toEqual([
      { agent_id: 'agt_a', runs_succeeded: 2, runs_failed: 1, runs_cancelled: 1, wakeups_finished: 0 },
      { agent_id: 'agt_b', runs_succeeded: 0, runs_failed: 0, runs_cancelled: 0, wakeups_finished: 0 },
    ]);
    const [wakeups, runs] = [(await client.query(STATUS_COUNT_READS[0]!)).rows[0], (await client.query(STATUS_COUNT_READS[1]!)).rows[0]];
    expect(wakeups).toMatchObject({ claimed: '2', queued: '0', scheduled_retry: '0', finished: '0' });
    expect(runs).toMatchObject({ queued: '1', running: '2', succeeded: '2', failed: '1', cancelled: '1', interrupted: '0' });
  } finally {
    await client.end();
  }
});
