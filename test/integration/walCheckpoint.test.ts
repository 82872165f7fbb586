/**
 * The idle WAL checkpoint runs on the event loop (better-sqlite3 is synchronous). Another connection
 * reading the file (a backup, the sqlite3 shell, `office-scheduler` commands) must not make it wait:
 * a TRUNCATE checkpoint that waited out the busy timeout stalled every timer, socket and actor of
 * the scheduler for 5 s. Real SQLite file, real second connection; the store's timers are a
 * simulated clock, so the test fires the idle checkpoint by stepping it.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { BurstCheckpointer, RETRY_AFTER_FAILURE_MS } from '../../src/persistence/sqlite/checkpointer.js';
import { SqliteStore } from '../../src/persistence/sqlite/store.js';

let dir: string | undefined;
let store: SqliteStore | undefined;
let reader: Database.Database | undefined;
afterEach(async () => {
  reader?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined; store = undefined; reader = undefined;
});

describe('the idle WAL checkpoint', () => {
  it('gives up at once, and says so, while another connection holds a read open', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-wal-'));
    const path = join(dir, 'office.db');
    const clock = new SimulatedClock();
    // Past the store's idle-checkpoint delay, whatever it is set to.
    const pastIdle = () => clock.increment(60_000);
    const warnings: string[] = [];
    const log = { info: () => undefined, error: () => undefined, warn: (_: unknown, message: string) => { warnings.push(message); } };
    store = new SqliteStore({ path, synchronous: 'NORMAL', now: () => Date.now(), publish: () => undefined, timers: clock, log: log as never });
    await store.transaction(async (tx) => {
      await tx.workspaces.insert({ id: 'ws_1', name: 'One', created_at: 1, updated_at: 1 } as never);
    });
    // A reader in the middle of a transaction, on a snapshot older than the last commit, pins the
    // WAL: TRUNCATE cannot finish while it reads.
    reader = new Database(path, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM workspaces').get();
    await store.transaction(async (tx) => { await tx.workspaces.edit('ws_1', { name: 'One, edited' }); });

    // The write's batch lets go of the connection on the next turn; a checkpoint armed before would wait for it.
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    pastIdle();
    const blockedMs = performance.now() - started;

    // The busy timeout is 5 s; waiting it out is the fault. Well under it means it did not wait.
    expect(blockedMs).toBeLessThan(1_000);
    expect(warnings).toEqual(['the WAL checkpoint could not finish: another connection reads']);

    // Once the reader is gone, the next idle checkpoint truncates the WAL.
    reader.exec('COMMIT');
    await store.transaction(async (tx) => { await tx.workspaces.edit('ws_1', { name: 'One again' }); });
    await new Promise((resolve) => setImmediate(resolve));
    pastIdle();
    expect(store.storageHealth().walBytes).toBe(0);
  });
});

/**
 * How many frames of the WAL have been copied into the database: nBackfill, the first field of the
 * checkpoint information after the -shm file's two 48-byte header copies (SQLite's "WAL-index
 * format"), in the machine's byte order.
 */
function framesBackfilled(path: string): number {
  const shm = readFileSync(`${path}-shm`);
  return endianness() === 'LE' ? shm.readUInt32LE(96) : shm.readUInt32BE(96);
}

describe('the WAL during a burst of writes', () => {
  it('is checkpointed by a thread of its own, not inside the commits, and the idle TRUNCATE still empties it afterwards', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-wal-'));
    const path = join(dir, 'office.db');
    const clock = new SimulatedClock();
    const warnings: string[] = [];
    const log = { info: () => undefined, error: () => undefined, warn: (_: unknown, message: string) => { warnings.push(message); } };
    store = new SqliteStore({ path, synchronous: 'NORMAL', now: () => Date.now(), publish: () => undefined, timers: clock, log: log as never });
    await store.transaction(async (tx) => {
      await tx.workspaces.insert({ id: 'ws_1', name: 'One', created_at: 1, updated_at: 1 } as never);
    });
    // Far fewer pages than the autocheckpoint's mark: a commit never checkpoints them itself.
    for (let i = 0; i < 80; i++) await store.transaction(async (tx) => { await tx.workspaces.edit('ws_1', { name: `edit ${i}` }); });

    const deadline = Date.now() + 10_000;
    while (framesBackfilled(path) === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(framesBackfilled(path)).toBeGreaterThan(0);

    clock.increment(60_000);
    await vi.waitFor(() => expect(store!.storageHealth().walBytes).toBe(0), { timeout: 10_000 });
    expect(warnings).toEqual([]);
  });
});

describe('a background checkpoint that fails', () => {
  it('leaves the commits to checkpoint, and a thread is tried again only after RETRY_AFTER_FAILURE_MS', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-wal-'));
    // No such file: the thread's connection fails at once, as on a read-only or vanished file.
    const path = join(dir, 'missing.db');
    const warnings: { retry_in_ms: number }[] = [];
    const log = { warn: (fields: { retry_in_ms: number }) => { warnings.push(fields); } };
    let now = 1_000;
    const checkpointer = new BurstCheckpointer(path, log as never, () => now);
    const burst = () => { for (let i = 0; i < 60; i++) checkpointer.committed(); };
    try {
      burst();
      expect(checkpointer.running).toBe(true);
      await vi.waitFor(() => expect(warnings).toHaveLength(1), { timeout: 10_000 });
      await vi.waitFor(() => expect(checkpointer.running).toBe(false), { timeout: 10_000 });
      expect(warnings[0]!.retry_in_ms).toBe(RETRY_AFTER_FAILURE_MS);

      now += RETRY_AFTER_FAILURE_MS - 1;
      burst();
      expect(checkpointer.running).toBe(false);

      now += 1;
      burst();
      expect(checkpointer.running).toBe(true);
      await vi.waitFor(() => expect(warnings).toHaveLength(2), { timeout: 10_000 });
    } finally {
      await checkpointer.close();
    }
    expect(checkpointer.running).toBe(false);
  });
});
