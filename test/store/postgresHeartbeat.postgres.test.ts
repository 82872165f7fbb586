/**
 * The replica heartbeat (the store's autocommit) has a connection of its own: a pool whose every
 * connection is busy, with more units waiting, does not hold it back until its leases expire.
 */
import { afterEach, expect, it } from 'vitest';
import { PostgresStore } from '../../src/persistence/postgres/store.js';
import { freshDatabase } from './postgresFactory.js';
import { seedAgent } from './rows.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('a heartbeat runs while every pooled connection is held by a unit of work and more units wait', async () => {
  const database = await freshDatabase();
  cleanups.push(database.drop);
  const store = new PostgresStore({ url: database.url, poolSize: 1, now: () => 1_000, publish: () => undefined });
  cleanups.push(() => store.close());
  const { workspace } = await store.transaction((tx) => seedAgent(tx, 1_000));

  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  let holding!: () => void;
  const isHolding = new Promise<void>((resolve) => { holding = resolve; });
  const blocker = store.transaction(async (tx) => {
    await tx.workspaces.get(workspace.id);
    holding();
    await held;
  });
  await isHolding;
  const waiting = store.transaction((tx) => tx.workspaces.list());

  // Before: the heartbeat waited for the pool's one connection, behind the blocker and the waiter.
  const beat = await store.autocommit((tx) => tx.workspaces.get(workspace.id));
  expect(beat).toMatchObject({ id: workspace.id });

  release();
  await blocker;
  expect(await waiting).toHaveLength(1);
}, 15_000);
