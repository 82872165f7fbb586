/**
 * Spec scenario for the recovery sweep: assigned TODO tasks that never got a wakeup are dispatched
 * as task_assigned wakeups; tasks with a wakeup on record, outside the lookback window, or for a
 * paused agent are left alone; concurrent sweeps dispatch once. Tasks are written straight into
 * the database so no assignment event fires (the "lost event" the sweep exists for).
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RecoverySweep } from '../../src/dispatch/recovery.js';
import { newTask } from '../../src/domain/tasks.js';
import type { Task } from '../../src/domain/types.js';
import { wallClock } from '../../src/domain/clock.js';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';
import { sqliteFaults } from '../helpers/storage.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const HOUR_MS = 3_600_000;
let taskCounter = 0;

/** Inserts a TODO task directly, bypassing the service (so no task.assigned event is emitted). */
async function insertTask(workspaceId: string, assignee: string | null, fields: Partial<Task> = {}): Promise<string> {
  const now = Date.now();
  taskCounter += 1;
  const task = newTask({ id: `tsk_recovery_${process.pid}_${taskCounter}_${now}`, workspace_id: workspaceId, title: `Unstarted task ${taskCounter}` }, now, {
    assignee_agent_instance_id: assignee,
    ...fields,
  });
  await h!.scheduler.store.transaction((tx) => tx.tasks.insert(task));
  return task.id;
}

const { post, listWakeups, listActivity, createAgent, waitForRun } = apiClient(() => h);

