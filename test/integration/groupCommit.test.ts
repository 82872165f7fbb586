/**
 * The group commit's time bounds (sqlite/store.ts) on a real SqliteStore and file: a batch closes
 * after 10 ms, and goes on to 40 ms only while a deep backlog (256 units or more) waits behind it.
 * Each unit takes 1 ms of the store's injected batch clock and no real time, so the batches are the
 * same on a busy machine; the statement profile's commit count tells which batch ran each unit.
 */
import { describe, expect, it } from 'vitest';
import { StatementProfile } from '../../src/persistence/shared/statementProfile.js';
import { sqliteStorePerTest } from '../helpers/statementProfile.js';

const openStore = sqliteStorePerTest();

/** The sizes of the batches that `units` write units, queued in one tick, ran in, in order. */
async function batchSizesOf(units: number): Promise<number[]> {
  let clock = 0;
  const profile = new StatementProfile();
  const { store } = await openStore({ statementProfile: profile, batchClock: () => clock });
  const batchOfUnit: number[] = [];
  await Promise.all(Array.from({ length: units }, () => store.transaction(async () => {
    batchOfUnit.push(profile.commits);
    clock += 1;
  })));
  const sizes: number[] = [];
  for (const batch of batchOfUnit) sizes[batch] = (sizes[batch] ?? 0) + 1;
  return sizes;
}

describe('the group commit', () => {
  it('closes a batch after 10 ms while few units wait behind it', async () => {
    expect(await batchSizesOf(40)).toEqual([10, 10, 10, 10]);
  });

  it('lets a batch run to 40 ms while 256 units or more wait behind it, and closes batches at 10 ms again once fewer do', async () => {
    // Eight batches of 40 leave 280 waiting; the ninth goes on past 10 ms until 255 are left, after
    // its 25th unit; the rest close at 10 ms.
    expect(await batchSizesOf(600)).toEqual([...Array<number>(8).fill(40), 25, ...Array<number>(25).fill(10), 5]);
  });
});
