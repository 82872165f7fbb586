/**
 * Retention (RetentionRepo): which ended rows a prune deletes, which it keeps because something kept
 * still refers to them, that it deletes in batches, that the wakeups chart answers the same after it,
 * and that one pass starts per interval. Run by retention.contract.test.ts (SQLite) and
 * retention.contract.postgres.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETENTION_TABLES } from '../../src/domain/retention.js';
import type { Agent, Wakeup, Workspace } from '../../src/domain/types.js';
import type { Tx } from '../../src/persistence/store.js';
import type { StoreFactory, StoreUnderTest } from './factory.js';
import { routineRow, routineRunRow, runRow, seedAgent, taskRow, wakeupRow } from './rows.js';

const DAY = 86_400_000;

export function retentionContract(name: string, factory: StoreFactory): void {
  describe(`Store retention contract: ${name}`, () => {
    let sut: StoreUnderTest;
    let t0: number;
    let workspace: Workspace;
    let agent: Agent;
    /** Ended before the cutoff (t0 + 10 days) and after it. */
    let old: number;
    let recent: number;
    const cutoff = () => t0 + 10 * DAY;
    const write = <T>(work: (tx: Tx) => Promise<T>) => sut.store.transaction(work);

    beforeEach(async () => {
      sut = await factory();
      t0 = sut.clock.now;
      old = t0 + 1_000;
      recent = t0 + 20 * DAY;
      ({ workspace, agent } = await write((tx) => seedAgent(tx, t0)));
    });
    afterEach(async () => sut.dispose());

    /** Every table in a pass's order, in batches of `limit`, until a batch comes back short. */
    async function pruneAll(limit = 500) {
      const pruned: Record<string, number> = {};
      for (const table of RETENTION_TABLES) {
        pruned[table] = 0;
        for (;;) {
          const n = await write((tx) => tx.retention.prune(table, cutoff(), limit));
          expect(n).toBeLessThanOrEqual(limit);
          pruned[table] += n;
          if (n < limit) break;
        }
      }
      return pruned;
    }

    async function wakeup(patch: Partial<Wakeup>) {
      const row = wakeupRow(agent, patch.requested_at ?? t0, patch);
      await write((tx) => tx.wakeups.insert(row));
      return row;
    }

    async function endedRun(w: Wakeup, finishedAt: number, patch: Parameters<typeof runRow>[2] = {}) {
      const run = runRow(w, finishedAt - 500, { status: 'succeeded', executor_kind: 'command', started_at: finishedAt - 400, finished_at: finishedAt, ...patch });
      await write((tx) => tx.runs.insert(run, null));
      return run;
    }

    const exists = async (table: string, id: string) => (await sut.inspect.count(table, { id })) === 1;

    it('prunes ended wakeups, runs with their transcripts, activity, routine runs and past days of usage older than the cutoff, and keeps newer and open ones', async () => {
      const oldWakeup = await wakeup({ status: 'finished', finished_at: old });
      const oldRun = await endedRun(oldWakeup, old);
      const line = (seq: number) => ({ seq, at: old, stream: 'stdout' as const, type: 'line', text: `line ${seq}`, bytes: 6 });
      await write((tx) => tx.transcripts.append(oldRun.id, [line(1), line(2), line(3)], 10_000));
      const skipped = await wakeup({ status: 'skipped', skip_reason: 'idle', finished_at: old });
      const recentWakeup = await wakeup({ status: 'finished', requested_at: recent - 1_000, finished_at: recent });
      const recentRun = await endedRun(recentWakeup, recent);
      const queued = await wakeup({ status: 'queued' });
      const retrying = await wakeup({ status: 'scheduled_retry', scheduled_retry_at: recent, retry_count: 1 });
      await write(async (tx) => {
        await tx.activity.insert({ workspace_id: workspace.id, code: 'wakeup_coalesced', agent_id: agent.id }, old);
        await tx.activity.insert({ workspace_id: workspace.id, code: 'wakeup_coalesced', agent_id: agent.id, wakeup_id: queued.id }, old);
        await tx.activity.insert({ workspace_id: workspace.id, code: 'wakeup_coalesced', agent_id: agent.id }, recent);
      });
      const routine = routineRow(agent, t0);
      const settled = routineRunRow(routine, old, { status: 'skipped', completed_at: old });
      const unsettled = routineRunRow(routine, old, { status: 'dispatched', dispatch_fingerprint: 'other' });
      const delivering = routineRunRow(routine, old, { status: 'dispatched', outcome: 'succeeded', completed_at: old, delivery_status: 'pending', dispatch_fingerprint: 'third' });
      await write(async (tx) => {
        await tx.routines.insert(routine);
        for (const run of [settled, unsettled, delivering]) await tx.routines.insertRun(run);
      });
      const usageDays = async () => (await sut.inspect.rows<{ day: number }>('agent_daily_usage', { agent_id: agent.id })).map((row) => Number(row.day)).sort();
      expect(await usageDays()).toEqual([t0 - (t0 % DAY), recent - 500 - ((recent - 500) % DAY)]);

      const pruned = await pruneAll();

      expect(pruned).toEqual({
        run_transcript_events: 3, runs: 1, agent_wakeup_requests: 2, activity_log: 1, office_routine_runs: 1, event_outbox: 0, agent_daily_usage: 1,
      });
      for (const id of [oldWakeup.id, skipped.id]) expect(await exists('agent_wakeup_requests', id)).toBe(false);
      for (const id of [recentWakeup.id, queued.id, retrying.id]) expect(await exists('agent_wakeup_requests', id)).toBe(true);
      expect(await exists('runs', oldRun.id)).toBe(false);
      expect(await sut.inspect.count('run_transcript_events', { run_id: oldRun.id })).toBe(0);
      expect(await exists('runs', recentRun.id)).toBe(true);
      expect(await sut.inspect.count('activity_log', { wakeup_id: queued.id })).toBe(1);
      expect(await sut.inspect.count('activity_log')).toBe(2);
      expect(await exists('office_routine_runs', settled.id)).toBe(false);
      for (const run of [unsettled, delivering]) expect(await exists('office_routine_runs', run.id)).toBe(true);
      expect(await usageDays()).toEqual([recent - 500 - ((recent - 500) % DAY)]);
      // A second pass finds nothing more.
      expect(Object.values(await pruneAll()).every((n) => n === 0)).toBe(true);
    });

    it('keeps what a kept row still needs: a task\'s latest run, a run an open inbox item names, a fold still open, a wakeup a kept one folded into', async () => {
      const task = taskRow(workspace.id, t0);
      await write((tx) => tx.tasks.insert(task));
      const first = await wakeup({ status: 'finished', task_id: task.id, finished_at: old, requested_at: t0 });
      const second = await wakeup({ status: 'finished', task_id: task.id, finished_at: old + 100, requested_at: t0 + 10 });
      const earlierRun = await endedRun(first, old);
      const latestRun = await endedRun(second, old + 100);
      const errored = await wakeup({ status: 'failed', finished_at: old });
      const erroredRun = await endedRun(errored, old, { status: 'failed' });
      await write((tx) => tx.inbox.insert({
        id: 'inb_open', workspace_id: workspace.id, kind: 'agent.error', title: 'failed', body: '', agent_id: agent.id, task_id: null, ref_id: erroredRun.id, status: 'open', created_at: old,
      }));
      const target = await wakeup({ status: 'queued' });
      const folding = await wakeup({ status: 'coalesced', coalesced_into_id: target.id, finished_at: old });
      const endedTarget = await wakeup({ status: 'finished', finished_at: old });
      const keptSource = await wakeup({ status: 'coalesced', coalesced_into_id: endedTarget.id, finished_at: recent, requested_at: recent });

      await pruneAll(1);

      expect(await exists('runs', earlierRun.id)).toBe(false);
      expect(await exists('agent_wakeup_requests', first.id)).toBe(false);
      expect(await exists('runs', latestRun.id)).toBe(true);
      expect(await exists('agent_wakeup_requests', second.id)).toBe(true);
      expect(await exists('runs', erroredRun.id)).toBe(true);
      expect(await exists('agent_wakeup_requests', errored.id)).toBe(true);
      for (const w of [target, folding, endedTarget, keptSource]) expect(await exists('agent_wakeup_requests', w.id)).toBe(true);
      expect(await sut.inspect.count('agent_wakeup_requests')).toBe(6);
    });

    it('the wakeups chart counts the same after the wakeups it counted are pruned, and an unfold takes a wakeup off its minute', async () => {
      for (const status of ['finished', 'finished', 'skipped', 'cancelled'] as const) await wakeup({ status, finished_at: old });
      await wakeup({ status: 'coalesced', coalesced_into_id: 'wk_gone', finished_at: old + 60_000 });
      const chart = () => sut.store.query((reads) => reads.stats.wakeupOutcomes({ workspace_id: workspace.id, from: t0, to: t0 + DAY }, 'hour'));
      const before = await chart();
      expect(before).toEqual([
        { bucket: t0, status: 'cancelled', count: 1 }, { bucket: t0, status: 'coalesced', count: 1 },
        { bucket: t0, status: 'finished', count: 2 }, { bucket: t0, status: 'skipped', count: 1 },
      ].map((row) => expect.objectContaining(row)));

      await pruneAll();
      expect(await sut.inspect.count('agent_wakeup_requests', { workspace_id: workspace.id })).toBe(0);
      expect(await chart()).toEqual(before);

      const target = await wakeup({ status: 'claimed', requested_at: recent });
      const folded = await wakeup({ status: 'coalesced', coalesced_into_id: target.id, finished_at: t0 + 2 * 60_000 });
      const withFold = () => sut.store.query((reads) => reads.stats.wakeupOutcomes({ workspace_id: workspace.id, from: t0 + 2 * 60_000, to: t0 + 3 * 60_000 }, 'minute'));
      expect(await withFold()).toEqual([expect.objectContaining({ status: 'coalesced', count: 1 })]);
      expect((await write((tx) => tx.wakeups.unfold(target.id, [], recent))).map((w) => w.id)).toEqual([folded.id]);
      expect(await withFold()).toEqual([]);
    });

    it('prunes a parked event once its inbox item is resolved, and keeps one whose item is still open', async () => {
      for (const i of [1, 2]) await write(async (tx) => { tx.emit('agent.created', { agent_id: `agt_${i}`, workspace_id: workspace.id, role: 'worker' }); });
      const [resolved, open] = sut.published.map((event) => event.id).sort((a, b) => a - b) as [number, number];
      await write(async (tx) => {
        for (const [id, status] of [[resolved, 'resolved'], [open, 'open']] as const) {
          await tx.outbox.park(id, 'failed every try', old);
          await tx.inbox.insert({
            id: `inb_${id}`, workspace_id: workspace.id, kind: 'event.parked', title: 'parked', body: '', agent_id: null, task_id: null, ref_id: String(id), status, created_at: old,
          });
        }
      });
      expect((await pruneAll()).event_outbox).toBe(1);
      expect((await sut.inspect.rows<{ id: number }>('event_outbox')).map((row) => Number(row.id))).toEqual([open]);
    });

    it('a pass starts once per interval, whichever replica asks', async () => {
      const hour = 3_600_000;
      expect(await write((tx) => tx.retention.beginPass('replica-a', t0, hour))).toBe(true);
      expect(await write((tx) => tx.retention.beginPass('replica-b', t0 + 1, hour))).toBe(false);
      expect(await write((tx) => tx.retention.beginPass('replica-b', t0 + hour - 1, hour))).toBe(false);
      expect(await write((tx) => tx.retention.beginPass('replica-b', t0 + hour, hour))).toBe(true);
      expect(await sut.inspect.rows('retention_passes')).toEqual([expect.objectContaining({ owner_id: 'replica-b' })]);
    });
  });
}
