/**
 * PostgreSQL stores for the contract suites: each factory call copies the run's migrated template
 * into a new database on the server the run shares (postgresGlobalSetup.ts), opens a store on it
 * through createStore (which finds every migration applied), and drops it on dispose.
 */
import pg from 'pg';
import { inject } from 'vitest';
import { createInspector, createStore } from '../../src/persistence/createStore.js';
import type { Store } from '../../src/persistence/store.js';
import { newId } from '../../src/services/ids.js';
import { storeFactory, type StoreFactory } from './factory.js';

/** The admin URL with another database in it. */
export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs one statement as the admin role, on its own connection. */
export async function adminStatement(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A new database on the shared server, empty or (`migrated`) a copy of the run's migrated template; its URL and how to drop it. */
export async function freshDatabase(options: { migrated?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject('postgresAdminUrl');
  const name = newId('office_test').toLowerCase();
  await adminStatement(adminUrl, `CREATE DATABASE ${name}${options.migrated ? ` TEMPLATE ${inject('postgresTemplate')}` : ''}`);
  return {
    url: databaseUrl(adminUrl, name),
    drop: () => adminStatement(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** Waits for the store's migrations, so that a test's first statement is not the one that meets their failure. */
async function migrated(store: Store): Promise<Store> {
  await store.read(async () => undefined);
  return store;
}

export const postgresStoreFactory: StoreFactory = storeFactory(
  async () => {
    const database = await freshDatabase({ migrated: true });
    return { location: { dbPath: '', databaseUrl: database.url }, remove: database.drop };
  },
  async (where, hooks) => ({ store: await migrated(createStore({ ...where, sqliteSync: 'NORMAL' }, hooks)), inspect: createInspector(where) }),
);
