/**
 * What PostgreSQL's concurrency makes the store handle beyond the contract suite: transactions that
 * really interleave (READ COMMITTED: each statement sees what had committed when it began), and a
 * server that cannot be reached.
 */
import { createServer } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createStore } from '../../src/persistence/createStore.js';
import { isStorageUnavailable } from '../../src/persistence/storageUnavailable.js';
import type { StoreUnderTest } from './factory.js';
import { postgresStoreFactory } from './postgresFactory.js';
import { runRow, seedAgent, wakeupRow } from './rows.js';

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

it('a server that cannot be reached fails units with StorageUnavailableError and marks the store unwritable', async () => {
  const port = await closedPort();
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

/** A port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
