/**
 * The audit contract (API.md, "Governance" -> "Audit", and caps that compose): what every Store
 * implementation must do with the provenance of work (`unattended`, `on_behalf_of`) and with the
 * routine-run cap slots that unattended follow-on wakeups take, through the port alone. Run by
 * audit.contract.test.ts (SQLite) and audit.contract.postgres.test.ts (PostgreSQL).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Agent, Wakeup } from '../../src/domain/types.js';
import type { FoldRule } from '../../src/persistence/store.js';
import { storePerTest, type StoreFactory } from './factory.js';
import { seedAgent, taskRow, wakeupRow } from './rows.js';

const RACERS = 8;

export function auditContract(name: string, factory: StoreFactory): void {
  describe(`Store audit contract: ${name}`, () => {
    const { write, read, query, clockNow } = storePerTest(factory);
    let now: number;
    beforeEach(() => {
      now = clockNow();
    });

    it('a wakeup (enqueued or folded) and a task keep unattended and on_behalf_of; rows written without them are attended', async () => {
      const { agent, workspace } = await write((tx) => seedAgent(tx, now));
      const unattended = { unattended: true, on_behalf_of: 'tok_alice' };
      const stored = await write(async (tx) => {
        const queued = await tx.wakeups.enqueueOrFold(wakeupRow(agent, now, unattended), null, now - 1_000);
        const request = wakeupRow(agent, now);
        const wake = { wakeup_id: request.id, source: 'user', reason: 'user', payload: request.payload, requested_at: new Date(now).toISOString() };
        const folded = await tx.wakeups.enqueueOrFold({ ...request, context_snapshot: { wakes: [wake] } }, { windowSince: now - 1_000, anyTask: true }, now - 1_000);
        const task = taskRow(workspace.id, now, unattended);
        const plain = taskRow(workspace.id, now);
        expect(await tx.tasks.insert(task)).toBe(true);
        expect(await tx.tasks.insert(plain)).toBe(true);
        return { queued, folded, task, plain };
      });
      expect(stored.queued.kind).toBe('queued');
      expect(stored.folded.kind).toBe('folded');
      const read1 = await query(async (tx) => ({
        queued: await tx.wakeups.get(stored.queued.kind === 'queued' ? stored.queued.wakeup.id : ''),
        folded: await tx.wakeups.get(stored.folded.kind === 'folded' ? stored.folded.wakeup.id : ''),
        task: await tx.tasks.get(stored.task.id),
        plain: await tx.tasks.get(stored.plain.id),
        listed: await tx.tasks.list({ workspace_id: workspace.id }),
      }));
      expect(read1.queued).toMatchObject(unattended);
      expect(read1.folded).toMatchObject({ unattended: false, on_behalf_of: null });
      expect(read1.task).toMatchObject(unattended);
      expect(read1.plain).toMatchObject({ unattended: false, on_behalf_of: null });
      expect(read1.listed.map((t) => [t.id, t.unattended, t.on_behalf_of]).sort()).toEqual([
        [stored.task.id, true, 'tok_alice'], [stored.plain.id, false, null],
      ].sort());
    });

    it('activity entries keep on_behalf_of, default to attended, and list only unattended (true) or only attended (false) entries', async () => {
      await write(async (tx) => {
        await tx.activity.insert({ workspace_id: 'ws_1', code: 'wakeup_retry_scheduled', unattended: true, on_behalf_of: 'tok_alice' }, now);
        await tx.activity.insert({ workspace_id: 'ws_1', code: 'wakeup_idle_skipped' }, now + 1);
        await tx.activity.insert({ workspace_id: 'ws_1', code: 'routine_run_dispatched', unattended: false, on_behalf_of: 'admin' }, now + 2);
        await tx.activity.insert({ workspace_id: 'ws_2', code: 'comment_created', unattended: true, on_behalf_of: 'tok_bob' }, now + 3);
      });
      const summary = (entries: { code: string; unattended: boolean; on_behalf_of: string | null }[]) =>
        entries.map((e) => [e.code, e.unattended, e.on_behalf_of]);
      expect(summary(await query((tx) => tx.activity.list({ workspace_id: 'ws_1' })))).toEqual([
        ['routine_run_dispatched', false, 'admin'], ['wakeup_idle_skipped', false, null], ['wakeup_retry_scheduled', true, 'tok_alice'],
      ]);
      expect(summary(await query((tx) => tx.activity.list({ workspace_id: 'ws_1', unattended: true })))).toEqual([
        ['wakeup_retry_scheduled', true, 'tok_alice'],
      ]);
      expect(summary(await query((tx) => tx.activity.list({ workspace_id: 'ws_1', unattended: false })))).toEqual([
        ['routine_run_dispatched', false, 'admin'], ['wakeup_idle_skipped', false, null],
      ]);
      expect(summary(await query((tx) => tx.activity.list({ unattended: true })))).toEqual([
        ['comment_created', true, 'tok_bob'], ['wakeup_retry_scheduled', true, 'tok_alice'],
      ]);
    });

    it('a wakeup slot counts against the deployment\'s and its agent\'s routine-run caps, is refused at either with nothing taken, survives a retry, and is freed once when the wakeup ends', async () => {
      const { agent, workspace } = await write((tx) => seedAgent(tx, now, { max_concurrent_routine_runs: 1 }));
      const other = await write(async (tx) => {
        const row = { ...(await tx.agents.get(agent.id))!, id: `${agent.id}_b`, max_concurrent_routine_runs: null };
        await tx.agents.insert(row);
        return row;
      });
      const wakeups = await write(async (tx) => {
        const rows = [wakeupRow(agent, now), wakeupRow(agent, now), wakeupRow(other, now), wakeupRow(other, now)];
        for (const row of rows) await tx.wakeups.insert({ ...row, workspace_id: workspace.id, unattended: true, on_behalf_of: 'tok_alice' });
        return rows;
      });
      const caps = (agentCap: number | null) => ({ deployment: 2, agent: agentCap });
      const counts = () => read(async (tx) => ({
        deployment: await tx.routines.countActiveRuns({}),
        agent: await tx.routines.countActiveRuns({ agent_id: agent.id }),
        other: await tx.routines.countActiveRuns({ agent_id: other.id }),
      }));

      expect(await write((tx) => tx.routines.takeWakeupSlot(wakeups[0]!.id, agent.id, caps(1)))).toBe(true);
      expect(await write((tx) => tx.routines.takeWakeupSlot(wakeups[1]!.id, agent.id, caps(1)))).toBe(false); // the agent's cap
      expect(await counts()).toEqual({ deployment: 1, agent: 1, other: 0 });
      expect(await write((tx) => tx.routines.takeWakeupSlot(wakeups[2]!.id, other.id, caps(null)))).toBe(true);
      expect(await write((tx) => tx.routines.takeWakeupSlot(wakeups[3]!.id, other.id, caps(null)))).toBe(false); // the deployment's cap
      expect(await counts()).toEqual({ deployment: 2, agent: 1, other: 1 });

      // Claimed, then waiting for a retry: still open, the slot is kept.
      const fences = await write(async (tx) => [await tx.leases.take(agent.id, 'own_audit', null), await tx.leases.take(other.id, 'own_audit', null)]);
      await write((tx) => tx.wakeups.claim(wakeups[0]!.id, now, fences[0]!));
      await write((tx) => tx.wakeups.scheduleRetry(wakeups[0]!.id, { retry_count: 1, retry_at: now, error: 'failed' }));
      expect(await counts()).toEqual({ deployment: 2, agent: 1, other: 1 });
      // Ended: freed in the statement that ends it, once, whoever ends it.
      await write((tx) => tx.wakeups.claim(wakeups[0]!.id, now, fences[0]!));
      expect(await write((tx) => tx.wakeups.endClaimed(wakeups[0]!.id, { status: 'finished', finished_at: now }))).toMatchObject({ status: 'finished' });
      expect(await write((tx) => tx.wakeups.endClaimed(wakeups[0]!.id, { status: 'finished', finished_at: now + 1 }))).toBeUndefined();
      await write((tx) => tx.wakeups.claim(wakeups[2]!.id, now, fences[1]!));
      await write((tx) => tx.wakeups.endClaimed(wakeups[2]!.id, { status: 'cancelled', cancel_reason: 'agent_deleted', finished_at: now }));
      // A wakeup that never held a slot ends without freeing anyone else's.
      expect(await write((tx) => tx.wakeups.refuse(wakeups[1]!.id, 'cap_reached', now))).toMatchObject({ status: 'skipped', skip_reason: 'cap_reached' });
      expect(await counts()).toEqual({ deployment: 0, agent: 0, other: 0 });
      expect(await write((tx) => tx.routines.takeWakeupSlot(wakeups[3]!.id, other.id, caps(null)))).toBe(true);
    });

    it(`${RACERS} concurrent takers of one agent's wakeup slots never pass its cap`, async () => {
      const { agent, workspace } = await write((tx) => seedAgent(tx, now, { max_concurrent_routine_runs: 3 }));
      const rows = Array.from({ length: RACERS }, () => wakeupRow(agent, now, { workspace_id: workspace.id, unattended: true }));
      await write(async (tx) => { for (const row of rows) await tx.wakeups.insert(row); });
      const taken = await Promise.all(rows.map((row) => write((tx) => tx.routines.takeWakeupSlot(row.id, agent.id, { deployment: 100, agent: 3 }))));
      expect(taken.filter(Boolean)).toHaveLength(3);
      expect(await read((tx) => tx.routines.countActiveRuns({ agent_id: agent.id }))).toBe(3);
      expect(await read((tx) => tx.routines.countActiveRuns({}))).toBe(3);
    });

    it('an enqueue given the deployment\'s cap takes unattended follow-on work\'s slot itself, and at either cap stores the request refused (skipped, cap_reached) with the caps it met, taking nothing; attended and folded requests take none', async () => {
      const { agent, workspace } = await write((tx) => seedAgent(tx, now, { max_concurrent_routine_runs: 1 }));
      const other = { ...agent, id: `${agent.id}_b`, max_concurrent_routine_runs: null };
      await write((tx) => tx.agents.insert(other));
      const slot = { deploymentCap: 2 };
      const enqueue = (of: typeof agent, patch: Partial<Wakeup> = {}, fold: FoldRule | null = null) =>
        write((tx) => tx.wakeups.enqueueOrFold(requestOf(of, now, { ...UNATTENDED, ...patch }), fold, now - 1_000, slot));
      const counts = () => read(async (tx) => ({
        deployment: await tx.routines.countActiveRuns({}),
        agent: await tx.routines.countActiveRuns({ agent_id: agent.id }),
        other: await tx.routines.countActiveRuns({ agent_id: other.id }),
      }));

      expect(await enqueue(agent)).toMatchObject({ kind: 'queued', wakeup: { status: 'queued', workspace_id: workspace.id } });
      expect(await enqueue(agent, { unattended: false, on_behalf_of: null })).toMatchObject({ kind: 'queued' });
      expect(await enqueue(agent, {}, { windowSince: now - 1_000, anyTask: true })).toMatchObject({ kind: 'folded' });
      expect(await counts()).toEqual({ deployment: 1, agent: 1, other: 0 });

      // The agent's own cap, then the deployment's.
      const self = { source: 'self' as const, payload: { reason: 'again' } };
      expect(await enqueue(agent, self)).toMatchObject({ kind: 'refused', caps: { deployment: 2, agent: 1 } });
      expect(await enqueue(other)).toMatchObject({ kind: 'queued' });
      const refused = await enqueue(other);
      expect(refused).toMatchObject({ kind: 'refused', caps: { deployment: 2, agent: null }, wakeup: { status: 'skipped', skip_reason: 'cap_reached', finished_at: now } });
      expect(await read((tx) => tx.wakeups.get(refused.kind === 'refused' ? refused.wakeup.id : '')))
        .toMatchObject({ status: 'skipped', skip_reason: 'cap_reached', finished_at: now, ...UNATTENDED });
      expect(await counts()).toEqual({ deployment: 2, agent: 1, other: 1 });

      // Without a cap to take the slot under, the store takes none, and refuses nothing.
      expect(await write((tx) => tx.wakeups.enqueueOrFold(requestOf(agent, now, { ...UNATTENDED, ...self }), null, now - 1_000)))
        .toMatchObject({ kind: 'queued' });
      expect(await counts()).toEqual({ deployment: 2, agent: 1, other: 1 });
    });

    it(`${RACERS} concurrent enqueues of one agent's unattended work never pass its cap: the others are stored refused`, async () => {
      const { agent } = await write((tx) => seedAgent(tx, now, { max_concurrent_routine_runs: 3 }));
      const outcomes = await Promise.all(Array.from({ length: RACERS }, (_, i) =>
        write((tx) => tx.wakeups.enqueueOrFold(requestOf(agent, now + i, UNATTENDED), null, now - 1_000, { deploymentCap: 100 }))));
      expect(outcomes.filter((o) => o.kind === 'queued')).toHaveLength(3);
      expect(outcomes.filter((o) => o.kind === 'refused')).toHaveLength(RACERS - 3);
      expect(await read((tx) => tx.routines.countActiveRuns({ agent_id: agent.id }))).toBe(3);
      expect(await read((tx) => tx.routines.countActiveRuns({}))).toBe(3);
    });
  });
}

const UNATTENDED = { unattended: true, on_behalf_of: 'tok_alice' };

/** A new request as the wakeup service hands it to the enqueue: its own wake in its context, the workspace left to the store. */
function requestOf(agent: Pick<Agent, 'id' | 'workspace_id'>, at: number, patch: Partial<Wakeup> = {}): Wakeup {
  const row = wakeupRow(agent, at, patch);
  const wake = { wakeup_id: row.id, source: row.source, reason: row.reason, payload: row.payload, requested_at: new Date(at).toISOString() };
  return { ...row, workspace_id: '', context_snapshot: { wakes: [wake] } };
}
