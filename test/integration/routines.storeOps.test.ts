/**
 * The routine operations of the Store port, driven through the port with concurrent callers:
 * the batch claim of cron ticks (claim and record in one operation), and the routine-run cap
 * slots kept as counter rows. Time is the store's fixed clock; nothing sleeps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/persistence/store.js';
import { sqliteStoreFactory, type StoreUnderTest } from '../store/factory.js';
import { agentRow, routineRow, routineRunRow, seedAgent, triggerRow } from '../store/rows.js';

let under: StoreUnderTest | undefined;
afterEach(async () => {
  await under?.dispose();
  under = undefined;
});

const HOUR = 3_600_000;

/** `count` schedule triggers (one routine each, one agent), all due at `due`. */
async function dueTriggers(store: Store, at: number, count: number, due: number) {
  return store.transaction(async (tx) => {
    const { agent } = await seedAgent(tx, at);
    const triggers = [];
    for (let i = 0; i < count; i++) {
      const routine = routineRow(agent, at);
      await tx.routines.insert(routine);
      const trigger = triggerRow(routine.id, at, { next_run_at: due });
      await tx.routines.insertTrigger(trigger);
      triggers.push({ routine, trigger });
    }
    return { agent, triggers };
  });
}

function claimsFor(triggers: { routine: { id: string }; trigger: { id: string } }[], due: number, at: number) {
  return triggers.map(({ routine, trigger }) => ({
    triggerId: trigger.id, expectedNextRunAt: due, nextRunAt: due + HOUR,
    run: routineRunRow(routine, at, { trigger_id: trigger.id, source: 'cron', scheduled_for: due }),
  }));
}

describe('claimTicks: claim a batch of cron ticks and record their routine runs', () => {
  it('claims every due tick of the batch exactly once, moves next_run_at, and records one routine run per tick', async () => {
    under = await sqliteStoreFactory();
    const at = under.clock.now;
    const due = at + 1000;
    const { triggers } = await dueTriggers(under.store, at, 50, due);

    const won = await under.store.transaction((tx) => tx.routines.claimTicks(claimsFor(triggers, due, at), at));
    expect(won).toEqual(triggers.map(({ trigger }) => ({ triggerId: trigger.id, recorded: true })));

    const again = await under.store.transaction((tx) => tx.routines.claimTicks(claimsFor(triggers, due, at), at));
    expect(again).toEqual([]);
    await under.store.query(async (tx) => {
      for (const { routine, trigger } of triggers) {
        expect((await tx.routines.getTrigger(trigger.id))!.next_run_at).toBe(due + HOUR);
        const runs = await tx.routines.runsOf(routine.id, 10);
        expect(runs.map((run) => [run.trigger_id, run.scheduled_for, run.status, run.unattended])).toEqual([[trigger.id, due, 'received', true]]);
      }
    });
  });

  it('two callers claiming the same batch concurrently split it: each tick is won by one of them and recorded once', async () => {
    under = await sqliteStoreFactory();
    const at = under.clock.now;
    const due = at + 1000;
    const { triggers } = await dueTriggers(under.store, at, 40, due);
    // Each caller sees the same due ticks but makes its own runs, as two replicas would.
    const [first, second] = await Promise.all([1, 2].map(() =>
      under!.store.transaction((tx) => tx.routines.claimTicks(claimsFor(triggers, due, at), at))));

    const winners = [...first!, ...second!].map((w) => w.triggerId).sort();
    expect(winners).toEqual(triggers.map(({ trigger }) => trigger.id).sort());
    expect([...first!, ...second!].every((w) => w.recorded)).toBe(true);
    await under.store.query(async (tx) => {
      for (const { routine } of triggers) expect(await tx.routines.runsOf(routine.id, 10)).toHaveLength(1);
    });
  });

  it('a claim whose trigger moved on (another next_run_at) is not won, and a tick that already has its run is claimed but not recorded twice', async () => {
    under = await sqliteStoreFactory();
    const at = under.clock.now;
    const due = at + 1000;
    const { triggers } = await dueTriggers(under.store, at, 3, due);
    const [moved, recordedBefore, fresh] = triggers;
    await under.store.transaction(async (tx) => {
      await tx.routines.editTrigger(moved!.trigger.id, { next_run_at: due + 5 * HOUR });
      await tx.routines.insertRun(routineRunRow(recordedBefore!.routine, at, { trigger_id: recordedBefore!.trigger.id, source: 'cron', scheduled_for: due }));
    });

    const won = await under.store.transaction((tx) => tx.routines.claimTicks(claimsFor(triggers, due, at), at));
    expect(won).toEqual([
      { triggerId: recordedBefore!.trigger.id, recorded: false },
      { triggerId: fresh!.trigger.id, recorded: true },
    ]);
    await under.store.query(async (tx) => {
      expect((await tx.routines.getTrigger(moved!.trigger.id))!.next_run_at).toBe(due + 5 * HOUR);
      expect(await tx.routines.runsOf(moved!.routine.id, 10)).toEqual([]);
      expect(await tx.routines.runsOf(recordedBefore!.routine.id, 10)).toHaveLength(1);
    });
  });
});

