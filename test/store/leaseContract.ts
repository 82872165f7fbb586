/**
 * The ownership contract: agent leases with epochs, the fencing of a stale owner, the reads scoped
 * to an owner, and the outbox batch that is taken, not read. Every Store implementation runs it
 * (leases.contract.test.ts for SQLite), so that several owners on one database (PostgreSQL) get the
 * answers one owner gets on SQLite. Two owners are simulated on one store: the port takes the owner
 * as an argument, so a test needs no second process.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/domain/events.js';
import type { Reads, Store, Tx } from '../../src/persistence/store.js';
import type { StoreFactory, StoreUnderTest } from './factory.js';
import { agentRow, routineRow, runRow, seedAgent, triggerRow, wakeupRow } from './rows.js';

const A = 'own_a';
const B = 'own_b';
/** How many callers a race starts at once, each in its own transaction. */
const RACERS = 8;

function race<T>(store: Store, count: number, work: (tx: Tx, index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => store.transaction((tx) => work(tx, index))));
}

const ids = (events: DomainEvent[]) => events.map((event) => event.id);

export function leaseContract(name: string, factory: StoreFactory): void {
  describe(`Store ownership contract: ${name}`, () => {
    let sut: StoreUnderTest;
    let store: Store;
    let now: number;
    const write = <T>(work: (tx: Tx) => Promise<T>) => store.transaction(work);
    const read = <T>(work: (tx: Tx) => Promise<T>) => store.read(work);
    const query = <T>(work: (reads: Reads) => Promise<T>) => store.query(work);

    beforeEach(async () => {
      sut = await factory();
      store = sut.store;
      now = sut.clock.now;
    });
    afterEach(async () => sut.dispose());

    /** Two live agents in one workspace, a deleted one, and a deleted one whose run was left running. */
    async function seedAgents() {
      return write(async (tx) => {
        const { workspace, agent: first } = await seedAgent(tx, now);
        const second = agentRow(workspace.id, now, { name: 'Second' });
        const gone = agentRow(workspace.id, now, { name: 'Gone', deleted_at: now });
        const goneRunning = agentRow(workspace.id, now, { name: 'Gone mid-run', deleted_at: now });
        for (const agent of [second, gone, goneRunning]) await tx.agents.insert(agent);
        const wakeup = wakeupRow(goneRunning, now, { status: 'claimed', claimed_at: now });
        await tx.wakeups.insert(wakeup);
        await tx.runs.insert(runRow(wakeup, now, { status: 'running', started_at: now }), null);
        return { workspace, first, second, gone, goneRunning };
      });
    }

    describe('taking agents', () => {
      it('taking every agent bumps each epoch by one and moves it to the new owner; a deleted agent is taken only while its run is unfinished', async () => {
        const { first, second, gone, goneRunning } = await seedAgents();
        const firstTake = await write((tx) => tx.leases.takeAll(A, null));
        expect(firstTake.map((l) => [l.agent_id, l.owner_id, l.epoch]).sort())
          .toEqual([[first.id, A, 1], [second.id, A, 1], [goneRunning.id, A, 1]].sort());
        expect(firstTake.map((l) => l.agent_id)).not.toContain(gone.id);

        const secondTake = await write((tx) => tx.leases.takeAll(B, null));
        expect(secondTake.map((l) => [l.agent_id, l.owner_id, l.epoch]).sort())
          .toEqual([[first.id, B, 2], [second.id, B, 2], [goneRunning.id, B, 2]].sort());
        expect(await read((tx) => tx.leases.held(A))).toEqual([]);
        expect((await read((tx) => tx.leases.held(B))).map((l) => l.epoch)).toEqual([2, 2, 2]);
      });

      it('taking one agent starts at epoch 1 and bumps it at each change of hands, a release included', async () => {
        const { first } = await seedAgents();
        expect(await write((tx) => tx.leases.take(first.id, A, null))).toEqual({ agent_id: first.id, owner_id: A, epoch: 1, expires_at: null });
        expect(await write((tx) => tx.leases.take(first.id, B, now + 15_000))).toEqual({ agent_id: first.id, owner_id: B, epoch: 2, expires_at: now + 15_000 });
        expect(await write((tx) => tx.leases.release(B, now + 1))).toBe(1);
        expect(await read((tx) => tx.leases.leaseOf(first.id))).toEqual({ agent_id: first.id, owner_id: B, epoch: 2, expires_at: now + 1 });
        expect((await write((tx) => tx.leases.take(first.id, A, null))).epoch).toBe(3);
      });

      it('of concurrent takes of one agent, each gets its own epoch: no two owners ever hold the same one', async () => {
        const { first } = await seedAgents();
        const leases = await race(store, RACERS, (tx, i) => tx.leases.take(first.id, `own_${i}`, null));
        expect(leases.map((l) => l.epoch).sort((x, y) => x - y)).toEqual(Array.from({ length: RACERS }, (_, i) => i + 1));
        const last = leases.find((l) => l.epoch === RACERS)!;
        expect(await read((tx) => tx.leases.leaseOf(first.id))).toEqual(last);
      });
    });

    describe('fencing', () => {
      async function queuedWakeup() {
        const { first } = await seedAgents();
        const wakeup = wakeupRow(first, now);
        await write((tx) => tx.wakeups.insert(wakeup));
        return { agent: first, wakeup };
      }

      it('a stale owner (an older epoch) cannot claim a wakeup; the current owner can', async () => {
        const { agent, wakeup } = await queuedWakeup();
        const stale = await write((tx) => tx.leases.take(agent.id, A, null));
        const current = await write((tx) => tx.leases.take(agent.id, B, null));

        expect(await write((tx) => tx.wakeups.claim(wakeup.id, now, stale))).toBeUndefined();
        // The old owner with the new epoch, or the new owner with the old one: still not the lease.
        expect(await write((tx) => tx.wakeups.claim(wakeup.id, now, { owner_id: A, epoch: current.epoch }))).toBeUndefined();
        expect(await write((tx) => tx.wakeups.claim(wakeup.id, now, { owner_id: B, epoch: stale.epoch }))).toBeUndefined();
        expect((await read((tx) => tx.wakeups.get(wakeup.id)))!.status).toBe('queued');

        expect(await write((tx) => tx.wakeups.claim(wakeup.id, now, current))).toMatchObject({ id: wakeup.id, status: 'claimed' });
      });

      it('an owner whose lease expired or was released cannot claim, and neither can one that never held the agent', async () => {
        const { agent, wakeup } = await queuedWakeup();
        expect(await write((tx) => tx.wakeups.claim(wakeup.id, now, { owner_id: A, epoch: 0 }))).toBeUndefined();
        const expiring = await write((tx) => tx.leases.take(agent.id, A, now + 1_000));
        expect(await write((tx) => tx.wakeups.claim(wakeup.id, now + 1_000, expiring))).toBeUndefined();

        const held = await write((tx) => tx.leases.take(agent.id, A, null));
        await write((tx) => tx.leases.release(A, now + 5, [agent.id]));
        expect(await write((tx) => tx.wakeups.claim(wakeup.id, now + 5, held))).toBeUndefined();
        expect((await read((tx) => tx.wakeups.get(wakeup.id)))!.status).toBe('queued');
      });
    });

    describe('fenced finish', () => {
      async function runningRun() {
        const { first } = await seedAgents();
        const wakeup = wakeupRow(first, now, { status: 'claimed', claimed_at: now });
        const run = runRow(wakeup, now, { status: 'running', started_at: now });
        const stale = await write(async (tx) => {
          await tx.wakeups.insert(wakeup);
          await tx.runs.insert(run, null);
          return tx.leases.take(first.id, A, now + 15_000);
        });
        return { agent: first, wakeup, run, stale };
      }
      const success = (at: number) => ({ status: 'succeeded' as const, result_json: { answer: 42 }, error: null, cost_usd: 0.25, finished_at: at });

      it("a stale owner's close is refused: the run stays as the new owner left it, and keeps the late result for inspection", async () => {
        const { agent, run, stale } = await runningRun();
        const current = await write((tx) => tx.leases.take(agent.id, B, now + 30_000));
        const interrupted = { status: 'interrupted' as const, result_json: {}, error: 'interrupted', cost_usd: null, finished_at: now + 5 };
        expect(await write((tx) => tx.runs.close(run.id, interrupted, null, current))).toMatchObject({ closed: true });

        expect(await write((tx) => tx.runs.close(run.id, success(now + 6), null, stale))).toEqual({ closed: false, madeProgress: null, checkoutWaiters: null });
        expect(await read((tx) => tx.runs.get(run.id))).toMatchObject({
          status: 'interrupted', result_json: {}, cost_usd: null, finished_at: now + 5,
          late_result_json: { status: 'succeeded', result_json: { answer: 42 }, cost_usd: 0.25, finished_at: now + 6, owner_id: A, epoch: stale.epoch },
        });
      });

      it('a close by an owner whose lease expired is refused, and so is a second close of an ended run', async () => {
        const { run, stale } = await runningRun();
        expect(await write((tx) => tx.runs.close(run.id, success(now + 15_000), null, stale))).toMatchObject({ closed: false });
        expect((await read((tx) => tx.runs.get(run.id)))!.status).toBe('running');
        expect(await write((tx) => tx.runs.close(run.id, success(now + 10), null, stale))).toMatchObject({ closed: true });
        expect(await write((tx) => tx.runs.close(run.id, { ...success(now + 11), status: 'failed' }, null, stale))).toMatchObject({ closed: false });
        expect(await read((tx) => tx.runs.get(run.id))).toMatchObject({ status: 'succeeded', finished_at: now + 10 });
      });

      it("a succeeded close that finishes its wakeup does so only when the run closes: a refused close leaves the wakeup claimed", async () => {
        const { run, wakeup, stale } = await runningRun();
        expect(await write((tx) => tx.runs.close(run.id, success(now + 15_000), null, stale, wakeup.id))).toMatchObject({ closed: false });
        expect(await read((tx) => tx.wakeups.get(wakeup.id))).toMatchObject({ status: 'claimed', finished_at: null });
        expect(await write((tx) => tx.runs.close(run.id, success(now + 10), null, stale, wakeup.id))).toMatchObject({ closed: true });
        expect(await read((tx) => tx.wakeups.get(wakeup.id))).toMatchObject({ status: 'finished', finished_at: now + 10, error: null });
      });
    });

    describe('replicas', () => {
      it('a replica id is registered once while it lives; an expired one is registered again', async () => {
        expect(await write((tx) => tx.replicas.register('r1', now, now + 15_000))).toBe(true);
        expect(await write((tx) => tx.replicas.register('r1', now + 1, now + 15_001))).toBe(false);
        expect(await write((tx) => tx.replicas.register('r1', now + 15_000, now + 30_000))).toBe(true);
        expect(await query((tx) => tx.replicas.list(now + 15_000))).toEqual([
          { id: 'r1', started_at: now + 15_000, heartbeat_at: now + 15_000, expires_at: now + 30_000, agents_owned: 0 }]);
      });

      it("a heartbeat renews the replica and its unexpired leases only, and tells who is alive and how many agents wait for an owner", async () => {
        const { first, second, goneRunning } = await seedAgents();
        await write(async (tx) => {
          await tx.replicas.register(A, now, now + 15_000);
          await tx.replicas.register(B, now, now + 5_000);
          await tx.leases.take(first.id, A, now + 15_000);
          await tx.leases.take(second.id, A, now + 5_000);
        });
        const beat = await write((tx) => tx.replicas.heartbeat(A, now + 6_000, now + 21_000));
        expect(beat.renewed).toEqual([{ agent_id: first.id, epoch: 1 }]);
        expect(beat.live).toEqual([A]);
        // The expired lease and the deleted agent's unfinished run wait for an owner.
        expect(beat.orphans).toBe(2);
        expect((await read((tx) => tx.replicas.orphans(now + 6_000))).sort()).toEqual([second.id, goneRunning.id].sort());
        expect(await read((tx) => tx.leases.leaseOf(first.id))).toMatchObject({ owner_id: A, expires_at: now + 21_000 });
        expect(await query((tx) => tx.replicas.list(now + 6_000))).toMatchObject([{ id: A, heartbeat_at: now + 6_000, expires_at: now + 21_000, agents_owned: 1 }]);
        expect(await query((tx) => tx.replicas.holders([first.id, second.id], now + 6_000))).toEqual(new Map([[first.id, A]]));
      });

      it('only an expired or missing lease is taken over, epoch + 1; of replicas racing for it, one wins', async () => {
        const { first, second } = await seedAgents();
        await write((tx) => tx.leases.take(first.id, A, now + 15_000));
        expect(await write((tx) => tx.replicas.takeOver(B, [first.id], now + 14_999, now + 30_000))).toEqual([]);
        const taken = await race(store, RACERS, (tx, i) => tx.replicas.takeOver(`own_${i}`, [first.id, second.id], now + 15_000, now + 30_000));
        const winners = taken.flat();
        expect(winners.map((l) => l.agent_id).sort()).toEqual([first.id, second.id].sort());
        expect(winners.find((l) => l.agent_id === first.id)).toMatchObject({ epoch: 2, expires_at: now + 30_000 });
        expect(winners.find((l) => l.agent_id === second.id)).toMatchObject({ epoch: 1 });
      });

      it('a replica that leaves is no longer listed, and its released leases wait for an owner', async () => {
        const { first } = await seedAgents();
        await write(async (tx) => {
          await tx.replicas.register(A, now, now + 15_000);
          await tx.leases.take(first.id, A, now + 15_000);
        });
        await write(async (tx) => {
          await tx.leases.release(A, now + 1);
          await tx.replicas.leave(A, now + 1);
        });
        expect(await query((tx) => tx.replicas.list(now + 1))).toEqual([]);
        expect(await read((tx) => tx.replicas.orphans(now + 1))).toContain(first.id);
      });
    });

    describe('reads scoped to an owner', () => {
      it('an owner sees only the unfinished runs and the live agents it holds', async () => {
        const { first, second, goneRunning } = await seedAgents();
        const runs = await write(async (tx) => {
          const made = [];
          for (const [agent, status] of [[first, 'queued'], [second, 'running'], [first, 'succeeded']] as const) {
            const wakeup = wakeupRow(agent, now, { status: 'claimed' });
            await tx.wakeups.insert(wakeup);
            const run = runRow(wakeup, now, { status });
            await tx.runs.insert(run, null);
            made.push(run);
          }
          return made;
        });
        await write(async (tx) => {
          await tx.leases.takeAll(A, null);
          await tx.leases.take(second.id, B, null);
        });

        expect((await read((tx) => tx.runs.listUnfinished(A))).map((r) => r.id).sort())
          .toEqual([runs[0]!.id, (await read((tx) => tx.runs.list({ agent_id: goneRunning.id })))[0]!.id].sort());
        expect((await read((tx) => tx.runs.listUnfinished(B))).map((r) => r.id)).toEqual([runs[1]!.id]);
        expect((await read((tx) => tx.agents.listLive(A))).map((a) => a.id)).toEqual([first.id]);
        expect((await read((tx) => tx.agents.listLive(B))).map((a) => a.id)).toEqual([second.id]);
        expect(await read((tx) => tx.agents.listLive('own_nobody'))).toEqual([]);
      });

      it('an owner puts back in the queue only the never-started claims of the agents it holds', async () => {
        const { first, second } = await seedAgents();
        const [mine, theirs, queued] = await write(async (tx) => {
          const rows = [wakeupRow(first, now, { status: 'claimed', claimed_at: now }), wakeupRow(second, now, { status: 'claimed', claimed_at: now }),
            wakeupRow(first, now, { status: 'queued' })];
          for (const row of rows) await tx.wakeups.insert(row);
          await tx.leases.takeAll(A, null);
          await tx.leases.take(second.id, B, null);
          return rows;
        });

        expect((await write((tx) => tx.wakeups.requeueClaimed(A))).map((w) => [w.id, w.status, w.claimed_at])).toEqual([[mine!.id, 'queued', null]]);
        expect((await read((tx) => tx.wakeups.get(theirs!.id)))?.status).toBe('claimed');
        expect((await read((tx) => tx.wakeups.get(queued!.id)))?.status).toBe('queued');
        expect(await write((tx) => tx.wakeups.requeueClaimed('own_nobody'))).toEqual([]);
      });

      it("an owner restores only its own snapshots: an agent's with the agent, a schedule trigger's with its routine's assignee", async () => {
        const { first, second } = await seedAgents();
        const { trigger, routine } = await write(async (tx) => {
          const routine = routineRow(first, now);
          await tx.routines.insert(routine);
          const trigger = triggerRow(routine.id, now);
          await tx.routines.insertTrigger(trigger);
          await tx.snapshots.save([
            { actor_id: first.id, kind: 'agent', snapshot: { of: 'first' } },
            { actor_id: second.id, kind: 'agent', snapshot: { of: 'second' } },
            { actor_id: trigger.id, kind: 'trigger', snapshot: { of: 'trigger' } },
          ], now);
          await tx.leases.take(first.id, A, null);
          await tx.leases.take(second.id, B, null);
          return { trigger, routine };
        });

        expect([...(await read((tx) => tx.snapshots.all('agent', A))).entries()]).toEqual([[first.id, { of: 'first' }]]);
        expect([...(await read((tx) => tx.snapshots.all('agent', B))).entries()]).toEqual([[second.id, { of: 'second' }]]);
        expect([...(await read((tx) => tx.snapshots.all('trigger', A))).entries()]).toEqual([[trigger.id, { of: 'trigger' }]]);
        expect((await read((tx) => tx.snapshots.all('trigger', B))).size).toBe(0);

        // Reassigned, the routine's trigger follows its new assignee's owner.
        await write((tx) => tx.routines.edit(routine.id, { assignee_agent_instance_id: second.id }));
        expect((await read((tx) => tx.snapshots.all('trigger', A))).size).toBe(0);
        expect([...(await read((tx) => tx.snapshots.all('trigger', B))).keys()]).toEqual([trigger.id]);
      });
    });

    describe('taking an outbox batch', () => {
      async function emit(count: number) {
        for (let i = 0; i < count; i++) await write(async (tx) => tx.emit('task.created', { task_id: `tsk_${i}`, workspace_id: 'ws_1' }));
        return sut.published.map((event) => event.id);
      }
      const take = (owner: string, patch: { limit?: number; at?: number; claimUntil?: number | null; takeOver?: boolean } = {}) =>
        write((tx) => tx.outbox.take(owner, {
          limit: patch.limit ?? 100, now: patch.at ?? now, claimUntil: patch.claimUntil ?? null, takeOver: patch.takeOver ?? false,
        }));

      it('an owner takes unclaimed events oldest first, in batches; what one owner holds, another does not get', async () => {
        const written = await emit(5);
        expect(ids(await take(A, { limit: 3 }))).toEqual(written.slice(0, 3));
        expect(ids(await take(B))).toEqual(written.slice(3));
        expect(await take(A)).toEqual([]);
        expect(await take(B)).toEqual([]);
        const [first] = await write((tx) => tx.outbox.take('own_c', { limit: 1, now, claimUntil: null, takeOver: true }));
        expect(first).toMatchObject({ id: written[0], type: 'task.created', payload: { task_id: 'tsk_0', workspace_id: 'ws_1' }, at: now });
      });

      it('two concurrent takes never return the same event, and together they return each one', async () => {
        const written = await emit(20);
        const batches = await race(store, RACERS, (tx, i) => tx.outbox.take(`own_${i}`, { limit: 3, now, claimUntil: null, takeOver: false }));
        const taken = batches.flatMap(ids);
        expect(new Set(taken).size).toBe(taken.length);
        expect(taken.sort((x, y) => x - y)).toEqual(written);
      });

      it('a claim is renewed by its owner only, and the first claim to expire is known, whoever holds it', async () => {
        const written = await emit(3);
        expect(await read((tx) => tx.outbox.nextClaimExpiry())).toBeNull();
        expect(ids(await take(A, { claimUntil: now + 1_000 }))).toEqual(written);
        expect(await read((tx) => tx.outbox.nextClaimExpiry())).toBe(now + 1_000);
        await write((tx) => tx.outbox.renew(B, written, now + 9_000));
        await write((tx) => tx.outbox.renew(A, written.slice(0, 2), now + 5_000));
        expect(ids(await take(B, { at: now + 2_000, claimUntil: now + 3_000 }))).toEqual(written.slice(2));
        expect(await read((tx) => tx.outbox.nextClaimExpiry())).toBe(now + 3_000);
        await write((tx) => tx.outbox.park(written[2]!, 'poisoned', now));
        expect(await read((tx) => tx.outbox.nextClaimExpiry())).toBe(now + 5_000);
      });

      it('an expired claim is taken again, by another owner, and not before it expires', async () => {
        const written = await emit(2);
        expect(ids(await take(A, { claimUntil: now + 5_000 }))).toEqual(written);
        expect(await take(B, { at: now + 4_999, claimUntil: now + 20_000 })).toEqual([]);
        expect(ids(await take(B, { at: now + 5_000, claimUntil: now + 20_000 }))).toEqual(written);
        expect(await take(A, { at: now + 5_001 })).toEqual([]);
      });

      it("a writer's own events are its own: only a take-over gets them; parked and removed events are never taken", async () => {
        sut = await sut.reopen({ owner: A });
        store = sut.store;
        const written = await emit(4);
        expect(await take(A)).toEqual([]);
        expect(await take(B)).toEqual([]);
        await write(async (tx) => {
          await tx.outbox.park(written[0]!, 'poisoned', now);
          await tx.outbox.remove([written[1]!]);
        });
        expect(ids(await take(B, { takeOver: true }))).toEqual(written.slice(2));
        // Taken over, they are B's: A cannot take them back while B lives.
        expect(await take(A)).toEqual([]);
      });
    });
  });
}
