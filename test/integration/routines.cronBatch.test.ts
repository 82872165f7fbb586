/**
 * A herd of cron ticks due at the same instant, end to end: the trigger actors hand their due ticks
 * to one batch, which claims every tick and records its routine run once, and queues its wakeup.
 * Time is an injected clock moved by hand (no sleeping); the routine wakeups stay held in their
 * coalescing window, so only the fires are observed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { apiClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { get, post, createWorkspace, createAgent } = apiClient(() => h);

const HERD = 40;

/** A herd of every-minute lightweight routines, one agent each, with their trigger actors waiting for the first tick. */
async function startHerd(clock: SimulatedClock) {
  const workspaceId = await createWorkspace();
  const routines: any[] = [];
  for (let i = 0; i < HERD; i++) {
    const agent = await createAgent(workspaceId, { name: `Agent ${i}`, skip_idle_wakeups: false });
    routines.push(await post('/api/office/routines', {
      workspace_id: workspaceId, name: `Every minute ${i}`, assignee_agent_instance_id: agent, concurrency_policy: 'always_enqueue',
      triggers: [{ kind: 'schedule', cron_expression: '* * * * *', timezone: 'UTC' }],
    }));
  }
  const triggerIds = routines.map((r) => r.triggers[0].id as string);
  await h!.waitFor(() => triggerIds.every((id) => h!.scheduler.triggers.view(id)?.state === 'waiting'), 'every trigger actor to wait for its tick');
  await h!.scheduler.triggers.flush();
  const firstTick = Date.parse(routines[0].triggers[0].next_run_at);
  expect(routines.every((r) => Date.parse(r.triggers[0].next_run_at) === firstTick)).toBe(true);
  expect(clock.now()).toBeLessThan(firstTick);
  return { routines, triggerIds, firstTick };
}

const runsOf = async (routine: any): Promise<any[]> => get(`/api/office/routines/${routine.id}/runs`);

describe('a herd of cron ticks due together', () => {
  it('fires every due tick exactly once, in a handful of transactions rather than one per fire, and the next tick again exactly once', async () => {
    const clock = new SimulatedClock();
    clock.set(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
    h = await startHarness({}, undefined, clock);
    const { routines, triggerIds, firstTick } = await startHerd(clock);
    const allHave = (n: number) => async () => (await Promise.all(routines.map(runsOf))).every((runs) => runs.length >= n);

    const transactionsBefore = h.scheduler.store.transactionsExecuted();
    clock.set(firstTick);
    await h.waitFor(allHave(1), 'every routine to record its first tick');
    await h.waitFor(() => triggerIds.every((id) => h!.scheduler.triggers.view(id)?.next_run_at === firstTick + 60_000), 'every trigger to wait for its next tick');
    // One batch claims and fires the herd: its transaction, and at most a few others (snapshot writes).
    expect(h.scheduler.store.transactionsExecuted() - transactionsBefore).toBeLessThanOrEqual(5);

    clock.set(firstTick + 60_000);
    await h.waitFor(allHave(2), 'every routine to record its second tick');
    for (const routine of routines) {
      const runs = await runsOf(routine);
      expect(runs.map((r) => [r.source, r.status, r.scheduled_for]).sort()).toEqual([
        ['cron', 'dispatched', new Date(firstTick).toISOString()],
        ['cron', 'dispatched', new Date(firstTick + 60_000).toISOString()],
      ]);
      const wakeups: any[] = await get(`/api/office/wakeups?agent_id=${routine.assignee_agent_instance_id}&source=routine`);
      expect(wakeups.map((w) => w.idempotency_key).sort()).toEqual(runs.map((r) =>
        `routine:${routine.id}:${routine.triggers[0].id}:${Date.parse(r.scheduled_for) / 1000}`).sort());
    }
  });
});

describe('one broken fire in a herd', () => {
  it('a fire whose write fails undoes none of the others: each of them is recorded and queued once, and the broken tick, left unclaimed, fires once when it is retried', async () => {
    const clock = new SimulatedClock();
    clock.set(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
    h = await startHarness({}, undefined, clock);
    const { routines, triggerIds, firstTick } = await startHerd(clock);
    const broken = routines[HERD / 2];
    const others = routines.filter((r) => r !== broken);
    // A real failure of the database in the middle of the batch: this one agent's wakeup cannot be written.
    const db = (h.scheduler.store as unknown as { db: import('better-sqlite3').Database }).db;
    db.exec(`CREATE TEMP TRIGGER fail_one_fire BEFORE INSERT ON agent_wakeup_requests WHEN NEW.agent_id = '${broken.assignee_agent_instance_id}'
      BEGIN SELECT RAISE(ABORT, 'injected: this wakeup cannot be written'); END`);

    clock.set(firstTick);
    await h.waitFor(async () => (await Promise.all(others.map(runsOf))).every((runs) => runs.length === 1), 'every other routine to record its tick');
    await h.waitFor(() => triggerIds.filter((id) => id !== broken.triggers[0].id)
      .every((id) => h!.scheduler.triggers.view(id)?.next_run_at === firstTick + 60_000), 'every other trigger to wait for its next tick');
    for (const routine of others) {
      const [run] = await runsOf(routine);
      expect([run.source, run.status, run.scheduled_for]).toEqual(['cron', 'dispatched', new Date(firstTick).toISOString()]);
      const wakeups: any[] = await get(`/api/office/wakeups?agent_id=${routine.assignee_agent_instance_id}&source=routine`);
      expect(wakeups.map((w) => w.routine_run_id)).toEqual([run.id]);
    }
    // Its whole fire rolled back, the claim with it: no routine run, and the tick is still the trigger's next.
    expect(await runsOf(broken)).toEqual([]);
    expect(h.scheduler.triggers.view(broken.triggers[0].id)).toEqual({ state: 'waiting', next_run_at: firstTick });

    // Mended, the trigger tries again after its backoff (5 s for a first failure) and fires the same tick, once.
    db.exec('DROP TRIGGER fail_one_fire');
    clock.set(firstTick + 5_000);
    await h.waitFor(async () => (await runsOf(broken)).length === 1, 'the broken routine to record its tick on the retry');
    await h.waitFor(() => h!.scheduler.triggers.view(broken.triggers[0].id)?.next_run_at === firstTick + 60_000, 'the mended trigger to wait for its next tick');
    const [retried] = await runsOf(broken);
    expect([retried.status, retried.scheduled_for]).toEqual(['dispatched', new Date(firstTick).toISOString()]);
    expect((await Promise.all(others.map(runsOf))).map((runs) => runs.length)).toEqual(others.map(() => 1));
  });
});
