/**
 * The delivery contract: routine result deliveries (routine_deliveries) recorded with their routine
 * run's `pending`, taken under claims that expire, retried and ended only by the claim's holder.
 * Every Store implementation runs it (deliveries.contract.test.ts for SQLite, and the PostgreSQL
 * contract file), so replicas on one database get the answers one process gets on SQLite. Two
 * owners are simulated on one store: the port takes the owner as an argument.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { storePerTest, type StoreFactory } from './factory.js';
import { routineRow, routineRunRow, seedAgent } from './rows.js';

const A = 'own_a';
const B = 'own_b';
const CLAIM_MS = 60_000;
const RACERS = 6;

export function deliveryContract(name: string, factory: StoreFactory): void {
  describe(`Store delivery contract: ${name}`, () => {
    let now: number;
    const { write, read, clockNow } = storePerTest(factory);
    const take = (owner: string, at: number, takeOver = false, limit = 10) =>
      write((tx) => tx.deliveries.take(owner, { limit, now: at, claimUntil: at + CLAIM_MS, takeOver }));
    const deliveryStatusOf = async (runId: string) => (await read((tx) => tx.routines.getRun(runId)))?.delivery_status;

    beforeEach(() => {
      now = clockNow();
    });

    /** Settled routine runs, each with a delivery scheduled at `now`. */
    async function scheduled(count = 1) {
      return write(async (tx) => {
        const { agent } = await seedAgent(tx, now);
        const routine = routineRow(agent, now, { delivery: { kind: 'webhook', url: 'http://127.0.0.1:9/hook' } });
        await tx.routines.insert(routine);
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          const run = routineRunRow(routine, now + i, { status: 'dispatched', outcome: 'succeeded', completed_at: now });
          await tx.routines.insertRun(run);
          expect(await tx.deliveries.schedule({ routine_run_id: run.id, url: routine.delivery!.url, body: { routine_run_id: run.id }, next_attempt_at: now + i, created_at: now })).toBe(true);
          ids.push(run.id);
        }
        return ids;
      });
    }

    it('scheduling a delivery marks its routine run pending, once: a second one for the run is refused and changes nothing', async () => {
      const [runId] = await scheduled();
      expect(await deliveryStatusOf(runId!)).toBe('pending');
      expect(await write((tx) => tx.deliveries.schedule({ routine_run_id: runId!, url: 'http://other/hook', body: {}, next_attempt_at: now + 5, created_at: now }))).toBe(false);
      expect(await read((tx) => tx.deliveries.get(runId!))).toMatchObject({ url: 'http://127.0.0.1:9/hook', body: { routine_run_id: runId }, attempts: 0, next_attempt_at: now });
    });

    it('a taken delivery is its taker\'s until its claim expires; then another owner takes it', async () => {
      const [runId] = await scheduled();
      expect((await take(A, now)).map((d) => d.routine_run_id)).toEqual([runId]);
      expect(await take(B, now + CLAIM_MS - 1)).toEqual([]);
      expect(await take(A, now + 1)).toEqual([]);
      expect((await take(B, now + CLAIM_MS)).map((d) => d.routine_run_id)).toEqual([runId]);
    });

    it('a delivery is not taken before it is due, and nextDue says when it is', async () => {
      await write(async (tx) => {
        const { agent } = await seedAgent(tx, now);
        const routine = routineRow(agent, now);
        await tx.routines.insert(routine);
        const run = routineRunRow(routine, now);
        await tx.routines.insertRun(run);
        await tx.deliveries.schedule({ routine_run_id: run.id, url: 'http://h/hook', body: {}, next_attempt_at: now + 1_000, created_at: now });
      });
      expect(await take(A, now + 999)).toEqual([]);
      expect(await read((tx) => tx.deliveries.nextDue())).toBe(now + 1_000);
      expect(await take(A, now + 1_000)).toHaveLength(1);
      // Taken: due again only when its claim expires.
      expect(await read((tx) => tx.deliveries.nextDue())).toBe(now + 1_000 + CLAIM_MS);
    });

    it('only the claim\'s holder retries a delivery: the attempt is counted, the claim let go, and the next attempt waits', async () => {
      const [runId] = await scheduled();
      await take(A, now);
      const attempt = { attempts: 1, next_attempt_at: now + 5_000, last_error: 'HTTP 500' };
      expect(await write((tx) => tx.deliveries.retryLater(runId!, B, attempt))).toBe(false);
      expect(await write((tx) => tx.deliveries.retryLater(runId!, A, attempt))).toBe(true);
      expect(await read((tx) => tx.deliveries.get(runId!))).toMatchObject(attempt);
      expect(await take(B, now + 4_999)).toEqual([]);
      expect((await take(B, now + 5_000)).map((d) => [d.routine_run_id, d.attempts])).toEqual([[runId, 1]]);
      expect(await deliveryStatusOf(runId!)).toBe('pending');
    });

    it('only the claim\'s holder ends a delivery: the row goes and the routine run says delivered (or failed)', async () => {
      const [delivered, failed] = await scheduled(2);
      await take(A, now + 1);
      expect(await write((tx) => tx.deliveries.finish(delivered!, B, 'failed'))).toBe(false);
      expect(await deliveryStatusOf(delivered!)).toBe('pending');
      expect(await write((tx) => tx.deliveries.finish(delivered!, A, 'delivered'))).toBe(true);
      expect(await write((tx) => tx.deliveries.finish(failed!, A, 'failed'))).toBe(true);
      expect(await deliveryStatusOf(delivered!)).toBe('delivered');
      expect(await deliveryStatusOf(failed!)).toBe('failed');
      expect(await read((tx) => tx.deliveries.get(delivered!))).toBeUndefined();
      expect(await read((tx) => tx.deliveries.nextDue())).toBeNull();
      expect(await write((tx) => tx.deliveries.finish(delivered!, A, 'delivered'))).toBe(false);
    });

    it('a take with takeOver takes the deliveries another owner claimed, whatever their claim says (a boot after a dead process)', async () => {
      const [runId] = await scheduled();
      await take(A, now);
      expect((await take(B, now + 1, true)).map((d) => d.routine_run_id)).toEqual([runId]);
      expect(await write((tx) => tx.deliveries.retryLater(runId!, A, { attempts: 1, next_attempt_at: now, last_error: 'x' }))).toBe(false);
    });

    it('racing takes get each delivery once', async () => {
      const ids = await scheduled(RACERS * 2);
      const batches = await Promise.all(Array.from({ length: RACERS }, (_, i) => take(`own_${i}`, now + RACERS * 2, false, 3)));
      const taken = batches.flat().map((d) => d.routine_run_id);
      expect(new Set(taken).size).toBe(taken.length);
      const rest = (await take('own_late', now + RACERS * 2, false, 100)).map((d) => d.routine_run_id);
      expect([...taken, ...rest].sort()).toEqual([...ids].sort());
    });
  });
}
