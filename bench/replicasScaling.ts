/**
 * P6b: saturated assignment -> executor start with 3 replicas, against 1 replica, on one PostgreSQL.
 * P6c: failover: a replica that runs sessions of its agents is SIGKILLed; the time until every one of
 * those agents runs on a survivor.
 *
 * Each replica is a process of its own (bench/replicasChild.ts: what src/main.ts runs, with
 * OFFICE_REPLICA_ID, plus function executors), as replicas run in production; each bench starts its
 * own embedded PostgreSQL. The assignments are made inside the replicas, spread evenly over them
 * whichever one holds the agent, so that two thirds of them reach their agent's replica through the
 * database (NOTIFY), as they would behind a load balancer. They are not sent over HTTP: the client
 * would share the 2 cores with the replicas and bound both figures by itself.
 * OFFICE_LEASE_SEC is short (LEASE_SEC), so that a failover is seconds and a spread one second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { rendezvousOwner } from '../src/actors/replicas.js';
import { cpuSecondsOf, postgresCpu, postgresCpuBetween } from './processCpu.js';
import { percentile, type Figure } from './support.js';
import { withEmbeddedPostgres, type BenchPostgres } from './postgresServer.js';
import type { FromReplica, ToReplica } from './replicasChild.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LEASE_SEC = 3;
const P6B_LEASE_SEC = Number(process.env.BENCH_P6B_LEASE_SEC ?? 15);
const AGENTS = 100;
const SLOTS = 10;
const WARMUP = 300;

interface Replica {
  id: string;
  proc: ChildProcess;
  url: string;
  /** Executor starts reported so far. */
  started: number;
  /** The replica store's statements and write transactions so far. */
  statements: number;
  transactions: number;
  exited: Promise<void>;
  assign(workspaceId: string, agentIds: string[], from: number, count: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(check: () => T | Promise<T>, what: string | (() => string), timeoutMs: number, everyMs = 5): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(everyMs);
  }
}

/** The bench's environment without any OFFICE_ setting of its own: each replica gets exactly the ones below. */
function replicaEnv(databaseUrl: string, id: string, leaseSec: number): Record<string, string> {
  const inherited = Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('OFFICE_'));
  return {
    ...Object.fromEntries(inherited),
    OFFICE_DATABASE_URL: databaseUrl, OFFICE_REPLICA_ID: id, OFFICE_LEASE_SEC: String(leaseSec), OFFICE_PORT: '0',
    OFFICE_LOG_LEVEL: 'error', OFFICE_RECOVERY_SWEEP_SEC: '0', OFFICE_LOOP_DETECTOR_RUNS: '0', OFFICE_SHUTDOWN_GRACE_MS: '1000',
    OFFICE_BACKOFF: '200ms', OFFICE_BACKOFF_JITTER: '0',
  };
}

function startReplica(databaseUrl: string, id: string, leaseSec: number): Promise<Replica> {
  // BENCH_CPU_PROF_DIR=dir: each replica writes a CPU profile there when it stops (node --cpu-prof).
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
  const proc = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/replicasChild.ts'], {
    cwd: ROOT, env: replicaEnv(databaseUrl, id, leaseSec), stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  proc.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let assigned: (() => void) | null = null;
  return new Promise((resolve, reject) => {
    const replica: Replica = {
      id, proc, url: '', started: 0, statements: 0, transactions: 0, exited,
      assign(workspaceId, agentIds, from, count) {
        return new Promise<void>((done) => {
          assigned = done;
          proc.send({ type: 'assign', workspaceId, agentIds, from, count } satisfies ToReplica);
        });
      },
    };
    proc.on('message', (message: FromReplica) => {
      if (message.type === 'ready') {
        replica.url = message.url;
        resolve(replica);
      } else if (message.type === 'started') Object.assign(replica, { started: message.count, statements: message.statements, transactions: message.transactions });
      else if (message.type === 'assigned') assigned?.();
    });
    void exited.then(() => reject(new Error(`replica ${id} exited before it was ready: ${stderr.trim().split('\n').slice(-3).join(' | ')}`)));
  });
}

async function api<T = any>(replica: Replica, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${replica.url}${path}`, {
    method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await response.json();
  if (!response.ok) throw new Error(`${method} ${path} on ${replica.id}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed as T;
}

