/**
 * The charts' aggregates (StatsRepo): what each backend counts per bucket, and which runs a
 * timeline shows. Run by stats.contract.test.ts (SQLite) and stats.contract.postgres.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUCKET_MS } from '../../src/domain/stats.js';
import type { Agent, Wakeup, Workspace } from '../../src/domain/types.js';
import type { Reads, StatsScope, Tx } from '../../src/persistence/store.js';
import type { StoreFactory, StoreUnderTest } from './factory.js';
import { agentRow, runRow, seedAgent, wakeupRow } from './rows.js';

const MINUTE = BUCKET_MS.minute;
const DAY = BUCKET_MS.day;

export function statsContract(name: string, factory: StoreFactory): void {
  describe(`Store stats contract: ${name}`, () => {
    let sut: StoreUnderTest;
    /** A minute boundary: the contract epoch is 09:00:00 UTC. */
    let t0: number;
    let workspace: Workspace;
    let worker: Agent;
    let other: Agent;
    let elsewhere: Agent;
    const write = <T>(work: (tx: Tx) => Promise<T>) => sut.store.transaction(work);
    const query = <T>(work: (reads: Reads) => Promise<T>) => sut.store.query(work);

    beforeEach(async () => {
      sut = await factory();
      t0 = sut.clock.now;
      ({ workspace, worker, other, elsewhere } = await write(async (tx) => {
        const seeded = await seedAgent(tx, t0);
        const second = agentRow(seeded.workspace.id, t0, { name: 'Other' });
        await tx.agents.insert(second);
        const away = await seedAgent(tx, t0);
        return { workspace: seeded.workspace, worker: seeded.agent, other: second, elsewhere: away.agent };
      }));
    });
    afterEach(async () => sut.dispose());

    const scope = (from: number, to: number, agentId?: string): StatsScope => ({ workspace_id: workspace.id, agent_id: agentId, from, to });

    async function ended(agent: Agent, status: Wakeup['status'], finishedAt: number | null) {
      await write((tx) => tx.wakeups.insert(wakeupRow(agent, t0, { status, finished_at: finishedAt })));
    }

    it('counts ended wakeups per minute by outcome, leaving out open ones, other workspaces and the ends outside the range', async () => {
      await ended(worker, 'finished', t0 + 5_000);
      await ended(worker, 'finished', t0 + 59_999);
      await ended(other, 'skipped', t0 + 10_000);
      await ended(worker, 'failed', t0 + MINUTE + 1);
      await ended(worker, 'coalesced', t0 + 2 * MINUTE);
      await ended(other, 'cancelled', t0 + 2 * MINUTE + 30_000);
      await ended(worker, 'queued', null);
      await ended(worker, 'scheduled_retry', null);
      await ended(elsewhere, 'finished', t0 + 1_000);
      await ended(worker, 'finished', t0 - 1);
      await ended(worker, 'finished', t0 + 3 * MINUTE);

      const counts = await query((tx) => tx.stats.wakeupOutcomes(scope(t0, t0 + 3 * MINUTE), 'minute'));
      expect(counts).toEqual([
        { bucket: t0, status: 'finished', count: 2 },
        { bucket: t0, status: 'skipped', count: 1 },
        { bucket: t0 + MINUTE, status: 'failed', count: 1 },
        { bucket: t0 + 2 * MINUTE, status: 'cancelled', count: 1 },
        { bucket: t0 + 2 * MINUTE, status: 'coalesced', count: 1 },
      ]);

      const mine = await query((tx) => tx.stats.wakeupOutcomes(scope(t0, t0 + 3 * MINUTE, worker.id), 'hour'));
      expect(mine).toEqual([
        { bucket: t0, status: 'coalesced', count: 1 },
        { bucket: t0, status: 'failed', count: 1 },
        { bucket: t0, status: 'finished', count: 2 },
      ]);
    });

    it('sums reported costs per UTC day, of one agent when asked', async () => {
      const midnight = t0 - (t0 % DAY);
      const cost = (agent: Agent, cost_usd: number, created_at: number) => write((tx) => tx.budgets.recordCost({
        workspace_id: agent.workspace_id, project_id: null, agent_id: agent.id, run_id: `run_${created_at}_${cost_usd}`, cost_usd, created_at }));
      await cost(worker, 0.25, midnight + 1);
      await cost(other, 0.5, midnight + DAY - 1);
      await cost(worker, 1.5, midnight + 2 * DAY + 3_600_000);
      await cost(elsewhere, 9, midnight + 2);
      await cost(worker, 7, midnight - 1);

      const days = await query((tx) => tx.stats.costs(scope(midnight, midnight + 3 * DAY), 'day'));
      expect(days).toEqual([
        { bucket: midnight, cost_usd: 0.75, runs: 2 },
        { bucket: midnight + 2 * DAY, cost_usd: 1.5, runs: 1 },
      ]);
      const workers = await query((tx) => tx.stats.costs(scope(midnight, midnight + 3 * DAY, worker.id), 'day'));
      expect(workers).toEqual([
        { bucket: midnight, cost_usd: 0.25, runs: 1 },
        { bucket: midnight + 2 * DAY, cost_usd: 1.5, runs: 1 },
      ]);
    });

    it('shows on a timeline every started run that overlaps the range, running ones included, oldest start first', async () => {
      const from = t0;
      const to = t0 + 60 * MINUTE;
      const run = (agent: Agent, patch: Parameters<typeof runRow>[2]) => write(async (tx) => {
        const wakeup = wakeupRow(agent, t0, { status: 'claimed' });
        await tx.wakeups.insert(wakeup);
        const row = runRow(wakeup, t0, patch);
        await tx.runs.insert(row, null);
        return row.id;
      });
      const spanning = await run(worker, { status: 'succeeded', started_at: from - 5 * MINUTE, finished_at: from + MINUTE });
      const failed = await run(worker, { status: 'failed', started_at: from + 10 * MINUTE, finished_at: from + 11 * MINUTE });
      const running = await run(other, { status: 'running', started_at: from + 20 * MINUTE, finished_at: null });
      const longRunning = await run(worker, { status: 'running', started_at: from - 120 * MINUTE, finished_at: null });
      await run(worker, { status: 'succeeded', started_at: from - 10 * MINUTE, finished_at: from - 1 });
      await run(worker, { status: 'queued', started_at: null, finished_at: null });
      await run(worker, { status: 'succeeded', started_at: to, finished_at: to + MINUTE });
      await run(elsewhere, { status: 'succeeded', started_at: from + MINUTE, finished_at: from + 2 * MINUTE });

      const spans = await query((tx) => tx.stats.runSpans(scope(from, to), 10));
      expect(spans).toEqual([
        { id: longRunning, agent_id: worker.id, status: 'running', started_at: from - 120 * MINUTE, finished_at: null },
        { id: spanning, agent_id: worker.id, status: 'succeeded', started_at: from - 5 * MINUTE, finished_at: from + MINUTE },
        { id: failed, agent_id: worker.id, status: 'failed', started_at: from + 10 * MINUTE, finished_at: from + 11 * MINUTE },
        { id: running, agent_id: other.id, status: 'running', started_at: from + 20 * MINUTE, finished_at: null },
      ]);
      expect((await query((tx) => tx.stats.runSpans(scope(from, to, worker.id), 10))).map((s) => s.id)).toEqual([longRunning, spanning, failed]);
      expect((await query((tx) => tx.stats.runSpans(scope(from, to), 2))).map((s) => s.id)).toEqual([longRunning, spanning]);
    });
  });
}
