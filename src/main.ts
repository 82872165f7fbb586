/**
 * Starts Office Scheduler: migrates the embedded SQLite database, restores the actors, and
 * serves the API and dashboard. SIGTERM/SIGINT stop it cleanly.
 */
import { ConfigError, loadConfig } from './config.js';
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
  const scheduler = await createScheduler({ config });
  const { url } = await scheduler.start();
  process.stdout.write(`Office Scheduler listening on ${url} (database ${config.dbPath})\n`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    scheduler.app.log.info({ signal }, 'shutting down');
    scheduler.stop().then(
      () => process.exit(0),
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
  process.stderr.write(`Office Scheduler failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
