/**
 * Routine result deliveries made by two replicas on one PostgreSQL database: two DeliveryServices,
 * each on its own store under its own replica id and its own injected clock, and one slow delivery
 * webhook (a local HTTP server that answers each POST only when the test lets it). Each POST takes 9 s
 * of the replicas' time, under an attempt's 10 s timeout, so a replica works through its deliveries
 * for longer than one claim lasts: a delivery must still reach the webhook once.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { loadConfig } from '../../src/config.js';
import { createStore } from '../../src/persistence/createStore.js';
import type { Store } from '../../src/persistence/store.js';
import { DELIVERY_CLAIM_MS, DeliveryService } from '../../src/services/delivery.js';
import { FAST_ENV, waitFor } from '../helpers/harness.js';
import { capturingLogger } from '../helpers/logs.js';
import { freshDatabase } from '../store/postgresFactory.js';
import { routineRow, routineRunRow, seedAgent } from '../store/rows.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
/** How long the webhook takes to answer one POST, in the replicas' time: under the attempt's timeout. */
const POST_MS = 9_000;
/** More deliveries than one claim's worth of posts: posting them all one after another outlasts a claim. */
const DELIVERIES = Math.ceil(DELIVERY_CLAIM_MS / POST_MS) + 2;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The delivery webhook: keeps what each POST carried, and holds its answer until `answerAll`. */
async function slowWebhook() {
  const received: string[] = [];
  const waiting: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { routine_run_id: string }).routine_run_id);
      waiting.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    /** POSTs waiting for their answer now. */
    get waiting() { return waiting.length; },
    answerAll() {
      for (const res of waiting.splice(0)) res.end('ok');
    },
  };
}

/** A replica's delivery side: its own store (its replica id) and clock, on the shared database. */
function replicaDeliveries(databaseUrl: string, owner: string) {
  const clock = new SimulatedClock();
  clock.set(T0);
  const config = loadConfig({ ...FAST_ENV, OFFICE_DATABASE_URL: databaseUrl, OFFICE_REPLICA_ID: owner });
  const store = createStore(config, { owner, now: () => clock.now(), publish: () => undefined });
  const { log } = capturingLogger();
  const service = new DeliveryService({ store, clock, config, log, owner, random: () => 0.5, takeOverAtStart: false });
  cleanups.push(async () => {
    await service.stop();
    await store.close();
  });
  return { owner, clock, store, service };
}

/** Settled routine runs of one routine, each with its delivery to `url` due at T0. */
async function dueDeliveries(store: Store, url: string, count: number): Promise<string[]> {
  return store.transaction(async (tx) => {
    const { agent } = await seedAgent(tx, T0);
    const routine = routineRow(agent, T0, { delivery: { kind: 'webhook', url } });
    await tx.routines.insert(routine);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const run = routineRunRow(routine, T0, { status: 'dispatched', outcome: 'succeeded', completed_at: T0 });
      await tx.routines.insertRun(run);
      await tx.deliveries.schedule({ routine_run_id: run.id, url, body: { routine_run_id: run.id }, next_attempt_at: T0, created_at: T0 });
      ids.push(run.id);
    }
    return ids;
  });
}

describe('routine result deliveries between replicas (PostgreSQL)', () => {
  it('two replicas working through deliveries with a slow webhook post each delivery once, however long the posts take together', async () => {
    const database = await freshDatabase();
    cleanups.push(database.drop);
    const webhook = await slowWebhook();
    const a = replicaDeliveries(database.url, 'replica-a');
    const b = replicaDeliveries(database.url, 'replica-b');
    const runIds = await dueDeliveries(a.store, webhook.url, DELIVERIES);
    const statusOf = async (runId: string) => (await a.store.read((tx) => tx.routines.getRun(runId)))?.delivery_status;
    const allDelivered = async () => (await Promise.all(runIds.map(statusOf))).every((status) => status === 'delivered');

    a.service.start();
    await waitFor(() => webhook.waiting > 0, 'replica-a\'s first POST');
    b.service.start();
    // Each turn is one POST's worth of time on both replicas; then every POST waiting is answered.
    for (let turn = 0; !(await allDelivered()); turn++) {
      expect(turn, 'more turns than deliveries: some delivery is not being made').toBeLessThan(DELIVERIES * 2);
      await waitFor(async () => webhook.waiting > 0 || await allDelivered(), 'a POST to the webhook, or every delivery made');
      a.clock.increment(POST_MS);
      b.clock.increment(POST_MS);
      webhook.answerAll();
      await waitFor(async () => webhook.waiting > 0 || await allDelivered(), 'the replicas to record what was answered and post the next');
    }

    // Whatever either replica still had in hand is posted before it stops: any second POST shows.
    let stopped = false;
    const stopping = Promise.all([a.service.stop(), b.service.stop()]).then(() => { stopped = true; });
    await waitFor(() => {
      webhook.answerAll();
      return stopped;
    }, 'both replicas to stop delivering');
    await stopping;

    expect(webhook.received).toHaveLength(DELIVERIES);
    expect([...webhook.received].sort()).toEqual([...runIds].sort());
    // Recorded once each: the row went with the attempt that delivered it.
    expect(await a.store.read((tx) => tx.deliveries.nextDue())).toBeNull();
  }, 60_000);
});
