/**
 * Starts Office Scheduler: migrates the embedded SQLite database, restores the actors, and
 * serves the API and dashboard. SIGTERM/SIGINT stop it cleanly.
 */
import { createWebSocketInspector } from '@statelyai/inspect';
import { ConfigError, loadConfig, type Config } from './config.js';
import { DatabaseLockedError } from './persistence/sqlite/lock.js';
import { createScheduler } from './scheduler.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // OFFICE_INSPECT=ws://…: every actor's transitions go to a @statelyai/inspect WebSocket inspector.
  const inspector = config.inspectUrl ? createWebSocketInspector({ url: config.inspectUrl }) : null;
  const scheduler = await createScheduler({ config, ...(inspector ? { inspect: (event) => inspector.inspect.next?.(event) } : {}) });
  const { url } = await scheduler.start();
  process.stdout.write(`Office Scheduler listening on ${url} (database ${config.databaseUrl ? 'PostgreSQL' : config.dbPath})\n`);
  if (process.stdout.isTTY) process.stdout.write(startSummary(url, config));
  if (inspector) process.stdout.write(`Actor inspection on: sending to ${config.inspectUrl}\n`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    scheduler.app.log.info({ signal }, 'shutting down');
    scheduler.stop().then(
      () => {
        inspector?.stop();
        process.exit(0);
      },
      (error) => {
        scheduler.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** What a person at a terminal wants first: where the dashboard is, what it stores in, and who this replica is. */
function startSummary(url: string | null, config: Config): string {
  const database = config.databaseUrl ? `PostgreSQL, as replica ${config.replicaId}` : `SQLite at ${config.dbPath}`;
  const token = config.apiToken ? 'sign in with OFFICE_API_TOKEN' : 'no API token: this machine only';
  return [
    '',
    `  Dashboard  ${url ?? '(not listening)'}/`,
    `  Database   ${database}`,
    `  Access     ${token}`,
    '  Stop       Ctrl-C (running sessions get OFFICE_SHUTDOWN_GRACE_MS to finish)',
    '',
  ].join('\n') + '\n';
}

main().catch((error) => {
  // A held database lock is an operator's situation, not a bug: the reason without a stack.
  const reason = error instanceof DatabaseLockedError ? error.message : error instanceof Error ? error.stack : String(error);
  process.stderr.write(`Office Scheduler failed to start: ${reason}\n`);
  process.exit(1);
});
