/**
 * The bench's statement profile (`npm run bench -- --sql`) on a real SqliteStore and file: each
 * statement counted once per execution under its text, a COMMIT per batch (group commit puts units
 * queued together under one), and the WAL frames each commit appended, read from the -shm file's
 * wal-index header (sqlite/walIndex.ts) and checked here against the WAL file itself, also after a
 * checkpoint made SQLite write the log again from its start. Without a profile nothing is timed.
 * The store's timers are inert, so the idle checkpoint never runs unasked.
 */
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StatementProfile } from '../../src/persistence/shared/statementProfile.js';
import { truncateWalWithoutWaiting } from '../../src/persistence/sqlite/database.js';
import { countOf, sqliteStorePerTest, twoInserts } from '../helpers/statementProfile.js';

const storePerTest = sqliteStorePerTest();
const openStore = (statementProfile?: StatementProfile) => storePerTest({ statementProfile });

/**
 * The frames of the WAL's current generation, from the WAL file alone (SQLite's file format): the
 * frames after the 32-byte header whose salts are the header's, up to the last commit frame among them.
 */
function committedFramesInWalFile(path: string): number {
  const wal = readFileSync(`${path}-wal`);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salts = wal.subarray(16, 24);
  let committed = 0;
  for (let frame = 1; 32 + frame * (pageSize + 24) <= wal.length; frame++) {
    const header = wal.subarray(32 + (frame - 1) * (pageSize + 24));
    if (!header.subarray(8, 16).equals(salts)) break;
    if (header.readUInt32BE(4) !== 0) committed = frame;
  }
  return committed;
}

describe('the statement profile', () => {
  it('counts each statement, one commit per unit run alone, and the WAL frames each commit appended', async () => {
    const profile = new StatementProfile();
    const { store, path } = await openStore(profile);
    await twoInserts(store); // Prepares the statements and writes the migrations' pages out of the window.
    // An empty WAL: the first commit below starts it afresh, and the file then holds only the window's frames.
    truncateWalWithoutWaiting(store.db);
    profile.reset();

    for (let i = 0; i < 3; i++) await twoInserts(store);

    expect(countOf(profile, 'INSERT INTO workspaces')).toBe(6);
    expect(countOf(profile, 'BEGIN IMMEDIATE')).toBe(3);
    expect(countOf(profile, 'COMMIT')).toBe(3);
    expect(countOf(profile, 'SAVEPOINT')).toBe(0);
    expect(profile.statementCount()).toBe(12);
    expect(profile.commits).toBe(3);
    expect(profile.writingCommits).toBe(3);
    expect(profile.commitMs).toBeGreaterThan(0);
    const pageSize = store.db.pragma('page_size', { simple: true }) as number;
    const fileFrames = (statSync(`${path}-wal`).size - 32) / (pageSize + 24);
    expect(profile.walFrames).toBe(fileFrames);
    expect(profile.walFrames).toBe(committedFramesInWalFile(path));
    expect(profile.walFrames).toBeGreaterThanOrEqual(3);
  });

  it('counts units queued together under one group commit, each statement still once per execution', async () => {
    const profile = new StatementProfile();
    const { store } = await openStore(profile);
    await twoInserts(store);
    profile.reset();

    // Queued in the same tick: they share one batch, the second and third in savepoints.
    await Promise.all([twoInserts(store), twoInserts(store), twoInserts(store)]);

    expect(countOf(profile, 'INSERT INTO workspaces')).toBe(6);
    // A batch closes after 10 ms (MAX_BATCH_MS), which a loaded machine can reach between two units
    // (a clean-clone run saw two batches): the profile must count the batches that happened.
    const batches = countOf(profile, 'BEGIN IMMEDIATE');
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(3);
    expect(countOf(profile, 'SAVEPOINT unit')).toBe(3 - batches);
    expect(countOf(profile, 'RELEASE unit')).toBe(3 - batches);
    expect(profile.commits).toBe(batches);
    expect(profile.writingCommits).toBe(batches);
    expect(profile.walFrames).toBeGreaterThan(0);
  });

  it('counts the frames of a commit that SQLite wrote from the start of a WAL file that kept its size', async () => {
    const profile = new StatementProfile();
    const { store, path } = await openStore(profile);
    for (let i = 0; i < 5; i++) await twoInserts(store);
    // Every frame copied into the database and no reader: the next write starts the log again from frame 1.
    store.db.pragma('wal_checkpoint(PASSIVE)');
    const sizeBefore = statSync(`${path}-wal`).size;
    profile.reset();

    await twoInserts(store);

    expect(statSync(`${path}-wal`).size).toBe(sizeBefore);
    expect(profile.commits).toBe(1);
    expect(profile.walFrames).toBeGreaterThan(0);
    expect(profile.walFrames).toBe(committedFramesInWalFile(path));

    // And the next commit adds to that generation.
    await twoInserts(store);
    expect(profile.walFrames).toBe(committedFramesInWalFile(path));
  });

  it('records nothing, and reads no -shm file, without a profile', async () => {
    const unattached = new StatementProfile();
    const { store } = await openStore();
    const before = store.statementsExecuted();
    await twoInserts(store);
    await Promise.all([twoInserts(store), twoInserts(store)]);

    expect(store.statementsExecuted() - before).toBeGreaterThan(0);
    expect(unattached.statementCount()).toBe(0);
    expect(unattached.commits).toBe(0);
    const internals = store as unknown as { sql: { profile: unknown }; walIndex: unknown };
    expect(internals.sql.profile).toBeNull();
    expect(internals.walIndex).toBeNull();
  });
});