describe('routine-run cap slots: counter rows taken below the cap, freed once', () => {
  async function openRuns(store: Store, at: number, count: number) {
    return store.transaction(async (tx) => {
      const { agent } = await seedAgent(tx, at);
      const routine = routineRow(agent, at);
      await tx.routines.insert(routine);
      const runs = [];
      for (let i = 0; i < count; i++) {
        const run = routineRunRow(routine, at);
        await tx.routines.insertRun(run);
        runs.push(run);
      }
      return { agent, runs };
    });
  }

  it('concurrent takers never raise a counter past its cap: with an agent cap of 3, exactly 3 of 10 slots are granted', async () => {
    under = await sqliteStoreFactory();
    const { agent, runs } = await openRuns(under.store, under.clock.now, 10);
    const granted = await Promise.all(runs.map((run) =>
      under!.store.transaction((tx) => tx.routines.takeRunSlot(run.id, agent.id, { deployment: 100, agent: 3 }))));
    expect(granted.filter(Boolean)).toHaveLength(3);
    await under.store.read(async (tx) => {
      expect(await tx.routines.countActiveRuns({ agent_id: agent.id })).toBe(3);
      // The agent's refusal gave the deployment slot back: the two counters agree.
      expect(await tx.routines.countActiveRuns({})).toBe(3);
    });
  });

  it('a batch takes slots for every run whose agent has room for its whole share, within the deployment cap, and none for the others', async () => {
    under = await sqliteStoreFactory();
    const at = under.clock.now;
    const { capped, free, runs } = await under.store.transaction(async (tx) => {
      const { workspace, agent: capped } = await seedAgent(tx, at, { max_concurrent_routine_runs: 3 });
      const free = agentRow(workspace.id, at);
      await tx.agents.insert(free);
      const runs = [];
      for (const agent of [capped, capped, capped, capped, free, free]) {
        const routine = routineRow(agent, at);
        await tx.routines.insert(routine);
        const run = routineRunRow(routine, at);
        await tx.routines.insertRun(run);
        runs.push({ runId: run.id, agentId: agent.id });
      }
      return { capped, free, runs };
    });
    // The capped agent's share (4) exceeds its cap (3): its runs are left to take slots one by one.
    const granted = await under.store.transaction((tx) => tx.routines.takeRunSlots(runs, 10));
    expect([...granted].sort()).toEqual(runs.filter((r) => r.agentId === free.id).map((r) => r.runId).sort());
    const counts = () => under!.store.read(async (tx) => [
      await tx.routines.countActiveRuns({}), await tx.routines.countActiveRuns({ agent_id: capped.id }), await tx.routines.countActiveRuns({ agent_id: free.id }),
    ]);
    expect(await counts()).toEqual([2, 0, 2]);
    // A batch larger than the room left under the deployment cap takes nothing.
    expect(await under.store.transaction((tx) => tx.routines.takeRunSlots(runs.slice(0, 3), 4))).toEqual(new Set());
    expect(await counts()).toEqual([2, 0, 2]);
    // With slots already held, a share is granted only within the room left: 1 + 2 fits a cap of 3, 1 more does not.
    const cappedRuns = runs.filter((r) => r.agentId === capped.id);
    expect(await under.store.transaction((tx) => tx.routines.takeRunSlot(cappedRuns[0]!.runId, capped.id, { deployment: 10, agent: 3 }))).toBe(true);
    expect(await under.store.transaction((tx) => tx.routines.takeRunSlots(cappedRuns.slice(1, 3), 10))).toEqual(new Set([cappedRuns[1]!.runId, cappedRuns[2]!.runId]));
    expect(await under.store.transaction((tx) => tx.routines.takeRunSlots(cappedRuns.slice(3), 10))).toEqual(new Set());
    expect(await counts()).toEqual([5, 3, 2]);
    await under.store.transaction(async (tx) => {
      for (const run of cappedRuns.slice(0, 3)) await tx.routines.settleRun(run.runId, { outcome: 'cancelled', completed_at: at });
    });
    // Slots taken in a batch are freed by the outcome like any other.
    await under.store.transaction((tx) => tx.routines.settleRun(runs[4]!.runId, { outcome: 'succeeded', completed_at: at }));
    expect(await counts()).toEqual([1, 0, 1]);
  });

  it('the deployment cap refuses across agents, and settling a run frees its slot exactly once', async () => {
    under = await sqliteStoreFactory();
    const { agent, runs } = await openRuns(under.store, under.clock.now, 3);
    const caps = { deployment: 2, agent: null };
    const take = (runId: string) => under!.store.transaction((tx) => tx.routines.takeRunSlot(runId, agent.id, caps));
    expect([await take(runs[0]!.id), await take(runs[1]!.id), await take(runs[2]!.id)]).toEqual([true, true, false]);

    const settle = () => under!.store.transaction((tx) => tx.routines.settleRun(runs[0]!.id, { outcome: 'succeeded', completed_at: under!.clock.now }));
    const [once, twice] = await Promise.all([settle(), settle()]);
    expect([once?.outcome, twice]).toEqual(['succeeded', undefined]);
    await under.store.read(async (tx) => {
      expect(await tx.routines.countActiveRuns({})).toBe(1);
      expect(await tx.routines.countActiveRuns({ agent_id: agent.id })).toBe(1);
    });
    expect(await take(runs[2]!.id)).toBe(true);
    // A run released without an outcome (it ended coalesced) frees its slot once too.
    expect(await under.store.transaction((tx) => tx.routines.releaseRunSlot(runs[2]!.id))).toBe(true);
    expect(await under.store.transaction((tx) => tx.routines.releaseRunSlot(runs[2]!.id))).toBe(false);
    expect(await under.store.read((tx) => tx.routines.countActiveRuns({}))).toBe(1);
  });
});

