/**
 * Round trips to PostgreSQL per unit of work, counted on the wire: the store talks to the server
 * through a TCP relay that counts what the client sends between two answers. A unit's BEGIN goes
 * out with its first statement, so a unit of n statements costs n + 1 round trips (its COMMIT is the
 * last), and a unit that runs no statement costs none.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createStore } from '../../src/persistence/createStore.js';
import type { Store } from '../../src/persistence/store.js';
import { freshDatabase } from './postgresFactory.js';
import { runRow, seedAgent, wakeupRow } from './rows.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A relay in front of the server. `sends` counts the client's bursts: data from the client that
 * follows an answer from the server (or the start) is one round trip, however many packets it takes.
 */
async function countingRelay(port: number): Promise<{ url: (database: string) => string; sends: () => number }> {
  let sends = 0;
  const sockets: Socket[] = [];
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port });
    sockets.push(client, upstream);
    let answered = true;
    client.on('data', (chunk) => {
      if (answered) sends++;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      answered = true;
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const relayPort = (server.address() as { port: number }).port;
  return { url: (database) => database.replace(/@[^/]+\//, `@127.0.0.1:${relayPort}/`), sends: () => sends };
}

async function storeBehindRelay(): Promise<{ store: Store; sends: () => number }> {
  const database = await freshDatabase();
  cleanups.push(database.drop);
  const relay = await countingRelay(Number(new URL(database.url).port));
  // One connection: every unit's bursts go through one socket, one after another.
  const store = createStore({ dbPath: '', databaseUrl: relay.url(database.url), sqliteSync: 'NORMAL' }, { now: () => 1_000, publish: () => undefined });
  cleanups.push(() => store.close());
  await store.read(async () => undefined);
  return { store, sends: relay.sends };
}

it('a unit of work sends its BEGIN with its first statement: n statements cost n + 1 round trips, and an empty unit none', async () => {
  const { store, sends } = await storeBehindRelay();
  const { agent } = await store.transaction((tx) => seedAgent(tx, 1_000));

  let before = sends();
  await store.transaction(async (tx) => {
    await tx.agents.edit(agent.id, { name: 'Renamed' });
    await tx.agents.get(agent.id);
  });
  expect(sends() - before).toBe(3);

  before = sends();
  expect(await store.read((tx) => tx.agents.get(agent.id))).toMatchObject({ name: 'Renamed' });
  expect(sends() - before).toBe(2);

  before = sends();
  await store.transaction(async () => undefined);
  expect(sends() - before).toBe(0);
});

it('statements a unit asks for in one tick leave in one write: two at once cost one round trip, not two', async () => {
  const { store, sends } = await storeBehindRelay();
  const { agent } = await store.transaction((tx) => seedAgent(tx, 1_000));

  const before = sends();
  const [first, second] = await store.read((tx) => Promise.all([tx.agents.get(agent.id), tx.workspaces.get(agent.workspace_id)]));
  expect(first?.id).toBe(agent.id);
  expect(second?.id).toBe(agent.workspace_id);
  // BEGIN and both statements in one write; COMMIT in another.
  expect(sends() - before).toBe(2);
});

it('an enqueue that may fold takes the agent\'s fold lock in the same round trip as its statement', async () => {
  const { store, sends } = await storeBehindRelay();
  const { agent } = await store.transaction((tx) => seedAgent(tx, 1_000));

  const before = sends();
  const result = await store.transaction((tx) => tx.wakeups.enqueueOrFold(wakeupRow(agent, 2_000), { windowSince: 0, anyTask: true }, 0));
  expect(result.kind).toBe('queued');
  // BEGIN, the lock and the enqueue in one write; COMMIT in another.
  expect(sends() - before).toBe(2);
});

it('an unattended enqueue locks the routine-run counters in the same round trip as its statement, and takes its slot in one more', async () => {
  const { store, sends } = await storeBehindRelay();
  const { agent } = await store.transaction((tx) => seedAgent(tx, 1_000, { max_concurrent_routine_runs: 1 }));
  const unattended = { unattended: true, on_behalf_of: 'tok_alice' };

  let before = sends();
  const queued = await store.transaction((tx) => tx.wakeups.enqueueOrFold(wakeupRow(agent, 2_000, unattended), null, 0, { deploymentCap: 10 }));
  expect(queued.kind).toBe('queued');
  // BEGIN, the counters' lock and the enqueue in one write; both counters and the holder in another; COMMIT.
  expect(sends() - before).toBe(3);

  before = sends();
  const refused = await store.transaction((tx) => tx.wakeups.enqueueOrFold(wakeupRow(agent, 2_001, unattended), null, 0, { deploymentCap: 10 }));
  expect(refused).toMatchObject({ kind: 'refused', caps: { deployment: 10, agent: 1 } });
  // Refused by the enqueue's statement itself: nothing to write after it.
  expect(sends() - before).toBe(2);
});

it('a succeeded run\'s close ends its wakeup in the same statement: one round trip, then COMMIT', async () => {
  const { store, sends } = await storeBehindRelay();
  const { agent } = await store.transaction((tx) => seedAgent(tx, 1_000));
  const wakeup = wakeupRow(agent, 1_000, { status: 'claimed' });
  const run = runRow(wakeup, 1_000, { status: 'running', started_at: 1_000 });
  const fence = await store.transaction(async (tx) => {
    await tx.wakeups.insert(wakeup);
    await tx.runs.insert(run, null);
    return tx.leases.take(agent.id, 'relay-owner', null);
  });

  const before = sends();
  const closed = await store.transaction((tx) => tx.runs.close(run.id,
    { status: 'succeeded', result_json: {}, error: null, cost_usd: null, finished_at: 2_000 }, null, fence, wakeup.id));
  expect(closed.closed).toBe(true);
  expect(sends() - before).toBe(2);
  expect(await store.read((tx) => tx.wakeups.get(wakeup.id))).toMatchObject({ status: 'finished', finished_at: 2_000 });
});
