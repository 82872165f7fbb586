/**
 * A replica in this test process: a scheduler on a shared PostgreSQL database, with its own HTTP
 * server and its own injected clock, so each test moves lease time by hand, replica by replica.
 */
import { afterEach, expect } from 'vitest';
import { SimulatedClock } from 'xstate';
import { rendezvousOwner } from '../../src/actors/replicas.js';
import { loadConfig } from '../../src/config.js';
import type { AgentFunction } from '../../src/executors/types.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { freshDatabase } from '../store/postgresFactory.js';
import { FAST_ENV, request, waitFor } from './harness.js';

export interface InProcessReplica {
  id: string;
  clock: SimulatedClock;
  scheduler: Scheduler;
  url: string;
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

export interface InProcessReplicaOptions {
  functions?: Map<string, AgentFunction>;
  /** Where its clock starts. */
  at: number;
  /** OFFICE_ settings beyond the fast test defaults, the database and the replica id. */
  env?: Record<string, string>;
}

export async function startInProcessReplica(databaseUrl: string, id: string, options: InProcessReplicaOptions): Promise<InProcessReplica> {
  const clock = new SimulatedClock();
  clock.set(options.at);
  const config = loadConfig({ ...FAST_ENV, ...options.env, OFFICE_DATABASE_URL: databaseUrl, OFFICE_REPLICA_ID: id });
  const scheduler = await createScheduler({ config, clock, functions: options.functions ?? new Map() });
  const { url } = await scheduler.start();
  return { id, clock, scheduler, url: url!, api: (method, path, body) => request(url!, method, path, body) };
}

/**
 * The replicas of each test of a file, on a fresh PostgreSQL database made at the test's first
 * start: those still running are stopped, the last started first, and the database dropped, after
 * each test.
 */
export function replicasPerTest() {
  let database: Awaited<ReturnType<typeof freshDatabase>> | null = null;
  const running: InProcessReplica[] = [];
  afterEach(async () => {
    for (const replica of running.splice(0).reverse()) await replica.scheduler.stop().catch(() => undefined);
    await database?.drop();
    database = null;
  });
  return {
    async start(id: string, options: InProcessReplicaOptions): Promise<InProcessReplica> {
      database ??= await freshDatabase();
      const replica = await startInProcessReplica(database.url, id, options);
      running.push(replica);
      return replica;
    },
    /** Stops a replica before its test ends: a shutdown under test. */
    async stop(replica: InProcessReplica): Promise<void> {
      running.splice(running.indexOf(replica), 1);
      await replica.scheduler.stop();
    },
    /** The test's database, once a replica started on it. */
    get databaseUrl(): string {
      return database!.url;
    },
  };
}

/** How often a replica heartbeats: a third of its lease. */
export function heartbeatMs(replica: InProcessReplica): number {
  return (replica.scheduler.config.leaseSec * 1000) / 3;
}

/** Moves a replica's clock (firing its heartbeat timers) and runs one heartbeat to completion. */
export async function beat(replica: InProcessReplica, byMs = 0): Promise<void> {
  if (byMs > 0) replica.clock.increment(byMs);
  await replica.scheduler.replicas.tick();
}

/**
 * Time passing for live replicas: their clocks move together in steps of a heartbeat, each step's
 * heartbeats run before the next, as they would in real time (a jump past the lease would make every
 * replica look dead to the others).
 */
export async function advance(replicas: InProcessReplica[], ms: number): Promise<void> {
  const every = heartbeatMs(replicas[0]!);
  for (let left = ms; left > 0; left -= every) {
    const step = Math.min(left, every);
    for (const replica of replicas) replica.clock.increment(step);
    for (const replica of replicas) await replica.scheduler.replicas.tick();
  }
}

/** The replica whose unexpired lease holds the agent, as `replica` reads it on its clock; null for none. */
export async function holderOf(replica: InProcessReplica, agentId: string): Promise<string | null> {
  const lease = await replica.scheduler.store.read((tx) => tx.leases.leaseOf(agentId));
  return lease && (lease.expires_at === null || lease.expires_at > replica.clock.now()) ? lease.owner_id : null;
}

/**
 * Two live replicas once their heartbeats have spread the agents: the one holding `agentId`
 * (rendezvous hashing) and the other, which sees the lease as the holder's.
 */
export async function holderAndOther(r1: InProcessReplica, r2: InProcessReplica, agentId: string): Promise<{ owner: InProcessReplica; elsewhere: InProcessReplica }> {
  for (const r of [r1, r2]) await beat(r, heartbeatMs(r));
  for (const r of [r1, r2]) await beat(r);
  const owner = [r1, r2].find((r) => r.id === rendezvousOwner(agentId, [r1.id, r2.id]))!;
  const elsewhere = owner === r1 ? r2 : r1;
  expect(await holderOf(elsewhere, agentId)).toBe(owner.id);
  return { owner, elsewhere };
}

export async function seedWorkspace(replica: InProcessReplica): Promise<string> {
  return (await replica.api('POST', '/api/office/workspaces', { name: 'Acme' })).body.id;
}

/** An agent created through `replica` (so held by it at first): a `function` agent named `quick` unless `patch` says otherwise. */
export async function createAgent(replica: InProcessReplica, workspaceId: string, patch: Record<string, unknown> = {}): Promise<string> {
  const created = await replica.api('POST', '/api/office/agents', {
    workspace_id: workspaceId, name: 'Worker', role: 'worker', cooldown_sec: 0, executor: { kind: 'function', name: 'quick' }, ...patch,
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** Until the replica's statement count stays put for a moment of real time. */
export async function untilQuiet(replica: InProcessReplica): Promise<void> {
  let last = -1;
  await waitFor(async () => {
    const now = replica.scheduler.store.statementsExecuted();
    const quiet = now === last;
    last = now;
    // Stays a real pause: nothing signals that a create's after-effects have all ended, so "quiet" is a count that holds still for 200 ms.
    if (!quiet) await new Promise((resolve) => setTimeout(resolve, 200));
    return quiet;
  }, 'the replica to stop running statements');
}