describe('countOutcome: failed runs in a row, counted in the routine row', () => {
  it('concurrent failed outcomes each count, the routine pauses exactly once at its limit, and a success resets the count', async () => {
    under = await sqliteStoreFactory();
    const at = under.clock.now;
    const routine = await under.store.transaction(async (tx) => {
      const { agent } = await seedAgent(tx, at);
      const routine = routineRow(agent, at, { consecutive_failure_limit: 2 });
      await tx.routines.insert(routine);
      return routine;
    });
    const reason = 'paused after {n} failures';
    const counted = await Promise.all([1, 2, 3].map(() =>
      under!.store.transaction((tx) => tx.routines.countOutcome(routine.id, false, at, reason))));
    expect(counted.map((c) => [c!.consecutive_failures, c!.paused])).toEqual([[1, false], [2, true], [3, false]]);
    const row = await under.store.read((tx) => tx.routines.get(routine.id));
    expect(row).toMatchObject({ status: 'paused', paused_reason: 'paused after 2 failures', consecutive_failures: 3 });

    const reset = await under.store.transaction((tx) => tx.routines.countOutcome(routine.id, true, at, reason));
    expect(reset).toMatchObject({ consecutive_failures: 0, paused: false });
  });
});

describe('carried missed-ticks notes, kept in the routine row', () => {
  it('notes of skipped fires add up in the row (counts sum, the earliest since stays), and taking the note clears it once', async () => {
    under = await sqliteStoreFactory();
    const at = under.clock.now;
    const routine = await under.store.transaction(async (tx) => {
      const { agent } = await seedAgent(tx, at);
      const routine = routineRow(agent, at);
      await tx.routines.insert(routine);
      return routine;
    });
    await Promise.all([{ count: 3, since: at - 60_000 }, { count: 4, since: at - 120_000 }].map((note) =>
      under!.store.transaction((tx) => tx.routines.carryMissedTicks(routine.id, note))));
    const [first, second] = await Promise.all([1, 2].map(() => under!.store.transaction((tx) => tx.routines.takeCarriedMissedTicks(routine.id))));
    expect([first, second]).toEqual([{ count: 7, since: at - 120_000 }, null]);
    expect((await under.store.read((tx) => tx.routines.get(routine.id)))!.carried_missed_ticks).toBeNull();
  });
});
