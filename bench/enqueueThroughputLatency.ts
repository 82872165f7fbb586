/**
 * P1: in-process enqueue rate against the raw better-sqlite3 insert of the same row.
 * P2: saturated throughput from assignment to executor start (100 agents, 10 slots each).
 * P3: latency from assignment to executor start at a steady 1,000 wakeups/s.
 */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { newId } from '../src/services/ids.js';
import { benchScheduler, percentile, type Figure } from './support.js';

export async function p1EnqueueRatio(): Promise<Figure[]> {
  const N = 20_000;
  // Not started: no agent actors, so this measures the enqueue itself (validation, idempotency,
  // coalescing lookups, the insert, one transaction), not the dispatch that follows it.
  const bench = await benchScheduler({ OFFICE_COALESCE_WINDOW_MS: '0' }, undefined, false);
  const { workspaceId, agentId } = await bench.seedDormantAgent();
  // Warm up statements and the JIT on both paths before measuring.
  await enqueueMany(bench, agentId, 500);
  const start = performance.now();
  await enqueueMany(bench, agentId, N);
  const enqueueRate = N / ((performance.now() - start) / 1000);
  await bench.scheduler.stop();

  const db = new Database(bench.dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const insert = db.prepare(`INSERT INTO agent_wakeup_requests (id, workspace_id, agent_id, source, reason, payload, task_id, status,
    coalesced_count, idempotency_key, retry_count, available_at, context_snapshot, recovered, requested_at)
    VALUES (?, ?, ?, 'user', 'bench', ?, NULL, 'queued', 1, ?, 0, ?, ?, 0, ?)`);
  const insertOne = db.transaction((i: number) => {
    const now = Date.now();
    const payload = JSON.stringify({ user_id: 'bench' });
    insert.run(newId('wk'), workspaceId, agentId, payload, `raw:${i}`, now, JSON.stringify({ wakes: [{ payload }] }), now);
  });
  for (let i = 0; i < 500; i++) insertOne(-i - 1);
  const rawStart = performance.now();
  for (let i = 0; i < N; i++) insertOne(i);
  const rawRate = N / ((performance.now() - rawStart) / 1000);
  db.close();
  rmSync(bench.dir, { recursive: true, force: true });
  return [
    { id: 'P1', name: 'enqueue rate / raw insert rate', value: enqueueRate / rawRate, unit: 'ratio', goal: '>= 0.5', ok: enqueueRate / rawRate >= 0.5,
      note: `enqueue ${Math.round(enqueueRate)}/s, raw insert ${Math.round(rawRate)}/s` },
  ];
}

let keySeq = 0;
async function enqueueMany(bench: Awaited<ReturnType<typeof benchScheduler>>, agentId: string, n: number) {
  const { store, services } = bench.scheduler;
  for (let i = 0; i < n; i++) {
    await store.transaction((tx) => services.wakeups.enqueue(tx, {
      agent_id: agentId, source: 'user', reason: 'bench', payload: { user_id: 'bench' }, idempotency_key: `bench:${keySeq++}`,
    }, Date.now()));
  }
}

export async function p2Throughput(): Promise<Figure[]> {
  const N = Number(process.env.BENCH_P2_N ?? 30_000);
  let started = 0;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const bench = await benchScheduler({}, new Map([['noop', async () => {
    if (++started === N) resolveDone();
    return {};
  }]]));
  const { workspaceId, agentIds } = await bench.seedAgents(100, { maxConcurrent: 10, executor: { kind: 'function', name: 'noop' } });
  const { services } = bench.scheduler;
  const start = performance.now();
  const creations: Promise<unknown>[] = [];
  for (let i = 0; i < N; i++) {
    creations.push(services.tasks.createTask({ workspace_id: workspaceId, title: `t${i}`, assignee_agent_instance_id: agentIds[i % agentIds.length]! }));
  }
  await Promise.all(creations);
  await done;
  const seconds = (performance.now() - start) / 1000;
  await bench.stop();
  const rate = N / seconds;
  return [{ id: 'P2', name: 'saturated assignment -> executor start', value: rate, unit: 'wakeups/s', goal: '>= 6000', ok: rate >= 6000,
    note: `${N} tasks over 100 agents x 10 slots in ${seconds.toFixed(2)} s` }];
}

export async function p3Latency(): Promise<Figure[]> {
  const N = 5_000;
  const RATE_PER_MS = 1;
  const latencies: number[] = [];
  const startedAt = new Map<string, number>();
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const bench = await benchScheduler({}, new Map([['stamp', async (request) => {
    const title = /# Task \S+: (t\d+)/.exec(request.prompt)?.[1] ?? '';
    const t0 = startedAt.get(title);
    if (t0 !== undefined) latencies.push(performance.now() - t0);
    if (latencies.length === N) resolveDone();
    return {};
  }]]));
  const { workspaceId, agentIds } = await bench.seedAgents(100, { maxConcurrent: 10, executor: { kind: 'function', name: 'stamp' } });
  const { services } = bench.scheduler;
  const begin = performance.now();
  // A steady 1,000/s from a timer: every tick sends the assignments that are due, then yields,
  // so the generator never starves the scheduler it shares the thread with.
  let sent = 0;
  while (sent < N) {
    const due = Math.min(N, Math.floor((performance.now() - begin) * RATE_PER_MS) + 1);
    for (; sent < due; sent++) {
      startedAt.set(`t${sent}`, performance.now());
      void services.tasks.createTask({ workspace_id: workspaceId, title: `t${sent}`, assignee_agent_instance_id: agentIds[sent % agentIds.length]! });
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await done;
  await bench.stop();
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  return [
    { id: 'P3', name: 'assignment -> executor start p50 @1000/s', value: p50, unit: 'ms', goal: '', ok: true },
    { id: 'P3', name: 'assignment -> executor start p99 @1000/s', value: p99, unit: 'ms', goal: '< 2', ok: p99 < 2 },
  ];
}
