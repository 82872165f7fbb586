/**
 * How the store contract suites get a Store: a factory makes a fresh, empty, migrated store and
 * disposes of it afterwards. Every implementation provides one (SQLite here; PostgreSQL next), and
 * every contract suite (contract.ts, the lease suite) takes one, so a backend runs them all by
 * passing its factory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { afterEach, beforeEach } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DomainEvent } from '../../src/domain/events.js';
import { createInspector, createStore, type StoreHooks } from '../../src/persistence/createStore.js';
import type { Inspector } from '../../src/persistence/inspector.js';
import type { Reads, Store, Tx } from '../../src/persistence/store.js';

/** A store under test, with the clock it reads and the events it delivered after commit. */
export interface StoreUnderTest {
  store: Store;
  /** A read-only look at the same database's committed rows. */
  inspect: Inspector;
  /** The store's clock (emitted events are stamped with it); tests move it by hand. */
  clock: { now: number };
  /** Events the store delivered after their transaction committed, in commit order. */
  published: DomainEvent[];
  /** Closes this store and opens a new one on the same database, as a restarted process would. */
  reopen(hooks?: Partial<StoreHooks>): Promise<StoreUnderTest>;
  /** Closes the store and deletes its database. */
  dispose(): Promise<void>;
}

/** Makes a fresh, empty store. `hooks` replace the defaults (a fixed clock, publish into `published`). */
export type StoreFactory = (hooks?: Partial<StoreHooks>) => Promise<StoreUnderTest>;

/** The clock every contract store starts at: a fixed instant, so tests never read the wall clock. */
export const CONTRACT_EPOCH = Date.UTC(2026, 0, 5, 9, 0, 0);

/**
 * A factory from how a backend opens a store and its inspector on one database (`where`), and how it
 * deletes that database: the clock, the published events, reopen and dispose are the same for all.
 */
export function storeFactory<W>(
  where: () => Promise<{ location: W; remove: () => Promise<void> }>,
  openAt: (location: W, hooks: StoreHooks) => Promise<{ store: Store; inspect: Inspector }>,
): StoreFactory {
  return async (hooks = {}) => {
    const { location, remove } = await where();
    const open = async (extra: Partial<StoreHooks>): Promise<StoreUnderTest> => {
      const clock = { now: CONTRACT_EPOCH };
      const published: DomainEvent[] = [];
      const { store, inspect } = await openAt(location, { now: () => clock.now, publish: (events) => published.push(...events), ...extra });
      const close = async () => {
        await inspect.close();
        await store.close();
      };
      return {
        store, inspect, clock, published,
        async reopen(next = extra) {
          await close();
          return open(next);
        },
        async dispose() {
          await close();
          await remove();
        },
      };
    };
    return open(hooks);
  };
}

/** SQLite through createStore: a new file in a new temp dir for each store. */
export const sqliteStoreFactory: StoreFactory = storeFactory(
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'office-store-'));
    return { location: join(dir, 'office.db'), remove: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  async (dbPath, hooks) => ({ store: createStore({ dbPath, sqliteSync: 'NORMAL' }, hooks), inspect: createInspector({ dbPath }) }),
);

/** `factory`, with every store it makes disposed after the test that made it: for a test that opens its own. */
export function disposedAfterEach(factory: StoreFactory): StoreFactory {
  const made: StoreUnderTest[] = [];
  afterEach(async () => {
    for (const sut of made.splice(0)) await sut.dispose();
  });
  return async (hooks) => {
    const sut = await factory(hooks);
    made.push(sut);
    return sut;
  };
}

/**
 * A fresh store from `factory` for each test of a contract suite, disposed of after it: its
 * transaction, its read, and the instant its clock reads (fixed: contract stores never read the wall clock).
 */
export function storePerTest(factory: StoreFactory) {
  let sut: StoreUnderTest | undefined;
  beforeEach(async () => {
    sut = await factory();
  });
  afterEach(async () => sut?.dispose());
  return {
    write: <T>(work: (tx: Tx) => Promise<T>) => sut!.store.transaction(work),
    read: <T>(work: (tx: Tx) => Promise<T>) => sut!.store.read(work),
    query: <T>(work: (reads: Reads) => Promise<T>) => sut!.store.query(work),
    clockNow: () => sut!.clock.now,
  };
}
