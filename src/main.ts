/**
 * Starts Office Scheduler: migrates the embedded SQLite database, restores the actors, and
 * serves the API and dashboard. SIGTERM/SIGINT stop it cleanly.
 */
import { createWebSocketInspector } from '@statelyai/inspect';
import { ConfigError, loadConfig } from './config.js';
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

main().catch((error) => {
  // A held database lock is an operator's situation, not a bug: the reason without a stack.
  const reason = error instanceof DatabaseLockedError ? error.message : error instanceof Error ? error.stack : String(error);
  process.stderr.write(`Office Scheduler failed to start: ${reason}\n`);
  process.exit(1);
});
