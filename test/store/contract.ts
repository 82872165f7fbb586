/**
 * The Store contract: what every implementation of the port (src/persistence/store.ts) must do,
 * checked through the port alone. A backend runs it with one line (contract.sqlite.test.ts):
 * `storeContract('SQLite', sqliteStoreFactory)`.
 *
 * The atomic operations are driven by concurrent callers, each in its own transaction, all started
 * before any has finished: a backend whose transactions interleave (PostgreSQL) must still give
 * each race exactly one winner; a backend that serialises them (SQLite) must give the same answer.
 * Ordering is checked on rows written in the same millisecond and inserted out of id order: "oldest
 * first" means by time, then by id (ids are time-ordered), never by the order rows reached the table.
 * Leases and the fencing of a stale owner are their own suite (leases.contract.test.ts).
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Wakeup } from '../../src/domain/types.js';
import type { Reads, Store, Tx } from '../../src/persistence/store.js';
import { newId } from '../../src/services/ids.js';
import { WakeupService, type EnqueueRequest } from '../../src/services/wakeups.js';
import { WakeupTracing } from '../../src/telemetry/tracing.js';
import type { StoreFactory, StoreUnderTest } from './factory.js';
import {
  agentRow, approvalRow, budgetRow, commentRow, projectRow, routineRow, routineRunRow, runRow, seedAgent, taskRow,
  triggerRow, wakeupRow, workspaceRow,
} from './rows.js';

/** How many callers each race starts at once. */
const RACERS = 8;

/** Ids minted in this order; returned so that a test can insert them in another. */
function idsInMintOrder(prefix: string, count: number): string[] {
  return Array.from({ length: count }, () => newId(prefix));
}

/** Starts every caller before awaiting any, each in its own transaction. */
function race<T>(store: Store, count: number, work: (tx: Tx, index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => store.transaction((tx) => work(tx, index))));
}

/** The wakeup service as the scheduler builds it, with a coalescing window and a silent log. */
function wakeupService(coalesceWindowMs: number) {
  const queued: string[] = [];
  const config = loadConfig({ OFFICE_COALESCE_WINDOW_MS: String(coalesceWindowMs), OFFICE_LOG_LEVEL: 'silent' });
  const service = new WakeupService(config, pino({ level: 'silent' }), {
    wakeupQueued: (_agentId, wakeupId) => queued.push(wakeupId),
    wakeupWithdrawn: () => undefined,
  }, { recordOutcome: async () => undefined }, new WakeupTracing('test'));
  return { service, queued };
}

const OWNER = 'owner-contract';

/** A new request as the wakeup service hands it to enqueueOrFold: its own wake in its context, the workspace left to the store. */
function request(agent: Pick<Wakeup, 'workspace_id'> & { id: string }, at: number, patch: Partial<Wakeup> = {}): Wakeup {
  const row = wakeupRow(agent, at, patch);
  const wake = { wakeup_id: row.id, source: row.source, reason: row.reason, payload: row.payload, requested_at: new Date(at).toISOString() };
  return { ...row, workspace_id: '', context_snapshot: { wakes: [wake] } };
}

