/**
 * A replica in this test process: a scheduler on a shared PostgreSQL database, with its own HTTP
 * server and its own injected clock, so each test moves lease time by hand, replica by replica.
 */
import { afterEach } from 'vitest';
import { SimulatedClock } from 'xstate';
import { loadConfig } from '../../src/config.js';
import type { AgentFunction } from '../../src/executors/types.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { freshDatabase } from '../store/postgresFactory.js';
import { FAST_ENV, request } from './harness.js';

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