describe('recovery sweep (spec scenarios)', () => {
  it('GIVEN a TODO task assigned to agent A with no wakeup, created within the lookback WHEN the sweep runs THEN one task_assigned wakeup is dispatched and recovery_dispatch / recovery_sweep_complete are logged', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Agent A' });
    const taskId = await insertTask(workspaceId, agentId, { created_at: Date.now() - 2 * HOUR_MS });
    expect(await listWakeups({ task_id: taskId })).toEqual([]);

    expect(await h.scheduler.recovery.sweep()).toBe(1);

    const [wakeup] = await listWakeups({ task_id: taskId });
    expect(wakeup).toMatchObject({ agent_id: agentId, source: 'task_assigned', recovered: true, payload: { task_id: taskId } });
    const [dispatch] = await listActivity({ workspace_id: workspaceId, code: 'recovery_dispatch' });
    expect(dispatch).toMatchObject({ agent_id: agentId, task_id: taskId });
    expect(dispatch.details).toMatchObject({ task_id: taskId, agent: agentId });
    const completes = await listActivity({ workspace_id: workspaceId, code: 'recovery_sweep_complete' });
    expect(completes[0].details).toEqual({ dispatched_count: 1 });

    // The recovered wakeup is an ordinary one: the agent runs the task.
    const run = await waitForRun({ task_id: taskId }, 'succeeded', 'the recovered run');
    expect(run.wakeup_id).toBe(wakeup.id);
    const finished = (await h.api('GET', `/api/office/wakeups/${wakeup.id}`)).body;
    expect(finished.status).toBe('finished');
    expect(finished.explain).toContain('(recovered by the sweep)');

    // The task now has a finished wakeup: the next sweep leaves it alone.
    expect(await h.scheduler.recovery.sweep()).toBe(0);
    expect(await listWakeups({ task_id: taskId })).toHaveLength(1);
    const [latest] = await listActivity({ workspace_id: workspaceId, code: 'recovery_sweep_complete' });
    expect(latest.details).toEqual({ dispatched_count: 0 });
  });

  it('skips tasks with a queued, claimed or waiting wakeup, tasks outside recovery_lookback_hours, paused agents and other states, and dispatches the rest', async () => {
    h = await startHarness({ OFFICE_BACKOFF: '60s,60s,60s,60s' });
    const { workspaceId, agentId: busy } = await seedAgent(h, {
      name: 'Busy Agent', executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '1500' }),
    });
    const ready = await createAgent(workspaceId, { name: 'Ready Agent' });
    const paused = await createAgent(workspaceId, { name: 'Paused Agent' });
    expect((await h.api('PATCH', `/api/office/agents/${paused}`, { status: 'paused' })).status).toBe(200);
    const failing = await createAgent(workspaceId, { name: 'Failing Agent', executor: fixtureAgent('fail.mjs') });

    // Through the API (the assignment event fires): one claimed and running, one queued behind it.
    const running = (await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Running', assignee_agent_instance_id: busy })).body.id;
    await waitForRun({ task_id: running }, 'running', 'the busy session');
    const queued = (await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Queued', assignee_agent_instance_id: busy })).body.id;
    await h.waitFor(async () => (await listWakeups({ task_id: queued })).find((w) => w.status === 'queued'), 'the queued wakeup');
    // A failed run whose retry waits 60 s.
    const retrying = (await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Retrying', assignee_agent_instance_id: failing })).body.id;
    await h.waitFor(async () => (await listWakeups({ task_id: retrying })).find((w) => w.status === 'scheduled_retry'), 'the scheduled retry');

    // Straight into the database: no wakeup at all.
    const tooOld = await insertTask(workspaceId, ready, { created_at: Date.now() - 25 * HOUR_MS });
    const forPaused = await insertTask(workspaceId, paused);
    const unassigned = await insertTask(workspaceId, null);
    const inProgress = await insertTask(workspaceId, ready, { state: 'IN_PROGRESS' });
    const archived = await insertTask(workspaceId, ready, { archived_at: Date.now() });
    const eligible = await insertTask(workspaceId, ready, { created_at: Date.now() - 23 * HOUR_MS });

    expect(await h.scheduler.recovery.sweep()).toBe(1);

    const dispatched = (await listActivity({ workspace_id: workspaceId, code: 'recovery_dispatch' })).map((a) => a.task_id);
    expect(dispatched).toEqual([eligible]);
    const [complete] = await listActivity({ workspace_id: workspaceId, code: 'recovery_sweep_complete' });
    expect(complete.details).toEqual({ dispatched_count: 1 });
    expect((await listWakeups({ task_id: eligible })).map((w) => [w.agent_id, w.recovered])).toEqual([[ready, true]]);
    for (const id of [tooOld, forPaused, unassigned, inProgress, archived]) expect(await listWakeups({ task_id: id })).toEqual([]);
    for (const id of [running, queued, retrying]) {
      expect((await listWakeups({ task_id: id })).filter((w) => w.recovered)).toEqual([]);
    }
  });

  it('GIVEN a task its former assignee worked on WHEN the new assignee never got a wakeup THEN the sweep dispatches it to the new assignee (only the current assignee\'s wakeups since the last assignment count)', async () => {
    h = await startHarness();
    const { workspaceId, agentId: x } = await seedAgent(h, { name: 'X' });
    const y = await createAgent(workspaceId, { name: 'Y' });
    const reassigned = (await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Reassigned', assignee_agent_instance_id: x })).body.id;
    const backAgain = (await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Back to X', assignee_agent_instance_id: x })).body.id;
    for (const id of [reassigned, backAgain]) await waitForRun({ task_id: id }, 'succeeded', 'X\'s run');
    await h.waitFor(async () => (await listWakeups({ agent_id: x })).every((w) => w.status === 'finished'), 'X\'s wakeups to finish');

    // Reassigned without the events (the lost-event case the sweep exists for): to Y, and X -> Y -> X.
    const db = sqliteFaults(h.scheduler.store);
    db.run('UPDATE tasks SET assignee_agent_instance_id = ?, assigned_at = ? WHERE id = ?', y, Date.now(), reassigned);
    db.run('UPDATE tasks SET assignee_agent_instance_id = ?, assigned_at = ? WHERE id = ?', x, Date.now() + 1, backAgain);
    expect(await h.scheduler.recovery.sweep()).toBe(2);
    const [forY] = (await listWakeups({ task_id: reassigned })).filter((w) => w.recovered);
    expect(forY).toMatchObject({ agent_id: y, source: 'task_assigned' });
    const [forX] = (await listWakeups({ task_id: backAgain })).filter((w) => w.recovered);
    expect(forX).toMatchObject({ agent_id: x, source: 'task_assigned' });
    // Their own wakeups now count: the next sweep leaves both alone.
    expect(await h.scheduler.recovery.sweep()).toBe(0);
  });

  it('GIVEN a recovered wakeup that ended with no run because its agent was paused WHEN the agent is resumed THEN its task is recovered again', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { cooldown_sec: 600 });
    // A first run starts a long cooldown, so the recovered wakeup waits in the queue.
    const warmup = (await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Warm-up', assignee_agent_instance_id: agentId })).body.id;
    await waitForRun({ task_id: warmup }, 'succeeded', 'the warm-up run');
    const taskId = await insertTask(workspaceId, agentId);
    expect(await h.scheduler.recovery.sweep()).toBe(1);
    const [first] = await listWakeups({ task_id: taskId });
    expect(first).toMatchObject({ status: 'queued', recovered: true });

    expect((await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' })).status).toBe(200);
    await h.waitFor(async () => (await listWakeups({ task_id: taskId })).find((w) => w.id === first.id && w.skip_reason === 'agent_paused'), 'the recovered wakeup to end with no run');
    expect((await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'idle' })).status).toBe(200);

    const second = await h.waitFor(async () => (await listWakeups({ task_id: taskId })).find((w) => w.id !== first.id), 'the task to be recovered again');
    expect(second).toMatchObject({ agent_id: agentId, source: 'task_assigned', recovered: true, status: 'queued' });
    expect(second.idempotency_key).toBe(first.idempotency_key);
    expect((await h.api('GET', `/api/office/wakeups/${first.id}`)).body.idempotency_key).toBe(`${first.idempotency_key}#expired:${first.id}`);
  });

  it('honours a workspace recovery_lookback_hours other than the default', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, {}, { recovery_lookback_hours: 1 });
    const outside = await insertTask(workspaceId, agentId, { created_at: Date.now() - 2 * HOUR_MS });
    const inside = await insertTask(workspaceId, agentId, { created_at: Date.now() - 30 * 60_000 });

    expect(await h.scheduler.recovery.sweep()).toBe(1);
    expect(await listWakeups({ task_id: outside })).toEqual([]);
    expect(await listWakeups({ task_id: inside })).toHaveLength(1);
  });

  it('GIVEN two sweeps run concurrently THEN the task is dispatched once', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const taskId = await insertTask(workspaceId, agentId);

    const counts = await Promise.all([h.scheduler.recovery.sweep(), h.scheduler.recovery.sweep()]);
    expect(counts.reduce((a, b) => a + b, 0) >= 1).toBe(true);
    expect(await listWakeups({ task_id: taskId })).toHaveLength(1);
    expect(await listActivity({ workspace_id: workspaceId, code: 'recovery_dispatch' })).toHaveLength(1);

    // And a sweep racing the dispatched wakeup (queued, claimed or finished by now) adds nothing.
    expect(await h.scheduler.recovery.sweep()).toBe(0);
    expect(await listWakeups({ task_id: taskId })).toHaveLength(1);
  });

  it('GIVEN two independent sweepers on the same database race THEN each candidate is dispatched once', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const taskIds = [await insertTask(workspaceId, agentId), await insertTask(workspaceId, agentId), await insertTask(workspaceId, agentId)];
    const { store, config, services } = h.scheduler;
    const other = new RecoverySweep({ store, config, clock: wallClock, log: pino({ level: 'silent' }), wakeups: services.wakeups });

    const counts = await Promise.all([h.scheduler.recovery.sweep(), other.sweep(), other.sweep(), h.scheduler.recovery.sweep()]);
    expect(counts[0]! + counts[1]!).toBe(3);
    for (const id of taskIds) expect(await listWakeups({ task_id: id })).toHaveLength(1);
    const dispatched = (await listActivity({ workspace_id: workspaceId, code: 'recovery_dispatch' })).map((a) => a.task_id).sort();
    expect(dispatched).toEqual([...taskIds].sort());
  });

  it('GIVEN a recovered wakeup that ended failed WHEN later sweeps run inside the idempotency window THEN nothing is re-dispatched and nothing is reported as dispatched', async () => {
    h = await startHarness();
    // No executor anywhere: the recovered wakeup fails at once with no_executor and is not retried.
    const { workspaceId, agentId } = await seedAgent(h, { executor: null });
    const taskId = await insertTask(workspaceId, agentId);

    expect(await h.scheduler.recovery.sweep()).toBe(1);
    const failed = await h.waitFor(async () => (await listWakeups({ task_id: taskId })).find((w) => w.status === 'failed'), 'the recovered wakeup to fail');
    expect(failed).toMatchObject({ recovered: true, error: 'no_executor' });

    // A failed wakeup is not in the sweep's NOT EXISTS list, so the task is a candidate again; its
    // recovery key is still live, so the enqueue is a duplicate and must not count as a dispatch.
    expect(await h.scheduler.recovery.sweep()).toBe(0);
    expect(await h.scheduler.recovery.sweep()).toBe(0);
    expect(await listWakeups({ task_id: taskId })).toHaveLength(1);
    expect(await listActivity({ workspace_id: workspaceId, code: 'recovery_dispatch' })).toHaveLength(1);
    const [latest] = await listActivity({ workspace_id: workspaceId, code: 'recovery_sweep_complete' });
    expect(latest.details).toEqual({ dispatched_count: 0 });
  });

  it('skips a candidate whose agent budget is exhausted', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    await post('/api/office/budgets', {
      scope: 'agent', scope_id: agentId, limit_usd: 0.01, period: 'monthly', action_on_exceed: 'pause_agent',
    });
    await h.scheduler.store.transaction((tx) => tx.budgets.recordCost({
      workspace_id: workspaceId, project_id: null, agent_id: agentId, run_id: 'run_external', cost_usd: 0.05, created_at: Date.now(),
    }));
    const taskId = await insertTask(workspaceId, agentId);

    expect(await h.scheduler.recovery.sweep()).toBe(0);
    expect(await listWakeups({ task_id: taskId })).toEqual([]);
  });
});