export function storeContract(name: string, factory: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    let s: StoreUnderTest;
    let store: Store;
    let now: number;
    beforeEach(async () => {
      s = await factory();
      store = s.store;
      now = s.clock.now;
    });
    afterEach(async () => {
      await s.dispose();
    });

    const write = <T>(work: (tx: Tx) => Promise<T>) => store.transaction(work);
    const read = <T>(work: (tx: Tx) => Promise<T>) => store.read(work);
    const query = <T>(work: (reads: Reads) => Promise<T>) => store.query(work);
    const seed = (patch = {}) => write((tx) => seedAgent(tx, now, patch));
    /** This store's lease on an agent: the fence a claim carries. */
    const lease = (tx: Tx, agentId: string) => tx.leases.take(agentId, OWNER, null);

    describe('transactions', () => {
      it('a unit of work that throws leaves nothing behind, and its after-commit callbacks never run', async () => {
        let ran = false;
        const workspace = workspaceRow(now);
        await expect(write(async (tx) => {
          await tx.workspaces.insert(workspace);
          tx.afterCommit(() => { ran = true; });
          throw new Error('the unit fails after its write');
        })).rejects.toThrow('the unit fails after its write');
        expect(await read((tx) => tx.workspaces.get(workspace.id))).toBeUndefined();
        expect(ran).toBe(false);
      });

      it('a failing unit does not take a concurrent unit down with it', async () => {
        const kept = workspaceRow(now);
        const lost = workspaceRow(now);
        const outcomes = await Promise.allSettled([
          write((tx) => tx.workspaces.insert(kept)),
          write(async (tx) => { await tx.workspaces.insert(lost); throw new Error('this one fails'); }),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
        expect(await read((tx) => tx.workspaces.get(kept.id))).toMatchObject({ id: kept.id });
        expect(await read((tx) => tx.workspaces.get(lost.id))).toBeUndefined();
      });

      it('after-commit callbacks run once the write is visible to a new read', async () => {
        const workspace = workspaceRow(now);
        let seen: unknown = 'not yet';
        await write(async (tx) => {
          await tx.workspaces.insert(workspace);
          tx.afterCommit(() => { seen = read((r) => r.workspaces.get(workspace.id)); });
        });
        expect(await seen).toMatchObject({ id: workspace.id });
      });

      it('counts write units and statements', async () => {
        const units = store.transactionsExecuted();
        const statements = store.statementsExecuted();
        await write((tx) => tx.workspaces.insert(workspaceRow(now)));
        expect(store.transactionsExecuted()).toBe(units + 1);
        expect(store.statementsExecuted()).toBeGreaterThan(statements);
        expect(store.storageHealth().writable).toBe(true);
      });
    });

    describe('wakeups: insert, idempotency and claim', () => {
      it('stores a wakeup and reads it back field for field', async () => {
        const { agent } = await seed();
        const wakeup = wakeupRow(agent, now, { payload: { user_id: 'usr_1', reason: 'why' }, context_snapshot: { wakes: [] }, recovered: true });
        await write((tx) => tx.wakeups.insert(wakeup));
        expect(await read((tx) => tx.wakeups.get(wakeup.id))).toEqual(wakeup);
      });

      it('an idempotency key is unique: of concurrent inserts with one key, exactly one row is stored', async () => {
        const { agent } = await seed();
        const outcomes = await Promise.allSettled(Array.from({ length: RACERS }, () =>
          write((tx) => tx.wakeups.insert(wakeupRow(agent, now, { idempotency_key: 'key-1' })))));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        const stored = await query((tx) => tx.wakeups.list({ agent_id: agent.id }));
        expect(stored.map((w) => w.idempotency_key)).toEqual(['key-1']);
        expect(await read((tx) => tx.wakeups.findByKey('key-1'))).toEqual(stored[0]);
      });

      it('concurrent enqueues with one idempotency key: one is queued, the others are its duplicates', async () => {
        const { agent } = await seed();
        const { service, queued } = wakeupService(0);
        const request: EnqueueRequest = { agent_id: agent.id, source: 'user', payload: { user_id: 'usr_1' }, idempotency_key: 'retry-of-a-click' };
        const outcomes = await race(store, RACERS, (tx) => service.enqueue(tx, request, now));
        expect(outcomes.filter((o) => o.kind === 'queued')).toHaveLength(1);
        expect(outcomes.filter((o) => o.kind === 'duplicate')).toHaveLength(RACERS - 1);
        expect(new Set(outcomes.map((o) => o.wakeup.id)).size).toBe(1);
        expect(await query((tx) => tx.wakeups.list({ agent_id: agent.id }))).toHaveLength(1);
        expect(queued).toEqual([outcomes[0]!.wakeup.id]);
      });

      it('a retired key no longer collides, and stays readable on its row', async () => {
        const { agent } = await seed();
        const first = wakeupRow(agent, now, { idempotency_key: 'daily' });
        await write((tx) => tx.wakeups.insert(first));
        await write((tx) => tx.wakeups.retireKey(first.id));
        expect(await read((tx) => tx.wakeups.findByKey('daily'))).toBeUndefined();
        await write((tx) => tx.wakeups.insert(wakeupRow(agent, now + 1, { idempotency_key: 'daily' })));
        expect((await read((tx) => tx.wakeups.get(first.id)))!.idempotency_key).toContain('daily');
      });

      it('concurrent enqueues inside the coalescing window fold into one wakeup: none lost, the count exact', async () => {
        const { agent } = await seed();
        const { service, queued } = wakeupService(5_000);
        const outcomes = await race(store, RACERS, (tx, i) =>
          service.enqueue(tx, { agent_id: agent.id, source: 'user', reason: `click ${i}`, payload: { user_id: `usr_${i}` } }, now + i));
        const target = outcomes.find((o) => o.kind === 'queued')!.wakeup;
        expect(outcomes.filter((o) => o.kind === 'coalesced')).toHaveLength(RACERS - 1);
        const stored = await read((tx) => tx.wakeups.get(target.id));
        expect(stored!.coalesced_count).toBe(RACERS);
        expect((stored!.context_snapshot.wakes as unknown[]).length).toBe(RACERS);
        const all = await query((tx) => tx.wakeups.list({ agent_id: agent.id }));
        expect(all).toHaveLength(RACERS);
        expect(all.filter((w) => w.status === 'coalesced').every((w) => w.coalesced_into_id === target.id)).toBe(true);
        expect(queued).toEqual([target.id]);
      });

      it('a claim succeeds once under concurrent callers, and only from queued or a due retry', async () => {
        const { agent } = await seed();
        const wakeup = wakeupRow(agent, now);
        const fence = await write(async (tx) => { await tx.wakeups.insert(wakeup); return lease(tx, agent.id); });
        const claims = await race(store, RACERS, (tx) => tx.wakeups.claim(wakeup.id, now + 1, fence));
        const winners = claims.filter((c): c is Wakeup => c !== undefined);
        expect(winners).toHaveLength(1);
        expect(winners[0]).toMatchObject({ id: wakeup.id, status: 'claimed', claimed_at: now + 1 });
        expect(await read((tx) => tx.wakeups.get(wakeup.id))).toMatchObject({ status: 'claimed' });

        const retry = wakeupRow(agent, now, { status: 'scheduled_retry', retry_count: 1 });
        const done = wakeupRow(agent, now, { status: 'finished', finished_at: now });
        await write(async (tx) => { await tx.wakeups.insert(retry); await tx.wakeups.insert(done); });
        expect(await write((tx) => tx.wakeups.claim(retry.id, now + 2, fence))).toMatchObject({ status: 'claimed' });
        expect(await write((tx) => tx.wakeups.claim(done.id, now + 2, fence))).toBeUndefined();
        expect(await write((tx) => tx.wakeups.claim('wk_missing', now + 2, fence))).toBeUndefined();
      });

      it('a claim for dispatch wins once under concurrent callers, and answers with the agent, task, budget standing and the session to resume', async () => {
        const { agent, workspace } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const wakeup = wakeupRow(agent, now + 100, { task_id: task.id, source: 'task_assigned', payload: { task_id: task.id } });
        const earlier = wakeupRow(agent, now, { task_id: task.id, status: 'finished' });
        const budget = budgetRow(workspace.id, now, { scope: 'agent', scope_id: agent.id, period: 'daily' });
        const fence = await write(async (tx) => {
          await tx.tasks.insert(task);
          for (const w of [earlier, wakeup]) await tx.wakeups.insert(w);
          await tx.runs.insert(runRow(earlier, now, {
            status: 'succeeded', started_at: now + 10, finished_at: now + 20,
            executor_kind: 'claude_code', cli_session_id: 'sess-1', cli_session_totals: { cost_usd: 0.5 },
          }), null);
          await tx.comments.insert(commentRow(task, now + 5, { body: 'before the last session' }));
          await tx.comments.insert(commentRow(task, now + 30, { body: 'since the last session' }));
          await tx.budgets.insert(budget);
          await tx.budgets.recordCost({ workspace_id: workspace.id, project_id: null, agent_id: agent.id, run_id: 'run_x', cost_usd: 2, created_at: now + 1 });
          return lease(tx, agent.id);
        });
        const periods = { daily: now, monthly: now - 86_400_000 };
        const claims = await race(store, RACERS, (tx) => tx.wakeups.claimForDispatch(wakeup.id, now + 200, fence, periods));
        const won = claims.filter((c) => c !== undefined);
        expect(won).toHaveLength(1);
        expect(won[0]).toMatchObject({
          wakeup: { id: wakeup.id, status: 'claimed', claimed_at: now + 200 },
          agent: { id: agent.id }, task: { id: task.id, blocked_by: [], reviewers: [] },
          budgets: [{ budget: { id: budget.id }, spent: 2 }], attempts: 0, resumeSince: now + 10,
          previousSession: { id: 'sess-1', kind: 'claude_code', totals: { cost_usd: 0.5 } }, exhaustedQuotas: [],
        });
        // Every comment: the full prompt shows them all, the resume delta those since resumeSince.
        expect(won[0]!.comments.map((c) => c.body)).toEqual(['before the last session', 'since the last session']);
        const stale = { ...fence, epoch: fence.epoch - 1 };
        const other = wakeupRow(agent, now);
        await write((tx) => tx.wakeups.insert(other));
        expect(await write((tx) => tx.wakeups.claimForDispatch(other.id, now + 200, stale, periods))).toBeUndefined();
        expect(await read((tx) => tx.wakeups.get(other.id))).toMatchObject({ status: 'queued' });
      });

      it('a claim names no session to resume after a run of a command agent, or one that recorded no session, and reads the quotas exhausted then', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const [first, second, third] = [0, 1, 2].map((i) => wakeupRow(agent, now + i, { task_id: task.id, source: 'task_assigned', payload: { task_id: task.id } }));
        const fence = await write(async (tx) => {
          await tx.tasks.insert(task);
          for (const w of [first!, second!, third!]) await tx.wakeups.insert(w);
          await tx.runs.insert(runRow(first!, now, { status: 'succeeded', started_at: now, finished_at: now + 1, executor_kind: 'command', cli_session_id: 'its-own' }), null);
          await tx.quotas.exhaust({ key: 'claude_code:default', kind: 'claude_code', exhausted_until: now + 1_000, release_at: now + 2_000, reason: 'limit', run_id: 'run_x', sharing: 1, at: now });
          return lease(tx, agent.id);
        });
        const periods = { daily: now, monthly: now };
        const afterCommand = await write((tx) => tx.wakeups.claimForDispatch(second!.id, now + 10, fence, periods));
        expect(afterCommand).toMatchObject({ resumeSince: null, previousSession: { id: 'its-own', kind: 'command' } });
        expect(afterCommand!.exhaustedQuotas).toEqual([{ key: 'claude_code:default', kind: 'claude_code', exhausted_until: now + 1_000, release_at: now + 2_000 }]);
        await write((tx) => tx.runs.insert(runRow(second!, now + 20, { status: 'failed', started_at: now + 20, finished_at: now + 21, executor_kind: 'claude_code', cli_session_id: null }), null));
        const afterNoSession = await write((tx) => tx.wakeups.claimForDispatch(third!.id, now + 3_000, fence, periods));
        expect(afterNoSession).toMatchObject({ resumeSince: null, previousSession: null, exhaustedQuotas: [] });
      });

      it('a claim clears a checkout wait and a skip reason', async () => {
        const { agent } = await seed();
        const wakeup = wakeupRow(agent, now, { waiting_on_checkout: 'wk_holder', skip_reason: 'cooldown' });
        const fence = await write(async (tx) => { await tx.wakeups.insert(wakeup); return lease(tx, agent.id); });
        expect(await write((tx) => tx.wakeups.claim(wakeup.id, now, fence))).toMatchObject({ waiting_on_checkout: null, skip_reason: null });
      });

      it('enqueue-or-fold: of concurrent requests with one key, exactly one is stored and the others see it as their duplicate', async () => {
        const { agent } = await seed();
        const results = await race(store, RACERS, (tx) => tx.wakeups.enqueueOrFold(request(agent, now, { idempotency_key: 'k' }), null, now - 1_000));
        expect(results.filter((r) => r.kind === 'queued')).toHaveLength(1);
        const stored = results.find((r) => r.kind === 'queued')!;
        expect(results.filter((r) => r.kind === 'duplicate').map((r) => (r as { wakeup: Wakeup }).wakeup.id)).toEqual(
          Array(RACERS - 1).fill((stored as { wakeup: Wakeup }).wakeup.id));
        expect(await query((tx) => tx.wakeups.list({ agent_id: agent.id }))).toHaveLength(1);
      });

      it('enqueue-or-fold: a key older than its window is retired and the new request queued; a gone agent gets nothing', async () => {
        const { agent } = await seed();
        const first = await write((tx) => tx.wakeups.enqueueOrFold(request(agent, now, { idempotency_key: 'k' }), null, now - 1_000));
        const again = await write((tx) => tx.wakeups.enqueueOrFold(request(agent, now + 5_000, { idempotency_key: 'k' }), null, now + 1));
        expect([first.kind, again.kind]).toEqual(['queued', 'queued']);
        expect((await read((tx) => tx.wakeups.findByKey('k')))?.id).toBe((again as { wakeup: Wakeup }).wakeup.id);
        expect(await query((tx) => tx.wakeups.list({ agent_id: agent.id }))).toHaveLength(2);
        expect(await write((tx) => tx.agents.markDeleted(agent.id, now))).toMatchObject({ deleted_at: now, status: 'stopped' });
        expect(await write((tx) => tx.agents.markDeleted(agent.id, now + 1))).toBeUndefined();
        expect(await write((tx) => tx.wakeups.enqueueOrFold(request(agent, now + 6_000), null, now))).toEqual({ kind: 'agent_gone' });
        expect(await write((tx) => tx.wakeups.enqueueOrFold(request({ id: 'agt_missing', workspace_id: agent.workspace_id }, now), null, now)))
          .toEqual({ kind: 'agent_gone' });
        expect(await query((tx) => tx.wakeups.list({ agent_id: agent.id }))).toHaveLength(2);
      });

      it('enqueue-or-fold: concurrent requests inside the window fold into the oldest queued one, the count and context exact', async () => {
        const { agent } = await seed();
        const results = await race(store, RACERS, (tx, i) =>
          tx.wakeups.enqueueOrFold(request(agent, now + i), { windowSince: now - 5_000, anyTask: true }, now - 1_000));
        expect(results.filter((r) => r.kind === 'queued')).toHaveLength(1);
        const target = (results.find((r) => r.kind === 'queued') as { wakeup: Wakeup }).wakeup;
        const folds = results.filter((r) => r.kind === 'folded') as { wakeup: Wakeup; into: Wakeup; via: string }[];
        expect(folds).toHaveLength(RACERS - 1);
        expect(folds.every((f) => f.via === 'window' && f.into.id === target.id && f.wakeup.status === 'coalesced')).toBe(true);
        // Each fold answers with the target as it left it: counts 2..RACERS, each once.
        expect(folds.map((f) => f.into.coalesced_count).sort((a, b) => a - b)).toEqual(Array.from({ length: RACERS - 1 }, (_, i) => i + 2));
        const stored = await read((tx) => tx.wakeups.get(target.id));
        expect(stored!.coalesced_count).toBe(RACERS);
        expect((stored!.context_snapshot.wakes as { wakeup_id: string }[]).map((w) => w.wakeup_id).sort())
          .toEqual(results.map((r) => (r as { wakeup: Wakeup }).wakeup.id).sort());
        expect(stored!.workspace_id).toBe(agent.workspace_id);
      });

      it('enqueue-or-fold: the window takes only the same source, first attempts, and (unless any task) the same task', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        await write((tx) => tx.tasks.insert(task));
        const rule = { windowSince: now - 5_000, anyTask: false };
        const results = await write(async (tx) => [
          await tx.wakeups.enqueueOrFold(request(agent, now - 10_000), rule, 0),
          await tx.wakeups.enqueueOrFold(request(agent, now, { source: 'self', payload: { reason: 'x' } }), rule, 0),
          await tx.wakeups.enqueueOrFold(request(agent, now, { task_id: task.id }), rule, 0),
          await tx.wakeups.enqueueOrFold(request(agent, now + 1, { task_id: task.id }), rule, 0),
          await tx.wakeups.enqueueOrFold(request(agent, now + 2), null, 0),
        ]);
        expect(results.map((r) => r.kind)).toEqual(['queued', 'queued', 'queued', 'folded', 'queued']);
      });

      it('enqueue-or-fold: a request bound to its task folds into the oldest queued wakeup of that task, past an older one on another task', async () => {
        const { agent } = await seed();
        const [taskA, taskB] = [taskRow(agent.workspace_id, now), taskRow(agent.workspace_id, now)];
        await write(async (tx) => { await tx.tasks.insert(taskA); await tx.tasks.insert(taskB); });
        const rule = { windowSince: now - 5_000, anyTask: false };
        const onB = await write((tx) => tx.wakeups.enqueueOrFold(request(agent, now, { task_id: taskB.id }), rule, 0));
        const onA = await write((tx) => tx.wakeups.enqueueOrFold(request(agent, now + 1, { task_id: taskA.id }), rule, 0));
        const againOnA = await write((tx) => tx.wakeups.enqueueOrFold(request(agent, now + 2, { task_id: taskA.id }), rule, 0));
        expect([onB.kind, onA.kind]).toEqual(['queued', 'queued']);
        expect(againOnA).toMatchObject({ kind: 'folded', via: 'window', into: { id: (onA as { wakeup: Wakeup }).wakeup.id, coalesced_count: 2 } });
      });

      it('enqueue-or-fold: with no window target, a request folds into a run of the same task that has not started', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const claimed = wakeupRow(agent, now, { status: 'claimed', task_id: task.id, context_snapshot: { wakes: [] } });
        const run = runRow(claimed, now, { context_snapshot: { wakes: [] } });
        await write(async (tx) => {
          await tx.tasks.insert(task);
          await tx.wakeups.insert(claimed);
          // The start records the run on its wakeup (the schema's trigger); the run is still queued.
          expect(await tx.runs.start(run, null)).toBe(true);
        });
        const rule = { windowSince: now - 5_000, anyTask: false };
        const other = await write((tx) => tx.wakeups.enqueueOrFold(request(agent, now + 1), rule, 0));
        const same = await write((tx) => tx.wakeups.enqueueOrFold(request(agent, now + 2, { task_id: task.id }), rule, 0));
        expect(other.kind).toBe('queued');
        expect(same).toMatchObject({ kind: 'folded', via: 'unstarted_run', into: { id: claimed.id, coalesced_count: 2 } });
        expect((same as { wakeup: Wakeup }).wakeup).toMatchObject({ status: 'coalesced', run_id: run.id, coalesced_into_id: claimed.id });
        expect(((await read((tx) => tx.runs.get(run.id)))!.context_snapshot.wakes as unknown[])).toHaveLength(1);
      });

      it('fold-into: stores the request into a target that has not started, and nothing once it has', async () => {
        const { agent } = await seed();
        const target = wakeupRow(agent, now, { context_snapshot: { wakes: [] } });
        const ended = wakeupRow(agent, now, { status: 'finished', context_snapshot: { wakes: [] } });
        await write(async (tx) => { await tx.wakeups.insert(target); await tx.wakeups.insert(ended); });
        const folded = await write((tx) => tx.wakeups.foldInto(request(agent, now + 1), target.id, null));
        expect(folded).toMatchObject({ wakeup: { status: 'coalesced', coalesced_into_id: target.id }, into: { id: target.id, coalesced_count: 2 } });
        const late = request(agent, now + 2);
        expect(await write((tx) => tx.wakeups.foldInto(late, ended.id, null))).toBeNull();
        expect(await read((tx) => tx.wakeups.get(late.id))).toBeUndefined();
      });

      it('unfolds requests folded into a wakeup, except those its session carried', async () => {
        const { agent } = await seed();
        const target = wakeupRow(agent, now, { coalesced_count: 3 });
        const carried = wakeupRow(agent, now, { status: 'coalesced', coalesced_into_id: target.id, finished_at: now });
        const left = wakeupRow(agent, now, { status: 'coalesced', coalesced_into_id: target.id, finished_at: now });
        await write(async (tx) => { for (const w of [target, carried, left]) await tx.wakeups.insert(w); });
        const back = await write((tx) => tx.wakeups.unfold(target.id, [carried.id], now + 5));
        expect(back.map((w) => w.id)).toEqual([left.id]);
        expect(back[0]).toMatchObject({ status: 'queued', coalesced_into_id: null, available_at: now + 5, finished_at: null });
        expect(await read((tx) => tx.wakeups.get(carried.id))).toMatchObject({ status: 'coalesced' });
      });

      it('brings wakeups deferred by a daily cap forward', async () => {
        const { agent } = await seed();
        const deferred = wakeupRow(agent, now, { skip_reason: 'daily_run_cap', available_at: now + 86_400_000 });
        const cooling = wakeupRow(agent, now, { skip_reason: 'cooldown', available_at: now + 60_000 });
        await write(async (tx) => { await tx.wakeups.insert(deferred); await tx.wakeups.insert(cooling); });
        const released = await write((tx) => tx.wakeups.releaseDeferred(agent.id, now + 1));
        expect(released.map((w) => [w.id, w.available_at, w.skip_reason])).toEqual([[deferred.id, now + 1, null]]);
      });

      it('lists, filters and counts wakeups; open ones of a task and pending retries', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        await write((tx) => tx.tasks.insert(task));
        const onTask = wakeupRow(agent, now, { task_id: task.id, source: 'task_assigned', payload: { task_id: task.id } });
        const retry = wakeupRow(agent, now, { task_id: task.id, status: 'scheduled_retry', retry_count: 1 });
        const done = wakeupRow(agent, now, { status: 'finished' });
        await write(async (tx) => { for (const w of [onTask, retry, done]) await tx.wakeups.insert(w); });
        expect((await query((tx) => tx.wakeups.list({ agent_id: agent.id, status: 'finished' }))).map((w) => w.id)).toEqual([done.id]);
        expect((await query((tx) => tx.wakeups.list({ source: 'task_assigned' }))).map((w) => w.id)).toEqual([onTask.id]);
        expect(await query((tx) => tx.wakeups.list({ agent_id: agent.id, limit: 2 }))).toHaveLength(2);
        expect((await read((tx) => tx.wakeups.openForTask(task.id))).map((w) => w.id).sort()).toEqual([onTask.id, retry.id].sort());
        expect(await query((tx) => tx.wakeups.countByStatus())).toMatchObject({ queued: 1, scheduled_retry: 1, finished: 1 });
        expect((await write((tx) => tx.wakeups.cancelRetriesOf(task.id, agent.id, 'retry_stale_assignee', now + 1))).map((w) => w.id)).toEqual([retry.id]);
        expect(await write((tx) => tx.wakeups.cancelRetriesOf(task.id, agent.id, 'retry_stale_assignee', now + 2))).toEqual([]);
        expect(await write((tx) => tx.wakeups.cancelUnclaimedOf(agent.id, 'agent_deleted', now + 3))).toEqual([
          { ...onTask, status: 'cancelled', cancel_reason: 'agent_deleted', finished_at: now + 3 },
        ]);
        expect(await read((tx) => tx.wakeups.get(retry.id))).toMatchObject({ status: 'cancelled', cancel_reason: 'retry_stale_assignee', finished_at: now + 1 });
        expect(await read((tx) => tx.wakeups.get(done.id))).toMatchObject({ status: 'finished' });
      });
    });

    describe('tasks: checkout and release', () => {
      it('of concurrent checkouts by different wakeups, exactly one wins; its holder may check out again', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        await write((tx) => tx.tasks.insert(task));
        const wakeupIds = idsInMintOrder('wk', RACERS);
        const wins = await race(store, RACERS, (tx, i) => tx.tasks.checkout(task.id, agent.id, wakeupIds[i]!, now));
        expect(wins.filter(Boolean)).toHaveLength(1);
        const holder = wakeupIds[wins.indexOf(true)]!;
        expect(await read((tx) => tx.tasks.get(task.id))).toMatchObject({ checkout_agent_id: agent.id, checkout_wakeup_id: holder, checkout_at: now });
        expect(await write((tx) => tx.tasks.checkout(task.id, agent.id, holder, now + 1))).toBe(true);
      });

      it('only the holder releases; the release returns the wakeups parked behind it, oldest first', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const holder = wakeupRow(agent, now, { task_id: task.id });
        // Same millisecond, inserted newest first: the order must come from time and id, not from insertion.
        const [a, b, c] = idsInMintOrder('wk', 3).map((id) => wakeupRow(agent, now + 1, { id, task_id: task.id, waiting_on_checkout: holder.id }));
        const earlier = wakeupRow(agent, now, { task_id: task.id, waiting_on_checkout: holder.id });
        const notParked = wakeupRow(agent, now, { task_id: task.id });
        await write(async (tx) => {
          await tx.tasks.insert(task);
          for (const w of [holder, c!, b!, a!, earlier, notParked]) await tx.wakeups.insert(w);
          await tx.tasks.checkout(task.id, agent.id, holder.id, now);
        });
        expect(await write((tx) => tx.tasks.releaseCheckout(task.id, a!.id))).toBeNull();
        const waiters = await write((tx) => tx.tasks.releaseCheckout(task.id, holder.id));
        expect(waiters).toEqual([earlier, a!, b!, c!].map((w) => ({ id: w.id, agent_id: w.agent_id, available_at: w.available_at })));
        expect(await read((tx) => tx.tasks.get(task.id))).toMatchObject({ checkout_agent_id: null, checkout_wakeup_id: null, checkout_at: null });
        expect(await write((tx) => tx.tasks.releaseCheckout(task.id, holder.id))).toBeNull();
      });

      it('of concurrent releases by the holder, one frees the task and the others find nothing to free', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        await write(async (tx) => { await tx.tasks.insert(task); await tx.tasks.checkout(task.id, agent.id, 'wk_holder', now); });
        const releases = await race(store, RACERS, (tx) => tx.tasks.releaseCheckout(task.id, 'wk_holder'));
        expect(releases.filter((r) => r !== null)).toEqual([[]]);
      });
    });

    describe('tasks: the rest', () => {
      it('stores a task with its blockers and reviewers in the order given (not by id)', async () => {
        const { agent } = await seed();
        const ws = agent.workspace_id;
        const [b2, b1] = [taskRow(ws, now), taskRow(ws, now)];
        const reviewer = agentRow(ws, now);
        const task = taskRow(ws, now, { blocked_by: [b1!.id, b2!.id], reviewers: [reviewer.id, agent.id], assignee_agent_instance_id: agent.id });
        await write(async (tx) => {
          await tx.agents.insert(reviewer);
          await tx.tasks.insert(b2!);
          await tx.tasks.insert(b1!);
          await tx.tasks.insert(task);
        });
        expect(await read((tx) => tx.tasks.get(task.id))).toEqual(task);
        expect((await read((tx) => tx.tasks.list({ workspace_id: ws, assignee: agent.id })))[0]).toEqual(task);
        await write((tx) => tx.tasks.setBlockers(task.id, [b1!.id]));
        await write((tx) => tx.tasks.setReviewers(task.id, [agent.id]));
        expect(await read((tx) => tx.tasks.get(task.id))).toMatchObject({ blocked_by: [b1!.id], reviewers: [agent.id] });
        expect((await read((tx) => tx.tasks.dependentsOf(b1!.id))).map((t) => t.id)).toEqual([task.id]);
        expect(await read((tx) => tx.tasks.openBlockers(task.id))).toEqual([b1!.id]);
        expect(await write((tx) => tx.tasks.move(b1!.id, 'TODO', 'DONE', now))).toMatchObject({ state: 'DONE', completed_at: now });
        expect(await read((tx) => tx.tasks.openBlockers(task.id))).toEqual([]);
      });

      it('lists children, counts actionable work and states, and unassigns an agent\'s open tasks', async () => {
        const { agent } = await seed();
        const ws = agent.workspace_id;
        const parent = taskRow(ws, now, { assignee_agent_instance_id: agent.id });
        const child = taskRow(ws, now, { parent_id: parent.id, assignee_agent_instance_id: agent.id, state: 'IN_PROGRESS' });
        const done = taskRow(ws, now, { assignee_agent_instance_id: agent.id, state: 'DONE' });
        const routine = taskRow(ws, now, { workflow: 'routine', origin: 'routine' });
        await write(async (tx) => { for (const t of [parent, child, done, routine]) await tx.tasks.insert(t); });
        expect((await read((tx) => tx.tasks.children(parent.id))).map((t) => t.id)).toEqual([child.id]);
        expect(await read((tx) => tx.tasks.countActionable(agent.id))).toBe(2);
        expect(await read((tx) => tx.tasks.countByStateIn(ws, now))).toEqual({ TODO: 2, IN_PROGRESS: 1, DONE: 1 });
        expect((await read((tx) => tx.tasks.list({ workspace_id: ws }))).map((t) => t.id)).not.toContain(routine.id);
        expect((await read((tx) => tx.tasks.list({ workspace_id: ws, include_routine: true })))).toHaveLength(4);
        const cleared = await write((tx) => tx.tasks.unassignOpen(agent.id, now + 1));
        expect(cleared.map((t) => t.id).sort()).toEqual([parent.id, child.id].sort());
        expect(await read((tx) => tx.tasks.get(done.id))).toMatchObject({ assignee_agent_instance_id: agent.id });
      });

      it('offers the recovery sweep an assigned TODO task with no wakeup since its assignment', async () => {
        const { agent } = await seed();
        const ws = agent.workspace_id;
        const forgotten = taskRow(ws, now, { assignee_agent_instance_id: agent.id, assigned_at: now });
        const handled = taskRow(ws, now, { assignee_agent_instance_id: agent.id, assigned_at: now });
        await write(async (tx) => {
          await tx.tasks.insert(forgotten);
          await tx.tasks.insert(handled);
          await tx.wakeups.insert(wakeupRow(agent, now, { task_id: handled.id }));
        });
        expect((await read((tx) => tx.tasks.recoveryCandidates(now - 1, ws))).map((t) => t.id)).toEqual([forgotten.id]);
        expect((await read((tx) => tx.tasks.recoveryCandidates(now - 1, ws, agent.id))).map((t) => t.id)).toEqual([forgotten.id]);
      });

      it('comments list oldest first, and approvals resolve once under concurrent callers', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const [first, second] = idsInMintOrder('cmt', 2).map((id) => commentRow(task, now, { id }));
        const approval = approvalRow(agent, task.id, now);
        await write(async (tx) => {
          await tx.tasks.insert(task);
          await tx.comments.insert(second!);
          await tx.comments.insert(first!);
          await tx.approvals.insert(approval);
        });
        expect((await query((tx) => tx.comments.listByTask(task.id))).map((c) => c.id)).toEqual([first!.id, second!.id]);
        expect(await query((tx) => tx.comments.listByTask(task.id, now))).toEqual([]);
        expect(await read((tx) => tx.comments.get(first!.id))).toEqual(first);
        expect(await read((tx) => tx.approvals.pendingForTask(task.id))).toEqual(approval);
        const resolved = await race(store, RACERS, (tx, i) => tx.approvals.resolve(approval.id, i % 2 ? 'approved' : 'rejected', null, now + 1));
        expect(resolved.filter(Boolean)).toHaveLength(1);
        expect(await read((tx) => tx.approvals.pendingForTask(task.id))).toBeUndefined();
      });

      it('a task has one pending approval: of racing inserts one is stored and the others get it back; once it is decided a new one may wait', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        await write((tx) => tx.tasks.insert(task));
        const asked = Array.from({ length: RACERS }, (_, i) => approvalRow(agent, task.id, now + i));
        const results = await race(store, RACERS, (tx, i) => tx.approvals.insertPending(asked[i]!));
        const winners = results.filter((r) => r.created);
        expect(winners).toHaveLength(1);
        for (const result of results) expect(result.approval).toEqual(winners[0]!.approval);
        expect(await s.inspect.count('approvals', { task_id: task.id })).toBe(1);
        await write((tx) => tx.approvals.resolve(winners[0]!.approval.id, 'rejected', null, now + 50));
        expect((await write((tx) => tx.approvals.insertPending(approvalRow(agent, task.id, now + 60)))).created).toBe(true);
        // Approvals about no task never meet each other.
        const loose = await race(store, 2, (tx) => tx.approvals.insertPending(approvalRow(agent, null, now)));
        expect(loose.every((r) => r.created)).toBe(true);
      });
    });

    describe('runs', () => {
      it('a queued run holds its task and its agent; it starts once, and never after a cancel closed it; its end from queued frees both', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const [first, second] = [0, 1].map((i) => wakeupRow(agent, now + i, { task_id: task.id, status: 'claimed' }));
        const [queued, cancelled] = [first!, second!].map((w) => runRow(w, now, { status: 'queued', started_at: null }));
        const fence = await write(async (tx) => {
          await tx.tasks.insert(task);
          await tx.wakeups.insert(first!);
          await tx.wakeups.insert(second!);
          return lease(tx, agent.id);
        });
        expect(await write((tx) => tx.runs.start(queued!, null))).toBe(true);
        expect(await read((tx) => tx.tasks.get(task.id))).toMatchObject({ checkout_wakeup_id: first!.id });
        expect(await read((tx) => tx.agents.get(agent.id))).toMatchObject({ status: 'working' });
        expect(await write((tx) => tx.runs.markStarted(queued!.id, now + 5))).toBe(true);
        expect(await write((tx) => tx.runs.markStarted(queued!.id, now + 6))).toBe(false);
        expect(await read((tx) => tx.runs.get(queued!.id))).toMatchObject({ status: 'running', started_at: now + 5 });
        await write((tx) => tx.runs.close(queued!.id, { status: 'succeeded', result_json: {}, error: null, cost_usd: null, finished_at: now + 7 }, null, fence));

        expect(await write((tx) => tx.runs.start(cancelled!, null))).toBe(true);
        const closed = await write((tx) => tx.runs.close(cancelled!.id, { status: 'cancelled', result_json: {}, error: 'cancelled', cost_usd: null, finished_at: now + 8 }, null, fence));
        expect(closed.closed).toBe(true);
        expect(await write((tx) => tx.runs.markStarted(cancelled!.id, now + 9))).toBe(false);
        expect(await read((tx) => tx.tasks.get(task.id))).toMatchObject({ checkout_wakeup_id: null });
        expect(await read((tx) => tx.agents.get(agent.id))).toMatchObject({ status: 'idle', last_wakeup_finished_at: now + 8 });
        expect(await read((tx) => tx.runs.cancelledAmong([queued!.id, cancelled!.id, 'run_unknown']))).toEqual([cancelled!.id]);
      });

      it('a late spend is recorded on a cancelled or interrupted run once, and the ledger takes a run\'s cost once', async () => {
        const { agent, workspace } = await seed();
        const wakeup = wakeupRow(agent, now);
        const run = runRow(wakeup, now, { status: 'cancelled', finished_at: now, cost_usd: null });
        const liveWakeup = wakeupRow(agent, now);
        const live = runRow(liveWakeup, now, { status: 'running' });
        await write(async (tx) => {
          for (const w of [wakeup, liveWakeup]) await tx.wakeups.insert(w);
          await tx.runs.insert(run, null);
          await tx.runs.insert(live, null);
        });
        expect(await write((tx) => tx.runs.recordLateSpend(run.id, { cost_usd: 7.5, usage: { input_tokens: 3, output_tokens: 2, cached_input_tokens: 1 } }))).toBe(true);
        expect(await write((tx) => tx.runs.recordLateSpend(run.id, { cost_usd: 9, usage: null }))).toBe(false);
        expect(await read((tx) => tx.runs.get(run.id))).toMatchObject({ cost_usd: 7.5, usage: { input_tokens: 3, output_tokens: 2, cached_input_tokens: 1 } });
        expect(await write((tx) => tx.runs.recordLateSpend(live.id, { cost_usd: 1, usage: null }))).toBe(false);
        const entry = { workspace_id: workspace.id, project_id: null, agent_id: agent.id, run_id: run.id, cost_usd: 7.5, created_at: now };
        await write((tx) => tx.budgets.recordCost(entry));
        await write((tx) => tx.budgets.recordCost({ ...entry, cost_usd: 7.5 }));
        expect(await read((tx) => tx.runs.costSince(agent.id, 0))).toBe(7.5);
      });

      it('stores a run, finds it by token hash, and forgets the token when the run closes', async () => {
        const { agent } = await seed();
        const wakeup = wakeupRow(agent, now);
        const run = runRow(wakeup, now, { context_snapshot: { wakes: [] }, status: 'running', started_at: now });
        await write(async (tx) => { await tx.wakeups.insert(wakeup); await tx.runs.insert(run, 'hash-1'); });
        expect(await read((tx) => tx.runs.get(run.id))).toMatchObject(run);
        expect((await query((tx) => tx.runs.byTokenHash('hash-1')))?.id).toBe(run.id);
        expect(await read((tx) => tx.runs.get(run.id))).not.toHaveProperty('run_token_hash');
        const closed = await write(async (tx) => tx.runs.close(run.id,
          { status: 'succeeded', result_json: { ok: true }, error: null, cost_usd: 0.5, finished_at: now + 10 }, null, await lease(tx, agent.id)));
        expect(closed).toEqual({ closed: true, madeProgress: null, checkoutWaiters: null });
        expect(await query((tx) => tx.runs.byTokenHash('hash-1'))).toBeUndefined();
        expect(await read((tx) => tx.runs.get(run.id))).toMatchObject({ status: 'succeeded', result_json: { ok: true }, cost_usd: 0.5, finished_at: now + 10 });
      });

      it('a run that starts makes its agent work; its end frees the agent (cooldown from its end) and its task, answering the parked wakeups oldest first', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const wakeup = wakeupRow(agent, now, { task_id: task.id, status: 'claimed' });
        const parked = idsInMintOrder('wk', 3).map((id) => wakeupRow(agent, now + 1, { id, task_id: task.id, waiting_on_checkout: wakeup.id }));
        const run = runRow(wakeup, now, { status: 'running', started_at: now });
        await write(async (tx) => {
          await tx.tasks.insert(task);
          for (const w of [wakeup, ...[...parked].reverse()]) await tx.wakeups.insert(w);
          await tx.tasks.checkout(task.id, agent.id, wakeup.id, now);
          await tx.runs.insert(run, null);
        });
        expect(await read((tx) => tx.agents.get(agent.id))).toMatchObject({ status: 'working' });
        const closed = await write(async (tx) => tx.runs.close(run.id,
          { status: 'failed', result_json: {}, error: 'boom', cost_usd: null, finished_at: now + 9 }, null, await lease(tx, agent.id)));
        expect(closed.checkoutWaiters).toEqual(parked.map((w) => ({ id: w.id, agent_id: w.agent_id, available_at: w.available_at })));
        expect(await read((tx) => tx.agents.get(agent.id))).toMatchObject({ status: 'idle', last_wakeup_finished_at: now + 9 });
        expect(await read((tx) => tx.tasks.get(task.id))).toMatchObject({ checkout_wakeup_id: null });
      });

      it('of runs started concurrently for different wakeups on one task, exactly one starts: it takes the checkout and the agent works', async () => {
        const { agent } = await seed({ max_concurrent_sessions: RACERS });
        const task = taskRow(agent.workspace_id, now);
        const wakeups = Array.from({ length: RACERS }, () => wakeupRow(agent, now, { task_id: task.id, status: 'claimed' }));
        await write(async (tx) => { await tx.tasks.insert(task); for (const w of wakeups) await tx.wakeups.insert(w); });
        const started = await race(store, RACERS, (tx, i) => tx.runs.start(runRow(wakeups[i]!, now, { status: 'running', started_at: now }), null));
        expect(started.filter(Boolean)).toHaveLength(1);
        const winner = wakeups[started.indexOf(true)]!;
        expect(await read((tx) => tx.tasks.get(task.id))).toMatchObject({ checkout_wakeup_id: winner.id, checkout_agent_id: agent.id });
        expect(await read((tx) => tx.runs.list({ task_id: task.id }))).toHaveLength(1);
        const [run] = await read((tx) => tx.runs.list({ task_id: task.id }));
        expect(await read((tx) => tx.wakeups.get(winner.id))).toMatchObject({ run_id: run!.id });
        expect(await read((tx) => tx.agents.get(agent.id))).toMatchObject({ status: 'working' });
        // The holder's next attempt starts on the checkout it holds.
        expect(await write((tx) => tx.runs.start(runRow(winner, now + 1, { attempt: 2, status: 'running', started_at: now + 1 }), null))).toBe(true);
      });

      it('one run per attempt of a wakeup: of concurrent inserts of the same attempt, one is stored', async () => {
        const { agent } = await seed();
        const wakeup = wakeupRow(agent, now);
        await write((tx) => tx.wakeups.insert(wakeup));
        const outcomes = await Promise.allSettled(Array.from({ length: RACERS }, () => write((tx) => tx.runs.insert(runRow(wakeup, now), null))));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        expect(await read((tx) => tx.runs.attemptsOf(wakeup.id))).toBe(1);
      });

      it('a close asked about progress records whether the run changed its task, and answers in the same call', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const wakeup = wakeupRow(agent, now, { task_id: task.id });
        const idle = runRow(wakeup, now, { status: 'running' });
        const busy = runRow(wakeup, now, { attempt: 2, status: 'running' });
        await write(async (tx) => {
          await tx.tasks.insert(task);
          await tx.wakeups.insert(wakeup);
          for (const r of [idle, busy]) await tx.runs.insert(r, null);
        });
        const ended = { status: 'succeeded' as const, result_json: {}, error: null, cost_usd: null, finished_at: now + 3 };
        const fence = await write((tx) => lease(tx, agent.id));
        expect((await write((tx) => tx.runs.close(idle.id, ended, { taskId: task.id, since: now + 1 }, fence))).madeProgress).toBe(false);
        await write((tx) => tx.comments.insert(commentRow(task, now + 2)));
        expect((await write((tx) => tx.runs.close(busy.id, ended, { taskId: task.id, since: now + 1 }, fence))).madeProgress).toBe(true);
        expect((await read((tx) => tx.runs.get(idle.id)))!.made_progress).toBe(false);
        expect((await read((tx) => tx.runs.get(busy.id)))!.made_progress).toBe(true);
      });

      it('answers the pipeline\'s questions: last finished, unfinished, started since, recent for a task, cost, counts', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const wakeup = wakeupRow(agent, now, { task_id: task.id });
        const [older, newer] = idsInMintOrder('run', 2);
        const first = runRow(wakeup, now, { id: older!, status: 'succeeded', started_at: now, finished_at: now });
        const second = runRow(wakeup, now, { id: newer!, attempt: 2, status: 'failed', started_at: now, finished_at: now });
        const open = runRow(wakeup, now, { attempt: 3, status: 'running', started_at: now });
        await write(async (tx) => {
          await tx.tasks.insert(task);
          await tx.wakeups.insert(wakeup);
          for (const r of [second, first, open]) await tx.runs.insert(r, null);
          await tx.budgets.recordCost({ workspace_id: agent.workspace_id, project_id: null, agent_id: agent.id, run_id: first.id, cost_usd: 1.25, created_at: now });
        });
        expect((await read((tx) => tx.runs.lastFinishedFor(agent.id, task.id)))?.id).toBe(second.id);
        expect((await read((tx) => tx.runs.recentForTask(agent.id, task.id, 5))).map((r) => r.id)).toEqual([first.id]);
        expect(await read((tx) => tx.runs.countStartedSince(agent.id, now))).toBe(3);
        expect(await read((tx) => tx.runs.costSince(agent.id, now))).toBe(1.25);
        expect(await query((tx) => tx.runs.countByStatus())).toEqual({ succeeded: 1, failed: 1, running: 1 });
        expect((await read((tx) => tx.runs.list({ wakeup_id: wakeup.id, status: 'running' }))).map((r) => r.id)).toEqual([open.id]);
        expect(await write((tx) => tx.runs.recordSession(open.id, { session_pid: 42, session_pgid: 42, session_start_time: 'start' }))).toBe(true);
        expect(await write((tx) => tx.runs.recordSession(open.id, { session_pid: 43, session_pgid: 43, session_start_time: 'later' }))).toBe(false);
        expect(await read((tx) => tx.runs.get(open.id))).toMatchObject({ session_pid: 42, session_start_time: 'start' });
      });
    });

    describe('routines: tick claims and run dedup', () => {
      async function seedTrigger(patch = {}) {
        const { agent } = await seed();
        const routine = routineRow(agent, now);
        const trigger = triggerRow(routine.id, now, { next_run_at: now, ...patch });
        await write(async (tx) => { await tx.routines.insert(routine); await tx.routines.insertTrigger(trigger); });
        return { agent, routine, trigger };
      }

      it('a tick fires once under concurrent callers: only one moves next_run_at from the tick it saw', async () => {
        const { trigger } = await seedTrigger();
        const claims = await race(store, RACERS, (tx) => tx.routines.claimTick(trigger.id, now, now + 3_600_000, now + 5));
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(await read((tx) => tx.routines.getTrigger(trigger.id))).toMatchObject({ next_run_at: now + 3_600_000, last_fired_at: now + 5 });
        expect(await write((tx) => tx.routines.claimTick(trigger.id, now, now + 7_200_000, now + 6))).toBe(false);
      });

      it('a batch of ticks claimed by concurrent callers: each tick claimed and its run recorded exactly once', async () => {
        const { agent } = await seed();
        const routine = routineRow(agent, now);
        const triggers = Array.from({ length: 5 }, () => triggerRow(routine.id, now, { next_run_at: now }));
        await write(async (tx) => { await tx.routines.insert(routine); for (const t of triggers) await tx.routines.insertTrigger(t); });
        const claims = () => triggers.map((t) => ({
          triggerId: t.id, expectedNextRunAt: now, nextRunAt: now + 60_000,
          run: routineRunRow(routine, now, { trigger_id: t.id, source: 'cron', scheduled_for: now, status: 'dispatched' }),
        }));
        const won = (await race(store, 4, (tx) => tx.routines.claimTicks(claims(), now + 1))).flat();
        expect(won.map((w) => w.triggerId).sort()).toEqual(triggers.map((t) => t.id).sort());
        expect(won.every((w) => w.recorded)).toBe(true);
        expect(await query((tx) => tx.routines.runsOf(routine.id, 100))).toHaveLength(triggers.length);
        for (const t of triggers) expect((await read((tx) => tx.routines.getTrigger(t.id)))!.next_run_at).toBe(now + 60_000);
      });

      it('routine-run cap slots: concurrent takers get exactly the cap, and a settled run gives its slot back', async () => {
        const { agent } = await seed();
        const routine = routineRow(agent, now);
        const runs = Array.from({ length: RACERS }, () => routineRunRow(routine, now, { status: 'dispatched' }));
        await write(async (tx) => { await tx.routines.insert(routine); for (const r of runs) await tx.routines.insertRun(r); });
        const taken = await race(store, RACERS, (tx, i) => tx.routines.takeRunSlot(runs[i]!.id, agent.id, { deployment: 100, agent: 3 }));
        expect(taken.filter(Boolean)).toHaveLength(3);
        expect(await read((tx) => tx.routines.countActiveRuns({ agent_id: agent.id }))).toBe(3);
        expect(await read((tx) => tx.routines.countActiveRuns({}))).toBe(3);
        const holder = runs[taken.indexOf(true)]!;
        await write((tx) => tx.routines.settleRun(holder.id, { outcome: 'succeeded', completed_at: now + 1 }));
        expect(await write((tx) => tx.routines.settleRun(holder.id, { outcome: 'failed', completed_at: now + 2 }))).toBeUndefined();
        expect(await read((tx) => tx.routines.countActiveRuns({ agent_id: agent.id }))).toBe(2);
        const waiting = runs[taken.indexOf(false)]!;
        expect(await write((tx) => tx.routines.takeRunSlot(waiting.id, agent.id, { deployment: 100, agent: 3 }))).toBe(true);
        expect(await write((tx) => tx.routines.releaseRunSlot(waiting.id))).toBe(true);
        expect(await write((tx) => tx.routines.releaseRunSlot(waiting.id))).toBe(false);
      });

      it('routine-run cap slots in batches: concurrent batches never hold more than the deployment cap or an agent\'s cap', async () => {
        const { agent, workspace } = await seed({ max_concurrent_routine_runs: 3 });
        const other = agentRow(workspace.id, now);
        const routine = routineRow(agent, now);
        const otherRoutine = routineRow(other, now);
        const runs = Array.from({ length: 12 }, (_, i) => routineRunRow(i % 2 ? routine : otherRoutine, now, { status: 'dispatched' }));
        await write(async (tx) => {
          await tx.agents.insert(other);
          for (const r of [routine, otherRoutine]) await tx.routines.insert(r);
          for (const r of runs) await tx.routines.insertRun(r);
        });
        const batch = (i: number) => runs.slice(i * 3, i * 3 + 3).map((r) => ({ runId: r.id, agentId: r.routine_id === routine.id ? agent.id : other.id }));
        const granted = (await race(store, 4, (tx, i) => tx.routines.takeRunSlots(batch(i), 7))).flatMap((set) => [...set]);
        expect(granted.length).toBeLessThanOrEqual(7);
        const held = granted.filter((id) => runs.find((r) => r.id === id)!.routine_id === routine.id);
        expect(held.length).toBeLessThanOrEqual(3);
        expect(await read((tx) => tx.routines.countActiveRuns({}))).toBe(granted.length);
        expect(await read((tx) => tx.routines.countActiveRuns({ agent_id: agent.id }))).toBe(held.length);
        expect(new Set(granted).size).toBe(granted.length);
      });

      it('reads schedule triggers with their routines by id, and updates a run\'s status and links', async () => {
        const { trigger, routine } = await seedTrigger();
        expect((await read((tx) => tx.routines.scheduleTriggers([trigger.id, 'trg_missing']))).map((l) => [l.trigger.id, l.routine.id]))
          .toEqual([[trigger.id, routine.id]]);
        const run = routineRunRow(routine, now);
        await write((tx) => tx.routines.insertRun(run));
        expect(await write((tx) => tx.routines.routeRun(run.id, { status: 'skipped', skip_reason: 'active_run' }))).toBe(true);
        expect(await write((tx) => tx.routines.routeRun(run.id, { status: 'dispatched' }))).toBe(false);
        expect(await read((tx) => tx.routines.getRun(run.id))).toEqual({ ...run, status: 'skipped', skip_reason: 'active_run' });
      });

      it('a routine run is recorded once per (trigger, scheduled tick), whoever inserts it', async () => {
        const { routine, trigger } = await seedTrigger();
        const inserted = await race(store, RACERS, (tx) =>
          tx.routines.insertRun(routineRunRow(routine, now, { trigger_id: trigger.id, source: 'cron', scheduled_for: now })));
        expect(inserted.filter(Boolean)).toHaveLength(1);
        expect(await query((tx) => tx.routines.runsOf(routine.id, 10))).toHaveLength(1);
      });

      it('a routine run is recorded once per (trigger, delivery id) until the delivery is retired', async () => {
        const { routine, trigger } = await seedTrigger({ kind: 'webhook', public_id: 'pub_1', next_run_at: null });
        const delivery = (at: number) => routineRunRow(routine, at, { trigger_id: trigger.id, source: 'webhook', delivery_id: 'dlv-1' });
        const inserted = await race(store, RACERS, (tx) => tx.routines.insertRun(delivery(now)));
        expect(inserted.filter(Boolean)).toHaveLength(1);
        await write((tx) => tx.routines.retireDeliveryBefore(trigger.id, 'dlv-1', now - 1));
        expect(await read((tx) => tx.routines.runByDelivery(trigger.id, 'dlv-1'))).toBeDefined();
        await write((tx) => tx.routines.retireDeliveryBefore(trigger.id, 'dlv-1', now));
        expect(await read((tx) => tx.routines.runByDelivery(trigger.id, 'dlv-1'))).toBeUndefined();
        expect(await write((tx) => tx.routines.insertRun(delivery(now + 1)))).toBe(true);
        expect((await query((tx) => tx.routines.triggerByPublicId('pub_1')))?.id).toBe(trigger.id);
      });

      it('lists runs newest first and open runs oldest first, with ties in the same millisecond broken by id', async () => {
        const { routine } = await seedTrigger();
        const [a, b, c] = idsInMintOrder('rrn', 3).map((id) => routineRunRow(routine, now, { id, status: 'dispatched' }));
        await write(async (tx) => { for (const r of [c!, a!, b!]) await tx.routines.insertRun(r); });
        expect((await read((tx) => tx.routines.openRunsOf(routine.id))).map((r) => r.id)).toEqual([a!.id, b!.id, c!.id]);
        expect((await query((tx) => tx.routines.runsOf(routine.id, 10))).map((r) => r.id)).toEqual([c!.id, b!.id, a!.id]);
        expect(await write((tx) => tx.routines.settleRun(a!.id, { outcome: 'succeeded', completed_at: now + 1 }))).toMatchObject({ outcome: 'succeeded' });
        expect((await read((tx) => tx.routines.openRunsOf(routine.id))).map((r) => r.id)).toEqual([b!.id, c!.id]);
      });

      it('finds the active runs of a fingerprint: a heavy one by its open task, a light one by its open wakeup', async () => {
        const { agent, routine } = await seedTrigger();
        const task = taskRow(agent.workspace_id, now, { workflow: 'routine', origin: 'routine', origin_id: routine.id });
        const wakeup = wakeupRow(agent, now);
        const heavy = routineRunRow(routine, now, { status: 'task_created', linked_task_id: task.id });
        const light = routineRunRow(routine, now + 1, { status: 'dispatched', linked_wakeup_id: wakeup.id });
        const assignment = wakeupRow(agent, now, { task_id: task.id, source: 'task_assigned', payload: { task_id: task.id } });
        await write(async (tx) => {
          await tx.tasks.insert(task);
          for (const w of [wakeup, assignment]) await tx.wakeups.insert(w);
          for (const r of [heavy, light]) await tx.routines.insertRun(r);
        });
        expect((await read((tx) => tx.routines.activeRuns(routine.id, 'default'))).map((r) => r.id)).toEqual([heavy.id, light.id]);
        expect((await read((tx) => tx.routines.runByTask(task.id)))?.id).toBe(heavy.id);
        expect(await read((tx) => tx.routines.assignmentWakeupIdOf(task.id))).toBe(assignment.id);
        const fence = await write((tx) => lease(tx, agent.id));
        await write((tx) => tx.wakeups.claim(wakeup.id, now, fence));
        expect(await write((tx) => tx.wakeups.endClaimed(wakeup.id, { status: 'finished', finished_at: now }))).toMatchObject({ status: 'finished' });
        expect((await read((tx) => tx.routines.activeRuns(routine.id, 'default'))).map((r) => r.id)).toEqual([heavy.id]);
      });

      it('stores routines and triggers, lists the live schedule triggers, and archives out of the lists', async () => {
        const { agent, routine, trigger } = await seedTrigger();
        expect(await read((tx) => tx.routines.get(routine.id))).toEqual(routine);
        expect(await read((tx) => tx.routines.getTrigger(trigger.id))).toEqual(trigger);
        expect(await read((tx) => tx.routines.triggersOf(routine.id))).toEqual([trigger]);
        expect((await read((tx) => tx.routines.liveScheduleTriggers())).map((l) => l.trigger.id)).toEqual([trigger.id]);
        expect(await write((tx) => tx.routines.editTrigger(trigger.id, { enabled: false }))).toEqual({ ...trigger, enabled: false });
        expect(await read((tx) => tx.routines.liveScheduleTriggers())).toEqual([]);
        expect(await write((tx) => tx.routines.archive(routine.id, now + 1))).toMatchObject({ status: 'archived', updated_at: now + 1 });
        expect(await write((tx) => tx.routines.archive(routine.id, now + 2))).toBeUndefined();
        expect(await write((tx) => tx.routines.editTrigger(trigger.id, { enabled: true }))).toBeUndefined();
        expect(await write((tx) => tx.routines.edit(routine.id, { name: 'Renamed' }))).toBeUndefined();
        expect(await read((tx) => tx.routines.getTrigger(trigger.id))).toMatchObject({ enabled: false, next_run_at: null });
        expect(await read((tx) => tx.routines.list({ assignee: agent.id }))).toEqual([]);
        expect(await read((tx) => tx.routines.list({ assignee: agent.id, include_archived: true }))).toHaveLength(1);
        await write((tx) => tx.routines.deleteTrigger(trigger.id));
        expect(await read((tx) => tx.routines.triggersOf(routine.id))).toEqual([]);
      });
    });

    describe('outbox', () => {
      /** What a replacement owner takes at boot: everything undelivered, whoever claimed it. */
      const takeOver = (owner = 'owner-next') => write((tx) => tx.outbox.take(owner, { limit: 100, now, claimUntil: null, takeOver: true }));
      const created = (i: number | string) => ({ agent_id: `agt_${i}`, workspace_id: 'ws_1', role: 'worker' });

      it('an emitted event is delivered after commit and left in the outbox until removed; a rolled-back one never exists', async () => {
        await write(async (tx) => { tx.emit('agent.created', created(1)); });
        await expect(write(async (tx) => {
          tx.emit('agent.created', created(2));
          throw new Error('rolled back');
        })).rejects.toThrow('rolled back');
        expect(s.published.map((e) => e.payload)).toEqual([created(1)]);
        const taken = await takeOver();
        expect(taken.map((e) => [e.type, e.payload, e.at])).toEqual([['agent.created', created(1), now]]);
        expect(taken[0]!.id).toBe(s.published[0]!.id);
        await write((tx) => tx.outbox.remove(taken.map((e) => e.id)));
        expect(await takeOver('owner-third')).toEqual([]);
      });

      it('takes oldest first, in batches; concurrent takers never get the same event; a parked event is never taken', async () => {
        await race(store, 6, async (tx, i) => { tx.emit('agent.created', created(i)); });
        // Oldest first is by id: concurrent transactions may commit, and so publish, in another order.
        const published = s.published.map((e) => e.id).sort((a, b) => a - b);
        const batches = await race(store, 3, (tx, i) => tx.outbox.take(`owner-${i}`, { limit: 2, now, claimUntil: now + 60_000, takeOver: false }));
        for (const batch of batches) expect(batch.map((e) => e.id)).toEqual([...batch.map((e) => e.id)].sort((a, b) => a - b));
        // A racing take may come back short (PostgreSQL skips a row another taker claimed under it):
        // what none of them took is left for the next taker, and no event is ever taken twice.
        const rest = await write((tx) => tx.outbox.take('owner-9', { limit: 10, now: now + 1, claimUntil: now + 60_000, takeOver: false }));
        const taken = [...batches.flat(), ...rest].map((e) => e.id);
        expect(taken.sort((a, b) => a - b)).toEqual([...published].sort((a, b) => a - b));
        expect(await write((tx) => tx.outbox.take('owner-9', { limit: 10, now: now + 2, claimUntil: null, takeOver: false }))).toEqual([]);
        // Claims expire: once they have, anyone takes the events again, oldest first.
        await write((tx) => tx.outbox.park(published[0]!, 'poisoned', now));
        const again = await write((tx) => tx.outbox.take('owner-9', { limit: 10, now: now + 60_000, claimUntil: null, takeOver: false }));
        expect(again.map((e) => e.id)).toEqual(published.slice(1));
      });
    });

    describe('snapshots', () => {
      it('saves (insert or replace), reads one or all of a kind its owner holds, and deletes', async () => {
        const { agent } = await seed();
        const { agent: other } = await seed();
        await write(async (tx) => {
          await lease(tx, agent.id);
          await tx.leases.take(other.id, 'owner-other', null);
          await tx.snapshots.save([
            { actor_id: agent.id, kind: 'agent', snapshot: { value: 'idle' } },
            { actor_id: other.id, kind: 'agent', snapshot: { value: 'idle' } },
          ], now);
        });
        await write((tx) => tx.snapshots.save([{ actor_id: agent.id, kind: 'agent', snapshot: { value: 'cooling' } }], now + 1));
        expect(await read((tx) => tx.snapshots.get(agent.id))).toEqual({ value: 'cooling' });
        expect([...(await read((tx) => tx.snapshots.all('agent', OWNER))).entries()]).toEqual([[agent.id, { value: 'cooling' }]]);
        await write((tx) => tx.snapshots.delete(agent.id));
        expect(await read((tx) => tx.snapshots.get(agent.id))).toBeUndefined();
      });

      it('snapshots survive a restart of the store', async () => {
        await write((tx) => tx.snapshots.save([{ actor_id: 'agt_a', kind: 'agent', snapshot: { value: 'idle' } }], now));
        s = await s.reopen();
        store = s.store;
        expect(await read((tx) => tx.snapshots.get('agt_a'))).toEqual({ value: 'idle' });
      });
    });

    describe('budgets', () => {
      it('an alert is marked sent once per (budget, period, threshold), under concurrent callers', async () => {
        const { workspace } = await seed();
        const budget = budgetRow(workspace.id, now);
        await write((tx) => tx.budgets.insert(budget));
        const marks = await race(store, RACERS, (tx) => tx.budgets.markAlertSent(budget.id, '2026-01', 80, now));
        expect(marks.filter(Boolean)).toHaveLength(1);
        expect(await write((tx) => tx.budgets.markAlertSent(budget.id, '2026-02', 80, now))).toBe(true);
        expect(await write((tx) => tx.budgets.markAlertSent(budget.id, '2026-01', 100, now))).toBe(true);
      });

      it('spend sums the recorded costs of a scope since a time; budgets are found by scope', async () => {
        const { workspace, agent } = await seed();
        const project = projectRow(workspace.id, now);
        const onAgent = budgetRow(workspace.id, now, { scope: 'agent', scope_id: agent.id });
        const onWorkspace = budgetRow(workspace.id, now);
        await write(async (tx) => {
          await tx.projects.insert(project);
          for (const b of [onAgent, onWorkspace]) await tx.budgets.insert(b);
          const cost = { workspace_id: workspace.id, project_id: project.id, agent_id: agent.id };
          await tx.budgets.recordCost({ ...cost, run_id: 'run_1', cost_usd: 2, created_at: now - 1 });
          await tx.budgets.recordCost({ ...cost, run_id: 'run_2', cost_usd: 3, created_at: now });
          await tx.budgets.recordCost({ ...cost, run_id: 'run_3', cost_usd: 4, created_at: now + 1 });
        });
        expect(await read((tx) => tx.budgets.spend('agent', agent.id, now))).toBe(7);
        expect(await read((tx) => tx.budgets.spend('project', project.id, now - 1))).toBe(9);
        expect(await read((tx) => tx.budgets.spend('workspace', workspace.id, now + 2))).toBe(0);
        expect((await read((tx) => tx.budgets.forScopes([{ scope: 'agent', scope_id: agent.id }]))).map((b) => b.id)).toEqual([onAgent.id]);
        expect((await read((tx) => tx.budgets.list(workspace.id))).map((b) => b.id).sort()).toEqual([onAgent.id, onWorkspace.id].sort());
        expect(await read((tx) => tx.budgets.get(onAgent.id))).toEqual(onAgent);
      });
    });

    describe('transitions: each changes its row only from the state it expects, and says when it did not', () => {
      it('agents: pause, resume, stop and delete, each refused from the wrong status or once deleted', async () => {
        const { agent } = await seed();
        expect(await write((tx) => tx.agents.resume(agent.id, now))).toBeUndefined();
        expect(await write((tx) => tx.agents.pause(agent.id, 'first', now + 1))).toMatchObject({ status: 'paused', paused_reason: 'first', updated_at: now + 1 });
        expect(await write((tx) => tx.agents.pause(agent.id, 'second', now + 2))).toBeUndefined();
        expect(await read((tx) => tx.agents.get(agent.id))).toMatchObject({ paused_reason: 'first' });
        expect(await write((tx) => tx.agents.resume(agent.id, now + 3))).toMatchObject({ status: 'idle', paused_reason: null });
        expect(await write((tx) => tx.agents.stop(agent.id, now + 4))).toMatchObject({ status: 'stopped' });
        expect(await write((tx) => tx.agents.stop(agent.id, now + 5))).toBeUndefined();
        await write((tx) => tx.agents.markDeleted(agent.id, now + 6));
        expect(await write((tx) => tx.agents.resume(agent.id, now + 7))).toBeUndefined();
        expect(await write((tx) => tx.agents.edit(agent.id, { name: 'Gone' }))).toBeUndefined();
      });

      it('tasks: a move and a reassignment are compare-and-sets, answering the task with its links', async () => {
        const { agent } = await seed();
        const task = taskRow(agent.workspace_id, now);
        const blocker = taskRow(agent.workspace_id, now);
        await write(async (tx) => { await tx.tasks.insert(blocker); await tx.tasks.insert({ ...task, blocked_by: [blocker.id], reviewers: [agent.id] }); });
        expect(await write((tx) => tx.tasks.move(task.id, 'IN_PROGRESS', 'DONE', now + 1))).toBeUndefined();
        expect(await write((tx) => tx.tasks.move(task.id, 'TODO', 'ARCHIVED', now + 1)))
          .toMatchObject({ state: 'ARCHIVED', archived_at: now + 1, completed_at: null, blocked_by: [blocker.id], reviewers: [agent.id] });
        expect(await write((tx) => tx.tasks.reassign(task.id, 'agt_other', agent.id, now + 2))).toBeUndefined();
        expect(await write((tx) => tx.tasks.reassign(task.id, null, agent.id, now + 2))).toMatchObject({ assignee_agent_instance_id: agent.id, assigned_at: now + 2 });
        expect(await write((tx) => tx.tasks.reassign(task.id, agent.id, null, now + 3))).toMatchObject({ assignee_agent_instance_id: null, assigned_at: null });
        expect(await write((tx) => tx.tasks.edit(task.id, { title: 'Renamed', updated_at: now + 4 }))).toMatchObject({ title: 'Renamed', blocked_by: [blocker.id] });
        expect(await write((tx) => tx.tasks.edit('tsk_missing', { title: 'x' }))).toBeUndefined();
      });

      it('wakeups: from claimed only, back to the queue, to a retry or to an end; a refusal from queued only', async () => {
        const { agent } = await seed();
        const wakeup = wakeupRow(agent, now);
        const fence = await write(async (tx) => { await tx.wakeups.insert(wakeup); return lease(tx, agent.id); });
        expect(await write((tx) => tx.wakeups.unclaim(wakeup.id, { skip_reason: 'daily_run_cap' }))).toBeUndefined();
        expect(await write((tx) => tx.wakeups.scheduleRetry(wakeup.id, { retry_count: 1, retry_at: now + 5, error: 'e' }))).toBeUndefined();
        expect(await write((tx) => tx.wakeups.endClaimed(wakeup.id, { status: 'finished', finished_at: now }))).toBeUndefined();
        await write((tx) => tx.wakeups.claim(wakeup.id, now + 1, fence));
        expect(await write((tx) => tx.wakeups.refuse(wakeup.id, 'cap_reached', now + 1))).toBeUndefined();
        expect(await write((tx) => tx.wakeups.unclaim(wakeup.id, { available_at: now + 100, skip_reason: 'daily_run_cap' })))
          .toMatchObject({ status: 'queued', claimed_at: null, available_at: now + 100, skip_reason: 'daily_run_cap' });
        await write((tx) => tx.wakeups.claim(wakeup.id, now + 2, fence));
        expect(await write((tx) => tx.wakeups.scheduleRetry(wakeup.id, { retry_count: 1, retry_at: now + 50, error: 'failed' })))
          .toMatchObject({ status: 'scheduled_retry', retry_count: 1, scheduled_retry_at: now + 50, available_at: now + 50, error: 'failed' });
        await write((tx) => tx.wakeups.claim(wakeup.id, now + 3, fence));
        expect(await write((tx) => tx.wakeups.endClaimed(wakeup.id, { status: 'cancelled', cancel_reason: 'run_cancelled', finished_at: now + 4 }, 'run_other'))).toBeUndefined();
        expect(await write((tx) => tx.wakeups.endClaimed(wakeup.id, { status: 'failed', finished_at: now + 4, error: 'gave up' })))
          .toMatchObject({ status: 'failed', finished_at: now + 4, error: 'gave up' });
      });

      it('runs: a left-behind run is abandoned only from the status it was read in', async () => {
        const { agent } = await seed();
        const wakeup = wakeupRow(agent, now, { status: 'claimed' });
        const run = runRow(wakeup, now);
        await write(async (tx) => { await tx.wakeups.insert(wakeup); await tx.runs.insert(run, null); });
        expect(await write((tx) => tx.runs.abandon(run.id, 'running', 'left behind', now + 1))).toBe(false);
        expect(await write((tx) => tx.runs.abandon(run.id, 'queued', 'left behind', now + 1))).toBe(true);
        expect(await read((tx) => tx.runs.get(run.id))).toMatchObject({ status: 'cancelled', error: 'left behind', finished_at: now + 1 });
        expect(await write((tx) => tx.runs.abandon(run.id, 'queued', 'again', now + 2))).toBe(false);
      });

      it('routines: pause, resume and the pause of an assignee\'s active routines, none of them from archived', async () => {
        const { agent } = await seed();
        const [active, archived] = [routineRow(agent, now), routineRow(agent, now, { status: 'archived' })];
        await write(async (tx) => { await tx.routines.insert(active); await tx.routines.insert(archived); });
        expect(await write((tx) => tx.routines.resume(active.id, now))).toBeUndefined();
        expect(await write((tx) => tx.routines.pause(archived.id, 'x', now))).toBeUndefined();
        expect((await write((tx) => tx.routines.pauseActiveOf(agent.id, 'assignee gone', now + 1))).map((r) => [r.id, r.status, r.paused_reason]))
          .toEqual([[active.id, 'paused', 'assignee gone']]);
        expect(await write((tx) => tx.routines.pauseActiveOf(agent.id, 'again', now + 2))).toEqual([]);
        expect(await write((tx) => tx.routines.resume(active.id, now + 3))).toMatchObject({ status: 'active', paused_reason: null, consecutive_failures: 0 });
        expect(await read((tx) => tx.routines.get(archived.id))).toMatchObject({ status: 'archived' });
      });
    });

    describe('organisation', () => {
      it('stores workspaces, projects and agents, and updates them', async () => {
        const { workspace, agent } = await seed();
        const project = projectRow(workspace.id, now);
        await write((tx) => tx.projects.insert(project));
        expect(await read((tx) => tx.workspaces.get(workspace.id))).toEqual(workspace);
        expect(await read((tx) => tx.projects.get(project.id))).toEqual(project);
        expect(await read((tx) => tx.agents.get(agent.id))).toEqual(agent);
        await write(async (tx) => {
          expect(await tx.workspaces.edit(workspace.id, { name: 'Acme 2' })).toEqual({ ...workspace, name: 'Acme 2' });
          expect(await tx.projects.edit(project.id, { name: 'Launch 2' })).toEqual({ ...project, name: 'Launch 2' });
          expect(await tx.agents.edit(agent.id, { name: 'Worker 2', warnings: ['w'] })).toEqual({ ...agent, name: 'Worker 2', warnings: ['w'] });
          expect(await tx.workspaces.edit('ws_missing', { name: 'x' })).toBeUndefined();
        });
        expect((await read((tx) => tx.workspaces.list())).map((w) => w.name)).toEqual(['Acme 2']);
        expect((await query((tx) => tx.projects.list(workspace.id))).map((p) => p.name)).toEqual(['Launch 2']);
        expect(await read((tx) => tx.agents.get(agent.id))).toMatchObject({ name: 'Worker 2', warnings: ['w'] });
      });

      it('lists live agents only, and finds the coordinator (a ceo first)', async () => {
        const { workspace } = await seed();
        const coordinator = agentRow(workspace.id, now, { role: 'coordinator' });
        const ceo = agentRow(workspace.id, now + 1, { role: 'ceo' });
        const gone = agentRow(workspace.id, now, { deleted_at: now });
        await write(async (tx) => { for (const a of [coordinator, ceo, gone]) await tx.agents.insert(a); });
        expect((await read((tx) => tx.agents.list({ workspace_id: workspace.id }))).map((a) => a.id)).not.toContain(gone.id);
        expect((await read((tx) => tx.agents.coordinatorOf(workspace.id)))?.id).toBe(ceo.id);
      });
    });

    describe('activity, inbox and summaries', () => {
      it('activity lists newest first and counts by code', async () => {
        const { workspace } = await seed();
        await write(async (tx) => {
          for (const code of ['wakeup_coalesced', 'budget_alert', 'wakeup_coalesced'] as const) await tx.activity.insert({ workspace_id: workspace.id, code, message: code }, now);
        });
        expect((await query((tx) => tx.activity.list({ workspace_id: workspace.id }))).map((e) => e.code)).toEqual(['wakeup_coalesced', 'budget_alert', 'wakeup_coalesced']);
        expect(await read((tx) => tx.activity.countSince(workspace.id, 'wakeup_coalesced', now))).toBe(2);
        expect(await query((tx) => tx.activity.list({ workspace_id: workspace.id, code: 'budget_alert' }))).toHaveLength(1);
      });

      it('inbox items list newest first (ties by id) and resolve by reference', async () => {
        const { workspace } = await seed();
        const [older, newer] = idsInMintOrder('inb', 2).map((id) => ({
          id, workspace_id: workspace.id, kind: 'approval', title: 't', body: '', agent_id: null, task_id: null, ref_id: `ref_${id}`,
          status: 'open' as const, created_at: now,
        }));
        await write(async (tx) => { await tx.inbox.insert(newer!); await tx.inbox.insert(older!); });
        expect((await query((tx) => tx.inbox.list(workspace.id))).map((i) => i.id)).toEqual([newer!.id, older!.id]);
        await write((tx) => tx.inbox.resolveByRef(older!.ref_id));
        expect((await query((tx) => tx.inbox.list(workspace.id, 'open'))).map((i) => i.id)).toEqual([newer!.id]);
        expect((await query((tx) => tx.inbox.list(workspace.id, 'resolved'))).map((i) => i.id)).toEqual([older!.id]);
        expect((await query((tx) => tx.inbox.list(undefined, 'open'))).map((i) => i.id)).toEqual([newer!.id]);
        expect((await query((tx) => tx.inbox.list(undefined))).map((i) => i.id)).toEqual([newer!.id, older!.id]);
      });

      it('an inbox item is read by id and resolved once by id; only an open one resolves', async () => {
        const { workspace } = await seed();
        const [first, second] = idsInMintOrder('inb', 2).map((id) => ({
          id, workspace_id: workspace.id, kind: 'agent.error', title: 't', body: 'stderr tail', agent_id: null, task_id: null, ref_id: `run_${id}`,
          status: 'open' as const, created_at: now,
        }));
        await write(async (tx) => { await tx.inbox.insert(first!); await tx.inbox.insert(second!); });
        expect(await read((tx) => tx.inbox.get(first!.id))).toEqual(first);
        expect(await read((tx) => tx.inbox.get('inb_missing'))).toBeUndefined();
        expect(await write((tx) => tx.inbox.resolve(first!.id))).toBe(true);
        expect(await write((tx) => tx.inbox.resolve(first!.id))).toBe(false);
        expect(await write((tx) => tx.inbox.resolve('inb_missing'))).toBe(false);
        expect((await read((tx) => tx.inbox.get(first!.id)))?.status).toBe('resolved');
        expect((await query((tx) => tx.inbox.list(workspace.id, 'open'))).map((i) => i.id)).toEqual([second!.id]);
      });

      it('a continuation summary is one per (agent, scope), replaced on upsert', async () => {
        const summary = { agent_profile_id: 'agt_1', scope: 'task:t1', content: 'v1', content_tokens: 1, updated_at: now, updated_by_run_id: 'run_1' };
        await write((tx) => tx.summaries.upsert(summary));
        await write((tx) => tx.summaries.upsert({ ...summary, content: 'v2', updated_at: now + 1 }));
        expect(await read((tx) => tx.summaries.get('agt_1', 'task:t1'))).toMatchObject({ content: 'v2' });
        expect(await query((tx) => tx.summaries.listForAgent('agt_1'))).toHaveLength(1);
      });
    });

    describe('inspector', () => {
      it('reads committed rows by equality filters (null matches NULL), in primary-key order, and counts them', async () => {
        const { agent } = await seed();
        const [a, b] = idsInMintOrder('wk', 2).map((id) => wakeupRow(agent, now, { id }));
        const key = wakeupRow(agent, now, { idempotency_key: 'k', recovered: true });
        await write(async (tx) => { for (const w of [b!, key, a!]) await tx.wakeups.insert(w); });
        expect(await s.inspect.count('agent_wakeup_requests')).toBe(3);
        expect(await s.inspect.count('agent_wakeup_requests', { idempotency_key: null })).toBe(2);
        expect(await s.inspect.rows('agent_wakeup_requests', { agent_id: agent.id, idempotency_key: null }, { columns: ['id', 'status'] }))
          .toEqual([a!, b!].map((w) => ({ id: w.id, status: 'queued' })).sort((x, y) => (x.id < y.id ? -1 : 1)));
        expect(await s.inspect.count('agent_wakeup_requests', { recovered: true })).toBe(1);
        expect(await s.inspect.tables()).toEqual(expect.arrayContaining(['agent_wakeup_requests', 'runs', 'tasks', 'event_outbox']));
      });

      it('sees no write that has not committed, and names a bad table or column', async () => {
        const workspace = workspaceRow(now);
        let during = -1;
        await write(async (tx) => {
          await tx.workspaces.insert(workspace);
          during = await s.inspect.count('workspaces');
        });
        expect(during).toBe(0);
        expect(await s.inspect.count('workspaces', { id: workspace.id })).toBe(1);
        await expect(s.inspect.count('no_such_table')).rejects.toThrow(/no_such_table/);
        await expect(s.inspect.rows('workspaces', { no_such_column: 1 })).rejects.toThrow(/no_such_column/);
      });
    });

    describe('ordering: oldest first with no reliance on insertion order', () => {
      it('open wakeups written in the same millisecond list oldest first, however they were inserted', async () => {
        const { agent } = await seed();
        const rows = idsInMintOrder('wk', 4).map((id) => wakeupRow(agent, now, { id }));
        await write(async (tx) => { for (const w of [...rows].reverse()) await tx.wakeups.insert(w); });
        expect((await read((tx) => tx.wakeups.listOpen(agent.id))).map((w) => w.id)).toEqual(rows.map((w) => w.id));
        expect((await read((tx) => tx.wakeups.listOpen())).map((w) => w.id)).toEqual(rows.map((w) => w.id));
        expect((await query((tx) => tx.wakeups.list({ agent_id: agent.id }))).map((w) => w.id)).toEqual(rows.map((w) => w.id).reverse());
      });

      it('runs written in the same millisecond list newest first, however they were inserted', async () => {
        const { agent } = await seed();
        const wakeup = wakeupRow(agent, now);
        const runs = idsInMintOrder('run', 3).map((id, i) => runRow(wakeup, now, { id, attempt: i + 1 }));
        await write(async (tx) => { await tx.wakeups.insert(wakeup); for (const r of [runs[1]!, runs[2]!, runs[0]!]) await tx.runs.insert(r, null); });
        expect((await read((tx) => tx.runs.list({ agent_id: agent.id }))).map((r) => r.id)).toEqual(runs.map((r) => r.id).reverse());
      });

      it('every other list of rows written in the same millisecond comes back oldest first (by id), however they were inserted', async () => {
        const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
        const workspaces = idsInMintOrder('ws', 3).map((id) => workspaceRow(now, { id }));
        const ws = workspaces[0]!.id;
        const projects = idsInMintOrder('prj', 3).map((id) => projectRow(ws, now, { id }));
        const agents = idsInMintOrder('agt', 3).map((id) => agentRow(ws, now, { id, role: 'coordinator' }));
        const budgets = idsInMintOrder('bdg', 3).map((id) => budgetRow(ws, now, { id }));
        const parent = taskRow(ws, now);
        const blockers = idsInMintOrder('tsk', 3).map((id) => taskRow(ws, now, { id }));
        const children = idsInMintOrder('tsk', 3).map((id) => taskRow(ws, now, { id, parent_id: parent.id, blocked_by: ids(blockers), assignee_agent_instance_id: agents[0]!.id }));
        // One pending approval per task (migration 0025): the later ones were decided.
        const approvals = idsInMintOrder('apr', 3).map((id, i) => approvalRow(agents[0]!, parent.id, now, { id, ...(i > 0 ? { status: 'approved' as const, resolved_at: now } : {}) }));
        const wakeups = idsInMintOrder('wk', 3).map((id) => wakeupRow(agents[0]!, now, { id, task_id: parent.id }));
        const runs = idsInMintOrder('run', 3).map((id, i) => runRow(wakeups[i]!, now, { id, status: 'running' }));
        await write(async (tx) => {
          for (const w of [...workspaces].reverse()) await tx.workspaces.insert(w);
          for (const p of [...projects].reverse()) await tx.projects.insert(p);
          for (const a of [...agents].reverse()) await tx.agents.insert(a);
          for (const b of [...budgets].reverse()) await tx.budgets.insert(b);
          await tx.tasks.insert(parent);
          for (const t of [...blockers].reverse()) await tx.tasks.insert(t);
          for (const t of [...children].reverse()) await tx.tasks.insert(t);
          for (const a of [...approvals].reverse()) await tx.approvals.insert(a);
          for (const w of [...wakeups].reverse()) await tx.wakeups.insert(w);
          for (const r of [...runs].reverse()) await tx.runs.insert(r, null);
          await lease(tx, agents[0]!.id);
        });
        expect(ids(await read((tx) => tx.workspaces.list()))).toEqual(ids(workspaces));
        expect(ids(await query((tx) => tx.projects.list(ws)))).toEqual(ids(projects));
        expect(ids(await query((tx) => tx.projects.list(undefined)))).toEqual(ids(projects));
        expect(ids(await read((tx) => tx.agents.list({ workspace_id: ws })))).toEqual(ids(agents));
        expect(ids(await read((tx) => tx.agents.list({})))).toEqual(ids(agents));
        expect((await read((tx) => tx.agents.coordinatorOf(ws)))?.id).toBe(agents[0]!.id);
        expect(ids(await read((tx) => tx.budgets.list(ws)))).toEqual(ids(budgets));
        expect(ids(await read((tx) => tx.budgets.list(undefined)))).toEqual(ids(budgets));
        expect(ids(await read((tx) => tx.budgets.forScopes([{ scope: 'workspace', scope_id: ws }])))).toEqual(ids(budgets));
        expect(ids(await read((tx) => tx.tasks.children(parent.id)))).toEqual(ids(children));
        expect(ids(await read((tx) => tx.tasks.dependentsOf(blockers[0]!.id)))).toEqual(ids(children));
        expect(await read((tx) => tx.tasks.openBlockers(children[0]!.id))).toEqual(ids(blockers));
        expect(ids(await read((tx) => tx.tasks.recoveryCandidates(now - 1, ws)))).toEqual(ids(children));
        expect((await read((tx) => tx.approvals.pendingForTask(parent.id)))?.id).toBe(approvals[0]!.id);
        expect(ids(await read((tx) => tx.wakeups.openForTask(parent.id)))).toEqual(ids(wakeups));
        expect(ids(await read((tx) => tx.runs.listUnfinished(OWNER)))).toEqual(ids(runs));
      });

      it('ids minted one after another sort in the order they were minted', () => {
        const ids = idsInMintOrder('wk', 1000);
        expect(ids.findIndex((id, i) => i > 0 && id < ids[i - 1]!), 'index of the first id that sorts before the one minted before it').toBe(-1);
        expect(ids.every((id) => /^wk_[0-9a-f]{32}$/.test(id))).toBe(true);
      });
    });
  });
}
