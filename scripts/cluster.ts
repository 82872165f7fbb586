/**
 * `npm run cluster`: three replicas on one PostgreSQL, to watch agents move between them. It starts
 * an embedded PostgreSQL (scripts/cluster-postgres.ts), 3 replicas on consecutive ports from 7700
 * (`OFFICE_PORT` moves the first), seeds the demo workspace (src/cli/demo.ts) plus enough workers
 * that every replica runs some, waits until they do, and prints the URLs and how to kill a replica.
 * A replica that dies is started again (same id) after CLUSTER_RESTART_SEC (default 20), so its
 * agents move away and, once it is back, move back.
 *
 * Stopping (Ctrl-C, SIGINT or SIGTERM): the replicas first, then PostgreSQL, then the temp
 * directory. A Ctrl-C at the terminal signals the whole foreground process group: the replicas are
 * in it and shut down by themselves as they do on SIGTERM (this script signals them too, for a
 * SIGTERM sent to it alone), while PostgreSQL runs detached, in a group of its own, and is stopped
 * only once every replica has exited. npm runs it with `node --import tsx`, not the tsx command:
 * tsx relays a Ctrl-C to its child and SIGKILLs it when the child has not acknowledged the signal
 * within 60 ms, which a busy machine misses, and that left the replicas running with no PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { rendezvousOwner } from '../src/actors/replicas.js';
import { ApiClient } from '../src/cli/client.js';
import { DEMO, seedDemo } from '../src/cli/demo.js';
import { startServer, type ServerProcess } from '../src/cli/server.js';
import { ensureDashboard } from './ensure-dashboard.mjs';

const REPLICAS = 3;
/** Workers beyond the demo's two agents, at least: six agents to spread. */
const EXTRA_WORKERS = 4;
/**
 * Rendezvous hashing spreads agents by their (random) ids, so six agents leave one of three
 * replicas with none about one time in four: workers are added until each replica wins this many
 * (six agents are enough three times in four, fourteen 99 times in 100).
 */
const MIN_AGENTS_PER_REPLICA = 1;
/** A bound on the workers added for the spread; with three replicas, far more than it ever takes. */
const MAX_EXTRA_WORKERS = 24;
/** How long the agents may take to reach the replicas that win them: a few heartbeats (OFFICE_LEASE_SEC / 3) and a session each. */
const SPREAD_TIMEOUT_MS = 60_000;
const firstPort = Number(process.env.OFFICE_PORT || 7700);
const leaseSec = process.env.OFFICE_LEASE_SEC || '5';
const restartSec = Number(process.env.CLUSTER_RESTART_SEC ?? 20);
const EXAMPLE_AGENT = fileURLToPath(new URL('../examples/agent.mjs', import.meta.url));
const POSTGRES_HELPER = fileURLToPath(new URL('./cluster-postgres.ts', import.meta.url));
const say = (line: string) => process.stderr.write(`${line}\n`);

interface Replica {
  id: string;
  port: number;
  process: ServerProcess | null;
}

interface Postgres {
  child: ChildProcess;
  databaseUrl: string;
  exited: Promise<void>;
}

/** The embedded PostgreSQL, detached (see the top of this file); resolves once its database exists. */
async function startPostgres(): Promise<Postgres> {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), POSTGRES_HELPER], {
    detached: true, stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const databaseUrl = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { database_url: string }).database_url));
    void exited.then(() => reject(new Error('PostgreSQL exited before it was ready')));
  });
  return { child, databaseUrl, exited };
}

