/**
 * The routine-run caps as counter rows (API.md, "Routine-run caps"; migration 0013): end to end with
 * the real HTTP server, a SQLite file and fixture agents. After every step the counters must equal
 * the routine runs that hold a slot (dispatched or task_created, outcome still null), deployment-wide
 * and per agent, and a fire at a cap is refused. The coalescing hold runs on an injected clock that
 * moves only when told, so a routine wakeup waits, unclaimed, until the test releases it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createScheduler } from '../../src/scheduler.js';
import { loadConfig } from '../../src/config.js';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';
import { sqliteFaults } from '../helpers/storage.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { get, post, call, createAgent, waitForWakeupStatus } = apiClient(() => h);

function stillClock(): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(Math.floor(Date.now() / 60_000) * 60_000);
  return clock;
}

const manualRoutine = (workspaceId: string, assignee: string, name: string, policy = 'always_enqueue'): Promise<any> =>
  post('/api/office/routines', { workspace_id: workspaceId, name, assignee_agent_instance_id: assignee, concurrency_policy: policy, triggers: [{ kind: 'manual' }] });
const fire = async (routineId: string): Promise<any> => (await post(`/api/office/routines/${routineId}/fire`, {}, 202)).routine_run;

/** The runs that hold a slot, counted over the rows the API shows: what the counters must equal. */
async function openRunsByAgent(routines: { id: string; assignee_agent_instance_id: string }[]) {
  const byAgent = new Map<string, number>();
  for (const routine of routines) {
    const runs: any[] = await get(`/api/office/routines/${routine.id}/runs`);
    const open = runs.filter((r) => r.outcome === null && (r.status === 'dispatched' || r.status === 'task_created')).length;
    byAgent.set(routine.assignee_agent_instance_id, (byAgent.get(routine.assignee_agent_instance_id) ?? 0) + open);
  }
  return byAgent;
}

async function expectCountersToMatchRows(routines: { id: string; assignee_agent_instance_id: string }[], expectedTotal: number) {
  const open = await openRunsByAgent(routines);
  const counters = await h!.scheduler.store.read(async (tx) => ({
    total: await tx.routines.countActiveRuns({}),
    byAgent: new Map(await Promise.all([...open.keys()].map(async (agent) => [agent, await tx.routines.countActiveRuns({ agent_id: agent })] as const))),
  }));
  expect(counters.total).toBe(expectedTotal);
  expect(counters.total).toBe([...open.values()].reduce((a, b) => a + b, 0));
  expect(counters.byAgent).toEqual(open);
}

describe('routine-run cap counters', () => {
  it('stay equal to the open routine runs across dispatch, coalesce, cap refusals, finish and agent deletion; a fire at either cap is skipped cap_reached', async () => {
    const clock = stillClock();
    h = await startHarness({ OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: '3' }, undefined, clock);
    const { workspaceId, agentId: capped } = await seedAgent(h, { skip_idle_wakeups: false, max_concurrent_routine_runs: 1 });
    const other = await createAgent(workspaceId, { name: 'Other', skip_idle_wakeups: false });
    const doomed = await createAgent(workspaceId, { name: 'Doomed', skip_idle_wakeups: false });
    const a1 = await manualRoutine(workspaceId, capped, 'A1');
    const a2 = await manualRoutine(workspaceId, capped, 'A2');
    const b = await manualRoutine(workspaceId, other, 'B', 'coalesce_if_active');
    const d = await manualRoutine(workspaceId, doomed, 'D');
    const all = [a1, a2, b, d];

    const first = await fire(a1.id);
    expect(first.status).toBe('dispatched');
    expect(await fire(a2.id)).toMatchObject({ status: 'skipped', skip_reason: 'cap_reached' }); // the agent's cap of 1
    await expectCountersToMatchRows(all, 1);

    const second = await fire(b.id);
    expect(second.status).toBe('dispatched');
    // Folded into the first, still queued: it took a slot and gave it back.
    expect(await fire(b.id)).toMatchObject({ status: 'coalesced', coalesced_into_run_id: second.id });
    await expectCountersToMatchRows(all, 2);
    const third = await fire(d.id);
    expect(third.status).toBe('dispatched');
    expect(await fire(b.id)).toMatchObject({ status: 'skipped', skip_reason: 'cap_reached' }); // the deployment's cap of 3
    await expectCountersToMatchRows(all, 3);

    // The holds end: the sessions run and succeed, and their runs free their slots.
    clock.increment(60_000);
    for (const run of [first, second, third]) await waitForWakeupStatus(run.linked_wakeup_id, 'finished', `routine wakeup ${run.id} to finish`);
    await h.waitFor(async () => [...(await openRunsByAgent(all)).values()].every((n) => n === 0), 'the routine runs to settle');
    await expectCountersToMatchRows(all, 0);

    // Agent deletion cancels the queued routine wakeup of its run, which frees its slots.
    const doomedRun = await fire(d.id);
    expect(doomedRun.status).toBe('dispatched');
    await expectCountersToMatchRows(all, 1);
    await call('DELETE', `/api/office/agents/${doomed}`, undefined, 204);
    expect((await get(`/api/office/routines/${d.id}/runs`)).find((r: any) => r.id === doomedRun.id)).toMatchObject({ outcome: 'cancelled' });
    await expectCountersToMatchRows(all, 0);

    expect((await fire(a2.id)).status).toBe('dispatched');
    await expectCountersToMatchRows(all, 1);
  });

  it('a routine run whose session fails frees its slot', async () => {
    h = await startHarness({ OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: '1', OFFICE_BACKOFF: '10ms,10ms,10ms,10ms' });
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false, executor: fixtureAgent('fail.mjs') });
    const routine = await manualRoutine(workspaceId, agentId, 'Broken');
    const failing = await fire(routine.id);
    expect(failing.status).toBe('dispatched');
    await h.waitFor(async () => (await get(`/api/office/routines/${routine.id}/runs`)).find((r: any) => r.id === failing.id).outcome === 'failed',
      'the routine run to fail after its retries', 20_000);
    await expectCountersToMatchRows([routine], 0);
    expect((await fire(routine.id)).status).toBe('dispatched');
  });
});

