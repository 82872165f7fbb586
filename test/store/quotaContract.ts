/**
 * The quota and transcript contract (API.md, "Agent CLIs"): a quota records the latest reset and
 * hands out release slots only while it is exhausted, two replicas' slots never the same; a
 * transcript keeps its run's last bytes in order and says when it dropped some. Every Store
 * implementation runs it (quotas.contract.test.ts, quotas.contract.postgres.test.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { storePerTest, type StoreFactory } from './factory.js';
import { runRow, seedAgent, wakeupRow } from './rows.js';

const HOUR = 3_600_000;

export function quotaContract(name: string, factory: StoreFactory): void {
  describe(`Store quota and transcript contract: ${name}`, () => {
    let now: number;
    const { write, read, query, clockNow } = storePerTest(factory);
    const exhaustion = (resetIn: number, run = 'run_a') => ({
      key: 'claude_code:default', kind: 'claude_code', exhausted_until: now + resetIn, release_at: now + resetIn + 30_000,
      reason: "You've hit your limit", run_id: run, sharing: 3, at: now,
    });

    beforeEach(() => {
      now = clockNow();
    });

    it('an exhausted quota hands out release slots 1, 2, 3 … until its release, then none', async () => {
      await write((tx) => tx.quotas.exhaust(exhaustion(HOUR)));
      const slots = [];
      for (let i = 0; i < 3; i++) slots.push((await write((tx) => tx.quotas.holdSlot('claude_code:default', now)))?.slot);
      expect(slots).toEqual([1, 2, 3]);
      expect(await write((tx) => tx.quotas.holdSlot('claude_code:default', now + HOUR + 30_000))).toBeUndefined();
      expect(await write((tx) => tx.quotas.holdSlot('another:key', now))).toBeUndefined();
      expect(await read((tx) => tx.quotas.list({ exhaustedAt: now }))).toMatchObject([{ key: 'claude_code:default', sharing: 3, holds: 3 }]);
      expect(await read((tx) => tx.quotas.list({ exhaustedAt: now + HOUR + 30_000 }))).toEqual([]);
    });

    it('concurrent holds get distinct slots', async () => {
      await write((tx) => tx.quotas.exhaust(exhaustion(HOUR)));
      const slots = await Promise.all(Array.from({ length: 8 }, () => write((tx) => tx.quotas.holdSlot('claude_code:default', now))));
      expect(slots.map((s) => s!.slot).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('a later reset replaces an earlier one and keeps the slots handed out; an earlier one changes nothing', async () => {
      await write((tx) => tx.quotas.exhaust(exhaustion(HOUR, 'run_a')));
      await write((tx) => tx.quotas.holdSlot('claude_code:default', now));
      await write((tx) => tx.quotas.exhaust(exhaustion(2 * HOUR, 'run_b')));
      await write((tx) => tx.quotas.exhaust(exhaustion(HOUR / 2, 'run_c')));
      expect(await read((tx) => tx.quotas.get('claude_code:default'))).toMatchObject({ exhausted_until: now + 2 * HOUR, exhausted_by_run_id: 'run_b', holds: 1 });
    });

    it('a new exhaustion after a release starts the slots again from 1', async () => {
      await write((tx) => tx.quotas.exhaust(exhaustion(HOUR)));
      await write((tx) => tx.quotas.holdSlot('claude_code:default', now));
      const later = { ...exhaustion(HOUR), at: now + 2 * HOUR, exhausted_until: now + 3 * HOUR, release_at: now + 3 * HOUR + 30_000 };
      await write((tx) => tx.quotas.exhaust(later));
      expect((await write((tx) => tx.quotas.holdSlot('claude_code:default', now + 2 * HOUR)))?.slot).toBe(1);
    });

    it('a warning is recorded on a quota that is not exhausted, which then lists it only with all', async () => {
      await write((tx) => tx.quotas.warn('codex:abc', 'codex', 'five_hour limit 93% used', now));
      expect(await read((tx) => tx.quotas.get('codex:abc'))).toMatchObject({ warning: 'five_hour limit 93% used', warned_at: now, release_at: null });
      expect(await read((tx) => tx.quotas.list({ exhaustedAt: now }))).toEqual([]);
      expect(await read((tx) => tx.quotas.list({}))).toHaveLength(1);
    });

    async function seededRun() {
      return write(async (tx) => {
        const { agent } = await seedAgent(tx, now);
        const wakeup = wakeupRow(agent, now);
        await tx.wakeups.insert(wakeup);
        const run = runRow(wakeup, now);
        await tx.runs.insert(run, null);
        return run;
      });
    }
    const entry = (seq: number, text: string) => ({ seq, at: now + seq, stream: 'stdout' as const, type: 'line', text, bytes: Buffer.byteLength(text) });

    it('a transcript lists its events in order, and a repeated append of the same events adds nothing', async () => {
      const run = await seededRun();
      await write((tx) => tx.transcripts.append(run.id, [entry(1, 'one'), entry(2, 'two')], 1000));
      await write((tx) => tx.transcripts.append(run.id, [entry(2, 'two'), entry(3, 'three')], 1000));
      expect(await query((tx) => tx.transcripts.list(run.id))).toEqual([
        { seq: 1, at: now + 1, stream: 'stdout', type: 'line', text: 'one' },
        { seq: 2, at: now + 2, stream: 'stdout', type: 'line', text: 'two' },
        { seq: 3, at: now + 3, stream: 'stdout', type: 'line', text: 'three' },
      ]);
      expect((await read((tx) => tx.runs.get(run.id)))?.transcript_truncated).toBe(false);
    });

    it('past its byte cap a transcript keeps the last events that fit and marks the run truncated', async () => {
      const run = await seededRun();
      await write((tx) => tx.transcripts.append(run.id, [entry(1, 'aaaa'), entry(2, 'bbbb'), entry(3, 'cccc')], 10));
      await write((tx) => tx.transcripts.append(run.id, [entry(4, 'dddd')], 10));
      expect((await query((tx) => tx.transcripts.list(run.id))).map((e) => e.text)).toEqual(['cccc', 'dddd']);
      expect((await read((tx) => tx.runs.get(run.id)))?.transcript_truncated).toBe(true);
    });
  });
}
