/**
 * PostgreSQL's migrations at start: replicas that open the same empty database at once each wait
 * for the advisory lock, so every migration is applied exactly once and every store opens.
 */
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { createInspector, createStore } from '../../src/persistence/createStore.js';
import type { Store } from '../../src/persistence/store.js';
import { loadPostgresMigrations, migratePostgres } from '../../src/persistence/postgres/migrate.js';
import { READ_USAGE, ROWS_BEFORE_DAILY_USAGE, USAGE_AFTER_UPGRADE } from '../helpers/dailyUsageUpgrade.js';
import { freshDatabase } from './postgresFactory.js';
import { workspaceRow } from './rows.js';

const opened: { close(): Promise<void> }[] = [];
const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const closable of opened.splice(0)) await closable.close();
  for (const drop of drops.splice(0)) await drop();
});

function open(url: string): Store {
  const store = createStore({ dbPath: '', databaseUrl: url, sqliteSync: 'NORMAL' }, { now: () => 1_000, publish: () => undefined });
  opened.push(store);
  return store;
}

it('stores opening one empty database at once apply each migration exactly once, and all of them open', async () => {
  const database = await freshDatabase();
  drops.push(database.drop);
  const stores = Array.from({ length: 4 }, () => open(database.url));
  await Promise.all(stores.map((store) => store.read(async () => undefined)));

  const inspect = createInspector({ dbPath: '', databaseUrl: database.url });
  opened.push(inspect);
  const migrations = loadPostgresMigrations();
  expect(migrations.length).toBeGreaterThan(0);
  expect((await inspect.rows<{ version: number }>('schema_migrations', {}, { columns: ['version'] })).map((row) => row.version))
    .toEqual(migrations.map((migration) => migration.version));
  // A store opened later finds nothing to apply.
  await open(database.url).read(async () => undefined);
  expect(await inspect.count('schema_migrations')).toBe(migrations.length);
});

it('a transaction round-trips a row, which another store on the database reads', async () => {
  const database = await freshDatabase();
  drops.push(database.drop);
  const workspace = workspaceRow(1_000);
  await open(database.url).transaction((tx) => tx.workspaces.insert(workspace));
  expect(await open(database.url).read((tx) => tx.workspaces.get(workspace.id))).toEqual(workspace);
});

it("migration 0030 (daily usage) counts every day's runs that took a claim and its ledger spend, per agent, so an upgrade mid-day keeps the caps", async () => {
  const database = await freshDatabase();
  drops.push(database.drop);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  opened.push({ close: () => client.end() });
  await migratePostgres(client, loadPostgresMigrations().filter((m) => m.version < 30));
  await client.query(ROWS_BEFORE_DAILY_USAGE);
  expect(await migratePostgres(client)).toContain('0030_agent_daily_usage.sql');
  const { rows } = await client.query(`SELECT agent_id, day::float8 AS day, runs, cost_usd FROM (${READ_USAGE}) usage`);
  expect(rows).toEqual(USAGE_AFTER_UPGRADE);
});
