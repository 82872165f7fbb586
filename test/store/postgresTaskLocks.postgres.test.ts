/**
 * The task row a run start locks on PostgreSQL, against the KEY SHARE lock every foreign-key check
 * on tasks takes (a comment's task, a subtask's parent). A start locks the task while it checks the
 * checkout; FOR UPDATE would make it wait for any open transaction that wrote a row referencing the
 * task, and make that one wait for it: the pattern migration 0023 removed for agents, where it ended
 * in deadlocks. FOR NO KEY UPDATE conflicts with neither, and still queues two starts on one task.
 *
 * Each case holds one transaction open after its first write and runs the other one beside it: the
 * second must commit while the first is still open, and is never seen waiting for a lock.
 */
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Agent, Task, Wakeup } from '../../src/domain/types.js';
import { createStore } from '../../src/persistence/createStore.js';
import type { Store, Tx } from '../../src/persistence/store.js';
import { CONTRACT_EPOCH } from './factory.js';
import { freshDatabase } from './postgresFactory.js';
import { commentRow, runRow, seedAgent, taskRow, wakeupRow } from './rows.js';

const now = CONTRACT_EPOCH;
let database: Awaited<ReturnType<typeof freshDatabase>>;
let store: Store;
let sql: pg.Client;

beforeEach(async () => {
  database = await freshDatabase();
  store = createStore({ dbPath: '', databaseUrl: database.url, sqliteSync: 'NORMAL' }, { now: () => now, publish: () => undefined });
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
});
afterEach(async () => {
  await sql.end();
  await store.close();
  await database.drop();
});

/** An agent with a task and a claimed wakeup on it, ready for its run to start. */
async function claimedOnTask(): Promise<{ agent: Agent; task: Task; wakeup: Wakeup }> {
  return store.transaction(async (tx) => {
    const { agent } = await seedAgent(tx, now);
    const task = taskRow(agent.workspace_id, now, { assignee_agent_instance_id: agent.id });
    await tx.tasks.insert(task);
    const wakeup = wakeupRow(agent, now, { task_id: task.id, status: 'claimed', claimed_at: now });
    await tx.wakeups.insert(wakeup);
    return { agent, task, wakeup };
  });
}

/** Backends of this database waiting for a row or table lock now, as pg_stat_activity says. */
async function waitingForALock(): Promise<string[]> {
  const { rows } = await sql.query<{ query: string }>(
    "SELECT query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
  return rows.map((row) => row.query);
}

/**
 * Runs `first` in a transaction held open after it, then `second` in another: `second` must commit
 * while `first`'s transaction is still open. A `second` seen waiting for a lock fails the test (the
 * first is then let go, so that both end).
 */
async function besideAnOpenTransaction(first: (tx: Tx) => Promise<void>, second: (tx: Tx) => Promise<unknown>): Promise<void> {
  let wrote!: () => void;
  const firstWrote = new Promise<void>((resolve) => { wrote = resolve; });
  let letGo!: () => void;
  const held = new Promise<void>((resolve) => { letGo = resolve; });
  const holding = store.transaction(async (tx) => {
    await first(tx);
    wrote();
    await held;
  });
  await firstWrote;
  let done = false;
  const beside = store.transaction(second).finally(() => { done = true; });
  try {
    while (!done) {
      const waiting = await waitingForALock();
      expect(waiting, 'the second transaction waited for the lock of the first').toEqual([]);
    }
    await beside;
  } finally {
    letGo();
    await Promise.allSettled([holding, beside]);
  }
  await holding;
}

it('a run start does not wait for an open transaction that added a comment to its task', async () => {
  const { task, wakeup } = await claimedOnTask();
  let started: boolean | undefined;
  await besideAnOpenTransaction(
    (tx) => tx.comments.insert(commentRow(task, now)),
    async (tx) => { started = await tx.runs.start(runRow(wakeup, now, { status: 'running', started_at: now }), null); },
  );
  expect(started).toBe(true);
  expect(await store.read((tx) => tx.tasks.get(task.id))).toMatchObject({ checkout_wakeup_id: wakeup.id });
});

it('a subtask added under a task does not wait for the open transaction of a run starting on it', async () => {
  const { agent, task, wakeup } = await claimedOnTask();
  const subtask = taskRow(agent.workspace_id, now, { parent_id: task.id, title: 'A part of it' });
  await besideAnOpenTransaction(
    async (tx) => { expect(await tx.runs.start(runRow(wakeup, now, { status: 'running', started_at: now }), null)).toBe(true); },
    (tx) => tx.tasks.insert(subtask),
  );
  expect(await store.read((tx) => tx.tasks.get(subtask.id))).toMatchObject({ parent_id: task.id });
});