describe('upgrading to counter rows (migration 0013)', () => {
  it('initialises the counters from the routine runs still open, deployment-wide and per agent, and leaves settled ones out', async () => {
    const clock = stillClock();
    h = await startHarness({}, undefined, clock);
    const { workspaceId, agentId: first } = await seedAgent(h, { skip_idle_wakeups: false });
    const second = await createAgent(workspaceId, { name: 'Second', skip_idle_wakeups: false });
    const r1 = await manualRoutine(workspaceId, first, 'One');
    const r2 = await manualRoutine(workspaceId, second, 'Two');
    const third = await createAgent(workspaceId, { name: 'Third', skip_idle_wakeups: false });
    const r3 = await manualRoutine(workspaceId, third, 'Three');
    await fire(r1.id);
    await fire(r1.id);
    await fire(r2.id);
    const settled = await fire(r3.id);
    expect(settled.status).toBe('dispatched');
    const dbPath = h.dbPath;
    const env = { OFFICE_DB: dbPath, OFFICE_LOG_LEVEL: 'silent', OFFICE_PORT: '0' };
    const expected = await openRunsByAgent([r1, r2, r3]);
    await h.scheduler.stop();

    // The database as the version before 0013 left it: no counters, one run settled meanwhile.
    const db = sqliteFaults(dbPath);
    db.exec(`DROP TRIGGER routine_run_slots_freed; DROP TRIGGER routine_run_slots_reopened;
      DROP TABLE office_routine_run_slot_holders; DROP TABLE office_routine_run_slots;
      DELETE FROM schema_migrations WHERE version = 13;`);
    db.run("UPDATE office_routine_runs SET outcome = 'succeeded', completed_at = 1 WHERE id = ?", settled.id);
    db.close();
    expected.set(third, expected.get(third)! - 1);

    const upgraded = await createScheduler({ config: loadConfig(env), clock });
    try {
      const counters = await upgraded.store.read(async (tx) => [
        await tx.routines.countActiveRuns({}),
        await tx.routines.countActiveRuns({ agent_id: first }),
        await tx.routines.countActiveRuns({ agent_id: second }),
        await tx.routines.countActiveRuns({ agent_id: third }),
      ]);
      expect(counters).toEqual([expected.get(first)! + expected.get(second)!, expected.get(first), expected.get(second), expected.get(third)]);
      // Not a trivially empty upgrade: r1's second fire folded into its first, and r3's run was settled before it.
      expect(counters).toEqual([2, 1, 1, 0]);
    } finally {
      await upgraded.stop();
    }
  });
});
