/**
 * A real deadlock on PostgreSQL: two units of work lock two agent rows in opposite orders, so the
 * server breaks the cycle by failing one of them with 40P01. The store runs that unit again (after
 * a short random pause, logged), and both commit; a deadlock is never the unit's outcome.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Agent } from '../../src/domain/types.js';
import type { Tx } from '../../src/persistence/store.js';
import type { StoreUnderTest } from './factory.js';
import { postgresStoreFactory } from './postgresFactory.js';
import { seedAgent } from './rows.js';

let s: StoreUnderTest;
const warnings: { code?: string; attempt?: number; message: string }[] = [];
const log = {
  info: () => undefined,
  error: () => undefined,
  warn: (fields: { code?: string; attempt?: number }, message: string) => { warnings.push({ ...fields, message }); },
};
beforeEach(async () => {
  warnings.length = 0;
  s = await postgresStoreFactory({ log: log as never });
});
afterEach(async () => { await s.dispose(); });

/** Resolves once `parties` callers have arrived: both units hold their first lock before either asks for its second. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return async () => {
    if (++arrived === parties) open();
    await opened;
  };
}

async function twoAgents(): Promise<[Agent, Agent]> {
  const now = s.clock.now;
  const first = await s.store.transaction((tx) => seedAgent(tx, now));
  const second = await s.store.transaction((tx) => seedAgent(tx, now));
  return [first.agent, second.agent];
}

/**
 * Renames `first` then `second`, waiting at the barrier in between on its first attempt only (a
 * retry runs straight through). `lockSecond` is how the second row is locked.
 */
function crossing(attempts: number[], index: number, meet: () => Promise<void>, first: Agent, second: Agent, name: string,
  lockSecond: (tx: Tx) => Promise<void>) {
  return s.store.transaction(async (tx) => {
    attempts[index]!++;
    await tx.agents.edit(first.id, { name });
    if (attempts[index] === 1) await meet();
    await lockSecond(tx);
  });
}

it('of two transactions that deadlock, the one PostgreSQL rolls back is run again and commits', async () => {
  const [a, b] = await twoAgents();
  const meet = barrier(2);
  const attempts = [0, 0];
  await Promise.all([
    crossing(attempts, 0, meet, a, b, 'left', async (tx) => { await tx.agents.edit(b.id, { name: 'left' }); }),
    crossing(attempts, 1, meet, b, a, 'right', async (tx) => { await tx.agents.edit(a.id, { name: 'right' }); }),
  ]);

  expect(attempts.sort()).toEqual([1, 2]);
  const names = await s.store.read(async (tx) => [(await tx.agents.get(a.id))!.name, (await tx.agents.get(b.id))!.name]);
  // The retried one committed last, so its name is on both rows.
  expect(names[0]).toBe(names[1]);
  expect(warnings).toEqual([expect.objectContaining({ code: '40P01', attempt: 1, message: expect.stringContaining('deadlock') })]);
});

it('a deadlock the work catches and goes past is still run again, instead of failing on the aborted transaction or committing nothing', async () => {
  const [a, b] = await twoAgents();
  const meet = barrier(2);
  const attempts = [0, 0];
  // As the run's continuation summary does: a failure inside is logged and the work goes on.
  const tolerant = (other: Agent, name: string, then: (tx: Tx) => Promise<unknown>) => async (tx: Tx) => {
    await tx.agents.edit(other.id, { name }).catch(() => undefined);
    await then(tx);
  };
  await Promise.all([
    // After the caught deadlock, one more statement (25P02 in an aborted transaction)...
    crossing(attempts, 0, meet, a, b, 'left', tolerant(b, 'left', (tx) => tx.agents.get(a.id))),
    // ...or none at all (COMMIT of an aborted transaction rolls back without an error).
    crossing(attempts, 1, meet, b, a, 'right', tolerant(a, 'right', async () => undefined)),
  ]);

  expect(attempts.sort()).toEqual([1, 2]);
  const names = await s.store.read(async (tx) => [(await tx.agents.get(a.id))!.name, (await tx.agents.get(b.id))!.name]);
  expect(names[0]).toBe(names[1]);
  expect(warnings.map((warning) => warning.code)).toEqual(['40P01']);
});