async function main(): Promise<void> {
  // Once, before the replicas: each would otherwise start building a missing dashboard at the same time.
  await ensureDashboard({ log: say });
  const postgres = await startPostgres();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    OFFICE_DATABASE_URL: postgres.databaseUrl,
    OFFICE_LEASE_SEC: leaseSec,
    OFFICE_LOG_LEVEL: process.env.OFFICE_LOG_LEVEL || 'warn',
    // Shorter than the lease: a session still draining at Ctrl-C records its result before its lease runs out.
    OFFICE_SHUTDOWN_GRACE_MS: process.env.OFFICE_SHUTDOWN_GRACE_MS || '3000',
  };
  const replicas: Replica[] = Array.from({ length: REPLICAS }, (_, i) => ({ id: `replica-${i}`, port: firstPort + i, process: null }));
  let stopping = false;

  // Replicas being spawned: a stop waits for them, so that none starts after it and outlives PostgreSQL.
  const spawning = new Set<Promise<ServerProcess>>();
  const start = async (replica: Replica): Promise<string> => {
    const spawned = startServer({ ...env, OFFICE_REPLICA_ID: replica.id, OFFICE_PORT: String(replica.port) }, say);
    spawning.add(spawned);
    const child = await spawned.finally(() => spawning.delete(spawned));
    replica.process = child;
    void child.exited.then((code) => {
      replica.process = null;
      if (stopping) return;
      say(`\n${replica.id} exited (${code}); its agents move to the other replicas within OFFICE_LEASE_SEC (${leaseSec}) + 5 s. Starting it again in ${restartSec} s.`);
      setTimeout(() => {
        if (stopping) return;
        start(replica).then((url) => say(`${replica.id} is back on ${url} (pid ${replica.process?.child.pid}); the agents rendezvous hashing gives it move back.`),
          (error: Error) => say(`${replica.id} did not start again: ${error.message}`));
      }, restartSec * 1000);
    });
    return child.url;
  };

  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    say(`\n${signal}: stopping the replicas, then PostgreSQL…`);
    await Promise.allSettled(spawning);
    for (const replica of replicas) replica.process?.child.kill('SIGTERM');
    await Promise.all(replicas.map((replica) => replica.process?.exited));
    postgres.child.kill('SIGTERM');
    await postgres.exited;
    say('stopped; the temp data directory is removed.');
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  try {
    const urls = await Promise.all(replicas.map(start));
    const api = new ApiClient(urls[0]!, env.OFFICE_API_TOKEN || undefined);
    const ids = await seedDemo(api);
    const replicaIds = replicas.map((r) => r.id);
    const workers = await addWorkersUntilSpread(api, ids.workspaceId, replicaIds);
    const owned = await waitUntilSpread(api, ids.workspaceId, replicaIds);
    say([
      '',
      `Cluster ready: ${REPLICAS} replicas on one PostgreSQL (OFFICE_LEASE_SEC=${leaseSec}), the demo workspace and ${workers} more workers.`,
      ...replicas.map((r, i) => `  ${r.id}  ${urls[i]}  pid ${r.process?.child.pid}  runs ${agentCount(owned.get(r.id) ?? 0)}`),
      `  Dashboard (any replica serves it): ${urls[0]}/office/agents?workspace=${ids.workspaceId}`,
      `  Who runs what: ${urls[0]}/office/replicas (each replica's heartbeat and agents), or curl ${urls[1]}/api/office/replicas`,
      `  '${DEMO.ticker}' and the cluster routines wake the workers every 10 seconds.`,
      '',
      `Kill a replica and watch its agents move: kill -9 ${replicas[1]!.process?.child.pid}   (that is ${replicas[1]!.id})`,
      'Ctrl-C stops everything and removes the temp data directory.',
      '',
    ].join('\n'));
  } catch (error) {
    // A Ctrl-C while it starts fails the start's requests: that is the stop, not a failure to report.
    if (stopping) return;
    say(`cluster: start failed: ${error instanceof Error ? error.message : String(error)}`);
    await stop('start failure', 1);
  }
}

/**
 * Adds workers, each with a routine that wakes it every 10 seconds, until there are EXTRA_WORKERS
 * of them and every replica wins MIN_AGENTS_PER_REPLICA agents of the workspace. Returns how many it added.
 */
async function addWorkersUntilSpread(api: ApiClient, workspaceId: string, replicaIds: string[]): Promise<number> {
  const agents = (await api.call(api.office.GET('/api/office/agents', { params: { query: { workspace_id: workspaceId } } }))).map((a) => a.id);
  const spread = () => replicaIds.every((replica) => agents.filter((id) => rendezvousOwner(id, replicaIds) === replica).length >= MIN_AGENTS_PER_REPLICA);
  let added = 0;
  while (added < MAX_EXTRA_WORKERS && (added < EXTRA_WORKERS || !spread())) {
    const i = ++added;
    const worker = await api.call(api.office.POST('/api/office/agents', { body: {
      workspace_id: workspaceId, name: `Cluster worker ${i}`, role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false,
      executor: { kind: 'command', command: process.execPath, args: [EXAMPLE_AGENT], timeout_sec: 60 },
    } }));
    agents.push(worker.id);
    await api.call(api.office.POST('/api/office/routines', { body: {
      workspace_id: workspaceId, name: `Cluster: wake worker ${i} every 10 seconds`, assignee_agent_instance_id: worker.id,
      task_template: null, concurrency_policy: 'coalesce_if_active', catch_up_policy: 'skip_missed',
      triggers: [{ kind: 'schedule', cron_expression: `${(i * 2) % 10}-59/10 * * * * *` }],
    } }));
  }
  return added;
}

/**
 * Waits until each replica runs the agents rendezvous hashing gives it: the replica that creates an
 * agent holds it first, and hands it over at a heartbeat once no session of it runs. Returns the
 * agents each replica owns.
 */
async function waitUntilSpread(api: ApiClient, workspaceId: string, replicaIds: string[]): Promise<Map<string, number>> {
  const agents = await api.call(api.office.GET('/api/office/agents', { params: { query: { workspace_id: workspaceId } } }));
  const share = (replica: string) => agents.filter((a) => rendezvousOwner(a.id, replicaIds) === replica).length;
  const deadline = Date.now() + SPREAD_TIMEOUT_MS;
  for (;;) {
    const live = await api.call(api.office.GET('/api/office/replicas'));
    const owned = new Map(live.map((r) => [r.id, r.agents_owned]));
    if (replicaIds.every((id) => owned.get(id) === share(id))) return owned;
    if (Date.now() > deadline) throw new Error(`the agents did not reach every replica within ${SPREAD_TIMEOUT_MS / 1000} s: ${JSON.stringify(live)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function agentCount(n: number): string {
  return `${n} agent${n === 1 ? '' : 's'}`;
}

main().catch((error) => {
  say(`cluster: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