/** SIGTERM (hand-over and a clean stop), then SIGKILL for a replica still running after 5 s. */
async function stopReplica(replica: Replica): Promise<void> {
  if (replica.proc.exitCode !== null || replica.proc.signalCode !== null) return;
  replica.proc.kill('SIGTERM');
  const timer = setTimeout(() => replica.proc.kill('SIGKILL'), 5000);
  await replica.exited;
  clearTimeout(timer);
}

/**
 * `ids.length` replica processes on a new database, a workspace of AGENTS agents with `executor`,
 * spread over the replicas as rendezvous hashing says; every process is stopped after `body`, whatever happened.
 */
async function withCluster<T>(server: BenchPostgres, database: string, ids: string[], executor: string, leaseSec: number,
  body: (cluster: { replicas: Replica[]; databaseUrl: string; workspaceId: string; agentIds: string[] }) => Promise<T>): Promise<T> {
  const databaseUrl = await server.createDatabase(database);
  const replicas: Replica[] = [];
  try {
    // The first one migrates the database alone; the others join it.
    replicas.push(await startReplica(databaseUrl, ids[0]!, leaseSec));
    replicas.push(...await Promise.all(ids.slice(1).map((id) => startReplica(databaseUrl, id, leaseSec))));
    const workspaceId = (await api(replicas[0]!, 'POST', '/api/office/workspaces', { name: 'bench' })).id as string;
    const agentIds: string[] = [];
    for (let i = 0; i < AGENTS; i++) {
      agentIds.push((await api(replicas[0]!, 'POST', '/api/office/agents', {
        workspace_id: workspaceId, name: `agent-${i}`, role: 'worker', cooldown_sec: 0, max_concurrent_sessions: SLOTS,
        executor: { kind: 'function', name: executor },
      })).id as string);
    }
    await waitForSpread(replicas, agentIds, leaseSec);
    return await body({ replicas, databaseUrl, workspaceId, agentIds });
  } finally {
    await Promise.all(replicas.map(stopReplica));
  }
}

/** Until every agent is held by the replica rendezvous hashing gives it (agents are handed over at heartbeats). */
async function waitForSpread(replicas: Replica[], agentIds: string[], leaseSec: number): Promise<void> {
  const ids = replicas.map((r) => r.id);
  const expected = new Map(ids.map((id) => [id, agentIds.filter((agent) => rendezvousOwner(agent, ids) === id).length]));
  let listed: { id: string; agents_owned: number }[] = [];
  await until(async () => {
    listed = await api<{ id: string; agents_owned: number }[]>(replicas[0]!, 'GET', '/api/office/replicas');
    return listed.length === ids.length && listed.every((r) => r.agents_owned === expected.get(r.id));
  }, () => `the agents to spread over ${ids.join(', ')} as ${JSON.stringify([...expected])} (they are ${JSON.stringify(listed.map((r) => [r.id, r.agents_owned]))})`, (leaseSec * 2 + 20) * 1000, 200);
}

