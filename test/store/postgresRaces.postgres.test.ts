/**
 * What PostgreSQL's concurrency makes the store handle beyond the contract suite: transactions that
 * really interleave (READ COMMITTED: each statement sees what had committed when it began), and a
 * server that cannot be reached.
 */
import pg from 'pg';
import { afterEach, beforeEach, expect, inject, it } from 'vitest';
import { createStore } from '../../src/persistence/createStore.js';
import { isStorageUnavailable } from '../../src/persistence/storageUnavailable.js';
import { freePort } from '../helpers/ports.js';
import type { StoreUnderTest } from './factory.js';
import { postgresStoreFactory } from './postgresFactory.js';
import { runRow, seedAgent, taskRow, wakeupRow } from './rows.js';

let s: StoreUnderTest;
beforeEach(async () => { s = await postgresStoreFactory(); });
afterEach(async () => { await s.dispose(); });

it('runs of one agent that end at the same moment leave it idle: each end sees the others', async () => {
  const now = s.clock.now;
  const sessions = 4;
  for (let round = 0; round < 5; round++) {
    const { agent } = await s.store.transaction((tx) => seedAgent(tx, now, { max_concurrent_sessions: sessions }));
    const fence = await s.store.transaction((tx) => tx.leases.take(agent.id, 'own_races', null));
    const runs = await s.store.transaction(async (tx) => {
      const started = [];
      for (let i = 0; i < sessions; i++) {
        const wakeup = wakeupRow(agent, now, { status: 'claimed' });
        await tx.wakeups.insert(wakeup);
        const run = runRow(wakeup, now, { status: 'running', started_at: now });
        await tx.runs.insert(run, null);
        started.push(run);
      }
      return started;
    });
    expect(await s.store.read((tx) => tx.agents.get(agent.id))).toMatchObject({ status: 'working' });
    await Promise.all(runs.map((run) => s.store.transaction((tx) =>
      tx.runs.close(run.id, { status: 'succeeded', result_json: {}, error: null, cost_usd: null, finished_at: now + 5 }, null, fence))));
    expect(await s.store.read((tx) => tx.agents.get(agent.id))).toMatchObject({ status: 'idle', last_wakeup_finished_at: now + 5 });
  }
});

it('an enqueue on one of an agent\'s tasks does not wait for an uncommitted enqueue on another; one that may fold whatever the task waits, then folds', async () => {
  const now = s.clock.now;
  const { agent } = await s.store.transaction((tx) => seedAgent(tx, now));
  const [taskA, taskB] = [taskRow(agent.workspace_id, now), taskRow(agent.workspace_id, now)];
  await s.store.transaction(async (tx) => { await tx.tasks.insert(taskA); await tx.tasks.insert(taskB); });
  const rule = { windowSince: now - 5_000, anyTask: false };
  // As the wakeup service hands a request over: its own wake in its context.
  const request = (at: number, taskId: string) => {
    const row = wakeupRow(agent, at, { task_id: taskId });
    return { ...row, context_snapshot: { wakes: [{ wakeup_id: row.id }] } };
  };
  let commitA!: () => void;
  const gate = new Promise<void>((resolve) => (commitA = resolve));
  let enqueuedA!: (id: string) => void;
  const onA = new Promise<string>((resolve) => (enqueuedA = resolve));
  const holdingA = s.store.transaction(async (tx) => {
    const result = await tx.wakeups.enqueueOrFold(request(now, taskA.id), rule, 0);
    enqueuedA((result as { wakeup: { id: string } }).wakeup.id);
    await gate;
  });
  const wakeupA = await onA;

  try {
    const onB = s.store.transaction((tx) => tx.wakeups.enqueueOrFold(request(now + 1, taskB.id), rule, 0));
    expect(await Promise.race([onB, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000))])).toMatchObject({ kind: 'queued' });

    const anyTask = s.store.transaction((tx) => tx.wakeups.enqueueOrFold(request(now + 2, taskB.id), { ...rule, anyTask: true }, 0));
    await until(async () => (await advisoryLocksWaiting()) === 1);
    commitA();
    await holdingA;
    expect(await anyTask).toMatchObject({ kind: 'folded', into: { id: wakeupA, coalesced_count: 2 } });
  } finally {
    commitA();
  }
});

it('an enqueue for an agent does not wait for the end of one of its runs in a transaction still open', async () => {
  const now = s.clock.now;
  const { agent } = await s.store.transaction((tx) => seedAgent(tx, now));
  const fence = await s.store.transaction((tx) => tx.leases.take(agent.id, 'own_races', null));
  const run = await s.store.transaction(async (tx) => {
    const wakeup = wakeupRow(agent, now, { status: 'claimed' });
    await tx.wakeups.insert(wakeup);
    const started = runRow(wakeup, now, { status: 'running', started_at: now });
    await tx.runs.insert(started, null);
    return started;
  });
  let commitEnd!: () => void;
  const gate = new Promise<void>((resolve) => (commitEnd = resolve));
  let ended!: () => void;
  const endWritten = new Promise<void>((resolve) => (ended = resolve));
  // The run's end locks the agent's row (runs_ended) and holds it until this transaction commits.
  const ending = s.store.transaction(async (tx) => {
    await tx.runs.close(run.id, { status: 'succeeded', result_json: {}, error: null, cost_usd: null, finished_at: now + 5 }, null, fence);
    ended();
    await gate;
  });
  await endWritten;
  try {
    const enqueue = s.store.transaction((tx) => tx.wakeups.enqueueOrFold({ ...wakeupRow(agent, now + 1), context_snapshot: { wakes: [] } }, null, 0));
    expect(await Promise.race([enqueue, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000))])).toMatchObject({ kind: 'queued' });
  } finally {
    commitEnd();
    await ending;
  }
});

/** Advisory locks some backend waits for, on the whole server (the PostgreSQL test files run one at a time). */
async function advisoryLocksWaiting(): Promise<number> {
  const client = new pg.Client({ connectionString: inject('postgresAdminUrl') });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check());) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('a server that cannot be reached fails units with StorageUnavailableError and marks the store unwritable', async () => {
  const port = await freePort();
  const store = createStore({ dbPath: '', databaseUrl: `postgres://office:none@127.0.0.1:${port}/office`, sqliteSync: 'NORMAL' },
    { now: () => 1_000, publish: () => undefined });
  try {
    const failed = await store.transaction(async () => undefined).catch((error: unknown) => error);
    expect(isStorageUnavailable(failed)).toBe(true);
    expect(store.storageHealth()).toMatchObject({ writable: false, failure: expect.stringContaining('ECONNREFUSED') });
  } finally {
    await store.close();
  }
});
