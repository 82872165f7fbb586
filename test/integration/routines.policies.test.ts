/**
 * Routine policies and outcomes (issue 11, items 9, 10, 11, 12 and 15), end to end: the real HTTP
 * server, a SQLite file and fixture agents; cron ticks on an injected clock (XState's
 * SimulatedClock). API.md, Pinned details: "Routines", "Active".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { get, post, patch, createAgent, createWorkspace, getWakeup, getTask, listRuns, waitForWakeupEnd } = apiClient(() => h);
const SLOW = (ms: number) => fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: String(ms) });

const createRoutine = (body: Record<string, unknown>): Promise<any> => post('/api/office/routines', body);
const fire = async (routineId: string, variables: Record<string, unknown> = {}) =>
  (await post(`/api/office/routines/${routineId}/fire`, { variables }, 202)).routine_run;
const routineRuns = (routineId: string): Promise<any[]> => get(`/api/office/routines/${routineId}/runs`);
const runOf = async (routineId: string, runId: string) => (await routineRuns(routineId)).find((r) => r.id === runId);

/** The routine run, once its outcome is recorded. */
const settledRun = (routineId: string, runId: string) =>
  h!.waitFor(async () => {
    const run = await runOf(routineId, runId);
    return run.outcome ? run : null;
  }, `routine run ${runId} to be settled`);

/** The agent's session on the task, once it runs. */
const runningOn = (agentId: string, taskId: string) =>
  h!.waitFor(async () => (await listRuns({ agent_id: agentId, task_id: taskId })).find((r) => r.status === 'running'), `a session on task ${taskId}`);

/** A heavy routine on a slow agent, fired once by hand: its task's session is running. */
async function heavyRoutineRunning(policy: string, sleepMs: number) {
  h = await startHarness();
  const { workspaceId, agentId } = await seedAgent(h, { executor: SLOW(sleepMs) });
  const routine = await createRoutine({
    workspace_id: workspaceId, name: 'Audit', assignee_agent_instance_id: agentId, concurrency_policy: policy,
    task_template: { title: 'Audit {{date}}' }, triggers: [{ kind: 'manual' }],
  });
  const first = await fire(routine.id);
  expect(first.status).toBe('task_created');
  const session = await runningOn(agentId, first.linked_task_id);
  return { workspaceId, agentId, routine, first, taskId: first.linked_task_id as string, session };
}

describe('heavy coalesce_if_active (item 9)', () => {
  it('a fire coalesced into a heavy run whose session is already running reaches the agent: its variables are in the context of the next session on that task, after which the task completes', async () => {
    const { agentId, routine, first, taskId, session } = await heavyRoutineRunning('coalesce_if_active', 2000);
    const second = await fire(routine.id, { note: 'second look' });
    expect(second).toMatchObject({ status: 'coalesced', coalesced_into_run_id: first.id, linked_task_id: null, linked_wakeup_id: expect.any(String) });
    expect(await getWakeup(second.linked_wakeup_id)).toMatchObject({ source: 'routine', task_id: taskId, routine_run_id: second.id });

    const carried = await h!.waitFor(async () => (await listRuns({ agent_id: agentId, task_id: taskId }))
      .find((run) => run.id !== session.id && run.status === 'succeeded'
        && run.context_snapshot.wakes.some((wake: any) => wake.payload.variables?.note === 'second look')), 'a session that sees the coalesced fire');
    expect(carried.wakeup_id).toBe(second.linked_wakeup_id);
    expect(await settledRun(routine.id, first.id)).toMatchObject({ outcome: 'succeeded' });
    await h!.waitFor(async () => (await getTask(taskId)).state === 'DONE', 'the routine task to complete');
  });

  it('a fire coalesced into a heavy run whose assignment still waits in the queue folds into that wakeup: one session on the task sees both fires', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { executor: SLOW(1500) });
    await post(`/api/office/agents/${agentId}/wake`, { reason: 'keep the only slot busy' }, 202);
    await h.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.status === 'running'), 'the busy session');
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Audit', assignee_agent_instance_id: agentId, concurrency_policy: 'coalesce_if_active',
      task_template: { title: 'Audit {{date}}' }, triggers: [{ kind: 'manual' }],
    });
    const first = await fire(routine.id);
    const assignment = await h.waitFor(async () => (await get(`/api/office/wakeups?agent_id=${agentId}&source=task_assigned`))
      .find((w: any) => w.task_id === first.linked_task_id && w.status === 'queued'), 'the task assignment waiting in the queue');

    const second = await fire(routine.id, { note: 'folded' });
    expect(second).toMatchObject({ status: 'coalesced', coalesced_into_run_id: first.id, linked_wakeup_id: assignment.id });
    const waiting = await getWakeup(assignment.id);
    expect(waiting.coalesced_count).toBe(2);
    expect(waiting.context_snapshot.wakes.map((wake: any) => wake.payload.variables?.note ?? null)).toEqual([null, 'folded']);

    await h.waitFor(async () => (await getTask(first.linked_task_id)).state === 'DONE', 'the routine task to complete');
    const sessions = await listRuns({ agent_id: agentId, task_id: first.linked_task_id });
    expect(sessions).toHaveLength(1);
    expect(sessions[0].context_snapshot.wakes.some((wake: any) => wake.payload.variables?.note === 'folded')).toBe(true);
    expect(await settledRun(routine.id, first.id)).toMatchObject({ outcome: 'succeeded' });
  });
});