/** Lease epochs summed: each change of hands adds one. */
async function leaseEpochs(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const epochs = await client.query<{ n: string | null }>('SELECT sum(epoch) AS n FROM agent_leases');
    return Number(epochs.rows[0]!.n ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * Time for the last runs to close and the snapshots to be written, before and after a measurement,
 * so that its statements are the measured wakeups' own. (The server's xact_commit was the figure
 * once; a backend publishes it late and in bursts, so it was off by about 2x either way.)
 */
const SETTLE_MS = 1500;

/** Statements and write transactions the replicas' stores sent, summed: NOTIFYs and heartbeats included. */
const storeWork = (replicas: Replica[]) => ({
  statements: replicas.reduce((sum, r) => sum + r.statements, 0),
  transactions: replicas.reduce((sum, r) => sum + r.transactions, 0),
});

interface Throughput {
  rate: number;
  /** What the replicas' stores sent per wakeup. */
  statementsPerWakeup: number;
  transactionsPerWakeup: number;
  /** Agents that changed hands while measuring. */
  handovers: number;
  /** CPU ms per wakeup while measuring: each replica's, and the PostgreSQL server's. */
  replicaCpuMs: number[];
  serverCpuMs: number;
  /** Cores busy on average over the window, replicas and server together. */
  coresBusy: number;
}

/**
 * Saturated assignment -> executor start: `n` assignments at once, to the nth executor start, after
 * WARMUP assignments the same way. `spread`: each replica gets an even share, for every agent (agent
 * i % AGENTS), as behind a load balancer. `owner`: each replica assigns only the agents it holds, in
 * proportion to how many it holds, so that no assignment travels to another replica.
 */
async function saturatedRate(replicas: Replica[], databaseUrl: string, workspaceId: string, agentIds: string[], n: number, routing: 'spread' | 'owner'): Promise<Throughput> {
  const total = () => replicas.reduce((sum, r) => sum + r.started, 0);
  const ids = replicas.map((r) => r.id);
  const targets = replicas.map((r) => (routing === 'spread' ? agentIds : agentIds.filter((agent) => rendezvousOwner(agent, ids) === r.id)));
  // Each replica's share of the assignments is its share of the targets: a third each when spread
  // (every replica targets every agent), in proportion to the agents each holds when by owner.
  const targeted = targets.reduce((sum, agents) => sum + agents.length, 0);
  const assignAll = (from: number, count: number) => {
    let offset = from;
    return Promise.all(replicas.map((replica, k) => {
      const share = k === replicas.length - 1 ? from + count - offset : Math.round((count * targets[k]!.length) / targeted);
      const assigned = replica.assign(workspaceId, targets[k]!, offset, share);
      offset += share;
      return assigned;
    }));
  };
  await assignAll(0, WARMUP);
  await until(() => total() >= WARMUP, 'the warmup to start', 120_000);
  const base = total();
  await sleep(SETTLE_MS);
  const epochs = await leaseEpochs(databaseUrl);
  const before = storeWork(replicas);
  const cpuBefore = { replicas: replicas.map((r) => cpuSecondsOf(r.proc.pid!)), server: postgresCpu() };
  const start = performance.now();
  await assignAll(WARMUP, n);
  await until(() => total() >= base + n, `${n} executor starts`, 300_000);
  const seconds = (performance.now() - start) / 1000;
  const rate = n / seconds;
  const replicaCpu = replicas.map((r, k) => cpuSecondsOf(r.proc.pid!) - cpuBefore.replicas[k]!);
  const serverCpu = postgresCpuBetween(cpuBefore.server, postgresCpu());
  await sleep(SETTLE_MS);
  const after = storeWork(replicas);
  return {
    rate, statementsPerWakeup: (after.statements - before.statements) / n, transactionsPerWakeup: (after.transactions - before.transactions) / n,
    handovers: (await leaseEpochs(databaseUrl)) - epochs,
    replicaCpuMs: replicaCpu.map((cpu) => (cpu * 1000) / n), serverCpuMs: (serverCpu * 1000) / n,
    coresBusy: (replicaCpu.reduce((sum, cpu) => sum + cpu, 0) + serverCpu) / seconds,
  };
}

const CORES = cpus().length;
/** The box the issue asks about. The prediction assumes only CPU bounds throughput: no lock, no round trip. */
const PREDICT_CORES = 8;

/**
 * Where a measurement's CPU went, per wakeup, and what it predicts for a box of PREDICT_CORES
 * cores: the CPU of all processes over the cores, unless one replica's single thread saturates first
 * (PostgreSQL's backends are processes of their own, so its share spreads over the cores).
 */
function cpuNote(t: Throughput): string {
  const perWakeup = t.replicaCpuMs.reduce((sum, ms) => sum + ms, 0) + t.serverCpuMs;
  const allCores = (PREDICT_CORES * 1000) / perWakeup;
  const oneThread = 1000 / Math.max(...t.replicaCpuMs);
  const predicted = Math.min(allCores, oneThread);
  return `CPU per wakeup: replicas ${t.replicaCpuMs.map((ms) => ms.toFixed(2)).join(' + ')} ms, PostgreSQL ${t.serverCpuMs.toFixed(2)} ms; `
    + `${t.coresBusy.toFixed(2)} of ${CORES} cores busy; if CPU alone bounds it, ${PREDICT_CORES} cores give ${Math.round(predicted)}/s `
    + `(bound by ${allCores <= oneThread ? 'the CPU of all processes' : "the busiest replica's one thread"})`;
}

const work = (t: Throughput) => `${t.statementsPerWakeup.toFixed(1)} statements / ${t.transactionsPerWakeup.toFixed(1)} transactions`;

export async function p6bReplicaScaling(): Promise<Figure[]> {
  const n = Number(process.env.BENCH_P6B_N ?? 2000);
  return withEmbeddedPostgres(async (server) => {
    const one = await withCluster(server, 'office_p6b_one', ['r1'], 'noop', P6B_LEASE_SEC,
      ({ replicas, databaseUrl, workspaceId, agentIds }) => saturatedRate(replicas, databaseUrl, workspaceId, agentIds, n, 'spread'));
    const three = await withCluster(server, 'office_p6b_three', ['r1', 'r2', 'r3'], 'noop', P6B_LEASE_SEC, async ({ replicas, databaseUrl, workspaceId, agentIds }) => ({
      spread: await saturatedRate(replicas, databaseUrl, workspaceId, agentIds, n, 'spread'),
      owner: await saturatedRate(replicas, databaseUrl, workspaceId, agentIds, n, 'owner'),
    }));
    const ratio = three.spread.rate / one.rate;
    const common = `${n} tasks over ${AGENTS} agents x ${SLOTS} slots, made inside the replica processes, OFFICE_LEASE_SEC=${P6B_LEASE_SEC}`;
    return [
      { id: 'P6b', name: '3 replicas / 1 replica, saturated assignment -> executor start', value: ratio, unit: 'ratio', goal: '>= 1', ok: ratio >= 1,
        note: `${Math.round(three.spread.rate)}/s vs ${Math.round(one.rate)}/s: ${common}, spread evenly; per wakeup ${work(three.spread)} vs ${work(one)}; ` +
          `agents handed over while measuring ${three.spread.handovers} vs ${one.handovers}; 3 replicas: ${cpuNote(three.spread)}; 1 replica: ${cpuNote(one)}` },
      { id: 'P6b', name: '3 replicas each assigning its own agents / 1 replica', value: three.owner.rate / one.rate, unit: 'ratio', goal: '', ok: true,
        note: `${Math.round(three.owner.rate)}/s: no assignment travels to another replica; per wakeup ${work(three.owner)}; ` +
          `handed over ${three.owner.handovers}; ${cpuNote(three.owner)}` },
    ];
  });
}

export async function p6cFailover(): Promise<Figure[]> {
  return withEmbeddedPostgres((server) => withCluster(server, 'office_p6c', ['r1', 'r2', 'r3'], 'hold', LEASE_SEC, async ({ replicas, workspaceId, agentIds }) => {
    type Listed = { id: string; actor: { replica: string; running: number } | null };
    const list = (via: Replica) => api<Listed[]>(via, 'GET', `/api/office/agents?workspace_id=${workspaceId}`);
    // Every agent runs a session that holds until it is aborted.
    for (const agentId of agentIds) await api(replicas[0]!, 'POST', `/api/office/agents/${agentId}/wake`, { reason: 'hold' });
    await until(async () => (await list(replicas[0]!)).every((agent) => (agent.actor?.running ?? 0) > 0), 'every agent to run a session', 60_000, 100);

    const before = await list(replicas[0]!);
    const victim = replicas.reduce((most, r) => (before.filter((a) => a.actor?.replica === r.id).length > before.filter((a) => a.actor?.replica === most.id).length ? r : most));
    const survivors = replicas.filter((r) => r !== victim);
    const orphans = new Set(before.filter((a) => a.actor?.replica === victim.id).map((a) => a.id));
    victim.proc.kill('SIGKILL');
    const killedAt = performance.now();
    await victim.exited;

    const moved = new Map<string, number>();
    await until(async () => {
      for (const agent of await list(survivors[0]!)) {
        if (orphans.has(agent.id) && !moved.has(agent.id) && agent.actor && agent.actor.replica !== victim.id) moved.set(agent.id, performance.now() - killedAt);
      }
      return moved.size === orphans.size;
    }, `the ${orphans.size} agents of ${victim.id} to run on a survivor`, (LEASE_SEC + 30) * 1000, 50);
    const times = [...moved.values()].map((ms) => ms / 1000);
    const worst = Math.max(...times);
    return [
      { id: 'P6c', name: `failover: SIGKILL -> every orphaned agent on a survivor (OFFICE_LEASE_SEC=${LEASE_SEC})`, value: worst, unit: 's',
        goal: `< ${LEASE_SEC + 5}`, ok: worst < LEASE_SEC + 5,
        note: `${orphans.size} agents with running sessions; per agent p50 ${percentile(times, 50).toFixed(2)} s; 3 replica processes` },
    ];
  }));
}
