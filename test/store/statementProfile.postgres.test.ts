/**
 * The bench's statement profile on PostgresStore: each statement counted once per execution under
 * its text, the BEGIN that travels with a unit's first statement included; a COMMIT counted for each
 * unit that ran a statement (one that ran none sends neither BEGIN nor COMMIT), and a read unit's
 * COMMIT not among those that wrote.
 */
import { afterEach, expect, it } from 'vitest';
import { createStore } from '../../src/persistence/createStore.js';
import { StatementProfile } from '../../src/persistence/shared/statementProfile.js';
import { countOf, twoInserts } from '../helpers/statementProfile.js';
import { freshDatabase } from './postgresFactory.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('counts statements and commits on PostgreSQL', async () => {
  const database = await freshDatabase();
  cleanups.push(database.drop);
  const profile = new StatementProfile();
  const store = createStore({ dbPath: '', databaseUrl: database.url, sqliteSync: 'NORMAL' }, { now: () => 1_000, publish: () => undefined, statementProfile: profile });
  cleanups.push(() => store.close());
  await twoInserts(store);
  profile.reset();

  for (let i = 0; i < 3; i++) await twoInserts(store);
  await store.transaction(async () => undefined);
  await store.read(async (tx) => tx.workspaces.list());

  expect(countOf(profile, 'INSERT INTO workspaces')).toBe(6);
  expect(countOf(profile, 'BEGIN')).toBe(4);
  expect(countOf(profile, 'COMMIT')).toBe(4);
  expect(profile.statementCount()).toBe(6 + 1 + 4 + 4);
  expect(profile.commits).toBe(4);
  expect(profile.writingCommits).toBe(3);
  expect(profile.walFrames).toBeNull();
});
