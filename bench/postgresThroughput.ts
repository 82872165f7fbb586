/**
 * P6a: one replica on PostgreSQL, saturated assignment -> executor start (P2's scenario: 100 agents x
 * 10 slots, a function executor), against graphile-worker's add-job -> job-start rate on the same
 * server in the same run; and P2b's statements per wakeup, with the store on PostgreSQL.
 * The server is embedded PostgreSQL in a temp directory, started and stopped here.
 */
import { performance } from 'node:perf_hooks';
import { GRAPHILE_CONCURRENCY, graphileAddToStartRate } from './graphileWorker.js';
import { withEmbeddedPostgres } from './postgresServer.js';
import { postgresServerWindow, profileWindow, sqlProfileIfAsked } from './sqlProfile.js';
import { measureWakeupCost } from './statementsPerWakeup.js';
import { benchScheduler, type Figure } from './support.js';
import type { StatementProfile } from '../src/persistence/shared/statementProfile.js';

/** Assignments not counted, before each measurement: the JIT, the prepared statements and the agents' first snapshots. */
const WARMUP = 500;

export async function p6aPostgresThroughput(): Promise<Figure[]> {
  const n = Number(process.env.BENCH_P6A_N ?? 4_000);
  const profile = sqlProfileIfAsked();
  // A profiled run loads pg_stat_statements (a preload: the server's flags, at its start), and only then.
  return withEmbeddedPostgres(async (server) => {
    const ours = await saturatedRate(await server.createDatabase('office_p6a'), n, profile);
    const graphile = await graphileAddToStartRate(await server.createDatabase('graphile_p6a'), n, WARMUP);
    const cost = await wakeupCost(await server.createDatabase('office_p6a_cost'));
    return [
      { id: 'P6a', name: 'PostgreSQL: saturated assignment -> executor start / graphile-worker add -> start', value: ours / graphile, unit: 'ratio',
        goal: '>= 2', ok: ours / graphile >= 2,
        note: `${Math.round(ours)}/s (${n} tasks, 100 agents x 10 slots) vs graphile-worker 0.16.6 ${Math.round(graphile)}/s (${n} addJob, concurrency ${GRAPHILE_CONCURRENCY})` },
      { id: 'P6a', name: 'PostgreSQL: statements per wakeup', value: cost.statements, unit: 'statements', goal: '', ok: true,
        note: `P2b's scenario on PostgreSQL: mean of ${COST_N}, one at a time` },
      { id: 'P6a', name: 'PostgreSQL: transactions per wakeup', value: cost.transactions, unit: 'transactions', goal: '', ok: true },
    ];
  }, { preload: profile ? ['pg_stat_statements'] : [] });
}

/** P2's scenario on PostgreSQL: assignments all at once over 100 agents of 10 slots, to the Nth executor start. */
async function saturatedRate(databaseUrl: string, n: number, profile?: StatementProfile): Promise<number> {
  let started = 0;
  let target = WARMUP;
  let reached!: () => void;
  let whenReached = new Promise<void>((resolve) => (reached = resolve));
  const bench = await benchScheduler({ OFFICE_DATABASE_URL: databaseUrl, OFFICE_REPLICA_ID: 'p6a' }, new Map([['noop', async () => {
    if (++started === target) reached();
    return {};
  }]]), true, profile);
  try {
    const { workspaceId, agentIds } = await bench.seedAgents(100, { maxConcurrent: 10, executor: { kind: 'function', name: 'noop' } });
    const { services } = bench.scheduler;
    const assignAll = (count: number, offset: number) => {
      const creations: Promise<unknown>[] = [];
      for (let i = offset; i < offset + count; i++) {
        creations.push(services.tasks.createTask({ workspace_id: workspaceId, title: `t${i}`, assignee_agent_instance_id: agentIds[i % agentIds.length]! }));
      }
      return Promise.all(creations);
    };
    await assignAll(WARMUP, 0);
    await whenReached;

    target = WARMUP + n;
    whenReached = new Promise<void>((resolve) => (reached = resolve));
    const serverWindow = profile && await postgresServerWindow(databaseUrl);
    const window = profile && profileWindow('P6a', 'PostgreSQL', profile);
    window?.start();
    const start = performance.now();
    await assignAll(n, WARMUP);
    await whenReached;
    const seconds = (performance.now() - start) / 1000;
    // The client's profile first, as it stands at the window's end; then the server's view, a few ms later.
    if (window && serverWindow) Object.assign(window.end(n), await serverWindow.end());
    return n / seconds;
  } finally {
    await bench.stop();
  }
}

const COST_N = 200;

async function wakeupCost(databaseUrl: string) {
  let started = 0;
  const bench = await benchScheduler({ OFFICE_DATABASE_URL: databaseUrl, OFFICE_REPLICA_ID: 'p6a-cost' }, new Map([['noop', async () => {
    started++;
    return {};
  }]]));
  try {
    const { workspaceId, agentIds } = await bench.seedAgents(1, { executor: { kind: 'function', name: 'noop' } });
    const assign = (i: number) => bench.scheduler.services.tasks.createTask({ workspace_id: workspaceId, title: `t${i}`, assignee_agent_instance_id: agentIds[0]! });
    await measureWakeupCost(bench.scheduler, agentIds[0]!, () => started, 20, (i) => assign(-i - 1));
    return await measureWakeupCost(bench.scheduler, agentIds[0]!, () => started, COST_N, assign);
  } finally {
    await bench.stop();
  }
}