describe('"active" for the concurrency policies (item 10)', () => {
  it('a heavy routine whose task a person moved to DONE is no longer active: skip_if_active creates a new task although the first session still runs', async () => {
    const { routine, first, taskId } = await heavyRoutineRunning('skip_if_active', 6000);
    await post(`/api/office/tasks/${taskId}/move`, { state: 'DONE' }, 200);
    expect((await runOf(routine.id, first.id)).outcome).toBeNull();

    const second = await fire(routine.id);
    expect(second).toMatchObject({ status: 'task_created', skip_reason: null });
    expect(second.linked_task_id).not.toBe(taskId);
    // While that new task is open, the routine is active again.
    expect(await fire(routine.id)).toMatchObject({ status: 'skipped', skip_reason: 'active_run' });
  });
});

describe('the heavy-routine outcome comes from its own wakeup (item 11)', () => {
  it('another agent\'s wakeup about the routine task that ends first (an approval decision for a paused agent) sets no outcome; the routine\'s own assignment sets it, and the task auto-completes', async () => {
    const { workspaceId, routine, first, taskId } = await heavyRoutineRunning('coalesce_if_active', 4000);
    const reviewer = await createAgent(workspaceId, { name: 'Reviewer' });
    // Paused: its wakeup ends at once, with no run, while the routine's own session still runs.
    await patch(`/api/office/agents/${reviewer}`, { status: 'paused' });
    const approval = await post('/api/office/approvals', { task_id: taskId, requested_by_agent_id: reviewer, title: 'Looks right?' });
    await post(`/api/office/approvals/${approval.id}/resolve`, { status: 'approved' }, 200);
    const decision = await h!.waitFor(async () => (await get(`/api/office/wakeups?agent_id=${reviewer}`))
      .find((w: any) => w.source === 'approval_resolved'), 'the reviewer\'s approval wakeup');
    expect(await waitForWakeupEnd(decision.id)).toMatchObject({ status: 'finished', run_id: null });
    expect((await runOf(routine.id, first.id)).outcome).toBeNull();

    const settled = await settledRun(routine.id, first.id);
    expect(settled.outcome).toBe('succeeded');
    expect(await getTask(taskId)).toMatchObject({ state: 'DONE' });
  });
});

describe('the missed-ticks note under skip_if_active (item 12)', () => {
  it('when the catch-up tick that carries missed_ticks is skipped, the note goes with the next fire that dispatches', async () => {
    const clock = new SimulatedClock();
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    clock.set(minute);
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '0' }, undefined, clock);
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Minutely', assignee_agent_instance_id: agentId, concurrency_policy: 'skip_if_active',
      catch_up_policy: 'enqueue_missed_with_cap', catch_up_max: 2,
      triggers: [{ kind: 'schedule', cron_expression: '* * * * *', timezone: 'UTC' }, { kind: 'manual' }],
    });
    await h.waitFor(() => h!.scheduler.triggers.view(routine.triggers[0].id), 'the trigger actor');

    // Ten minutes of downtime: the catch-up fires two ticks; the second, with the note, finds the first active.
    clock.set(minute + 11 * 60_000);
    const [skipped, dispatched] = await h.waitFor(async () => {
      const runs = await routineRuns(routine.id);
      return runs.length === 2 ? runs : null;
    }, 'the two catch-up ticks');
    expect(dispatched).toMatchObject({ status: 'dispatched', scheduled_for: new Date(minute + 60_000).toISOString() });
    expect(skipped).toMatchObject({ status: 'skipped', skip_reason: 'active_run', scheduled_for: new Date(minute + 120_000).toISOString() });
    expect((await getWakeup(dispatched.linked_wakeup_id)).payload.missed_ticks).toBeUndefined();
    await settledRun(routine.id, dispatched.id);

    const next = await fire(routine.id);
    expect(next.status).toBe('dispatched');
    expect((await getWakeup(next.linked_wakeup_id)).payload).toMatchObject({ missed_ticks: 9, missed_since: skipped.scheduled_for });
    await settledRun(routine.id, next.id);
    // Delivered once: the fire after that carries no note.
    expect((await getWakeup((await fire(routine.id)).linked_wakeup_id)).payload.missed_ticks).toBeUndefined();
  });
});

describe('the coordinator heartbeat (item 15)', () => {
  it('is installed in the transaction that creates the coordinator: when it cannot be installed, no coordinator is left behind', async () => {
    h = await startHarness();
    const workspaceId = await createWorkspace();
    const body = { workspace_id: workspaceId, name: 'Boss', role: 'coordinator', executor: fixtureAgent('succeed.mjs') };
    const routines = (h.scheduler.store as unknown as { repos: { routines: { insert: (...args: unknown[]) => unknown } } }).repos.routines;
    const insert = routines.insert;
    routines.insert = () => { throw new Error('the process died while installing the heartbeat'); };
    const failed = await h.api('POST', '/api/office/agents', body);
    routines.insert = insert;
    expect(failed.status).not.toBe(201);
    expect(await get(`/api/office/agents?workspace_id=${workspaceId}`)).toEqual([]);

    const coordinator = await post('/api/office/agents', body);
    const heartbeats = await get(`/api/office/routines?workspace_id=${workspaceId}`);
    expect(heartbeats).toEqual([expect.objectContaining({ name: 'Coordinator heartbeat', assignee_agent_instance_id: coordinator.id, status: 'active' })]);
  });
});
