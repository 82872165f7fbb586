/**
 * Spec scenarios for the staleness check before claim and for retry cancellation on reassignment
 * or cancellation. Real SQLite, real HTTP, real child-process agents (test/fixtures).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';
import { sqliteFaults } from '../helpers/storage.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { listWakeups, listRuns, listActivity, getWakeup, getTask, createAgent, createTaskId, waitForWakeupStatus, waitForRun } = apiClient(() => h);

/** The only wakeup of `agentId` about `taskId`, once `check` accepts it. */
function waitForWakeup(agentId: string, taskId: string, check: (w: any) => boolean, what: string) {
  return h!.waitFor(async () => {
    const matching = (await listWakeups({ agent_id: agentId, task_id: taskId })).filter(check);
    return matching.length === 1 ? matching[0] : undefined;
  }, what);
}

const expectNoCheckout = (task: any) =>
  expect(task).toMatchObject({ checkout_agent_id: null, checkout_wakeup_id: null, checkout_at: null });

/**
 * Agent A runs a sleep session on a first task, so a second wakeup for A stays queued (at capacity)
 * until that session ends: the window in which the test changes the world under the queued wakeup.
 */
async function busyAgentA() {
  h = await startHarness();
  const { workspaceId, agentId: agentA } = await seedAgent(h, {
    name: 'Agent A', executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '2500' }),
  });
  const agentB = await createAgent(workspaceId, { name: 'Agent B', executor: fixtureAgent('succeed.mjs') });
  const busyTask = await createTaskId(workspaceId, 'Keep A busy', agentA);
  await waitForRun({ agent_id: agentA }, 'running', 'A to start its first session');
  return { workspaceId, agentA, agentB, busyTask };
}

describe('staleness check before claim (spec scenarios)', () => {
  it('GIVEN a task_assigned wakeup is queued for agent A on task T WHEN T is reassigned to B before the claim THEN it is cancelled with assignee_changed, A is not launched and wakeup_stale_cancelled is logged', async () => {
    const { workspaceId, agentA, agentB } = await busyAgentA();
    const taskT = await createTaskId(workspaceId, 'Task T', agentA);
    const queued = await waitForWakeup(agentA, taskT, (w) => w.status === 'queued', 'the wakeup for T to be queued behind the busy session');
    const whileQueued = await getWakeup(queued.id);
    expect(whileQueued.status).toBe('queued');
    expect(whileQueued.explain).toContain('queued: agent at capacity (1/1)');

    const patched = await h!.api('PATCH', `/api/office/tasks/${taskT}`, { assignee_agent_instance_id: agentB });
    expect(patched.status).toBe(200);

    const cancelled = await waitForWakeup(agentA, taskT, (w) => w.status === 'cancelled', 'the stale wakeup to be cancelled at claim');
    expect(cancelled.id).toBe(queued.id);
    expect(cancelled.cancel_reason).toBe('assignee_changed');
    expect(cancelled.run_id).toBeNull();
    expect((await getWakeup(cancelled.id)).explain).toBe('cancelled: task was reassigned to Agent B');

    const [entry] = await listActivity({ wakeup_id: cancelled.id, code: 'wakeup_stale_cancelled' });
    expect(entry).toMatchObject({ agent_id: agentA, task_id: taskT });
    expect(entry.details).toMatchObject({ reason: 'assignee_changed', agent: agentA, assignee_now: agentB });

    // B does the work; A was never launched for T.
    await waitForRun({ agent_id: agentB, task_id: taskT }, 'succeeded', 'B to run T');
    expect(await listRuns({ agent_id: agentA, task_id: taskT })).toEqual([]);
    expectNoCheckout(await getTask(taskT));
  });

  it('GIVEN a wakeup for a task that has reached DONE WHEN the staleness check runs at claim THEN it is cancelled with task_terminal and the agent is not launched', async () => {
    const { workspaceId, agentA } = await busyAgentA();
    const taskT = await createTaskId(workspaceId, 'Task T', agentA);
    const queued = await waitForWakeup(agentA, taskT, (w) => w.status === 'queued', 'the wakeup for T to be queued');

    const moved = await h!.api('POST', `/api/office/tasks/${taskT}/move`, { state: 'DONE' });
    expect(moved.status).toBe(200);
    expect(moved.body.state).toBe('DONE');

    const cancelled = await waitForWakeup(agentA, taskT, (w) => w.status === 'cancelled', 'the wakeup to be cancelled as terminal');
    expect(cancelled.id).toBe(queued.id);
    expect(cancelled.cancel_reason).toBe('task_terminal');
    expect((await getWakeup(cancelled.id)).explain).toContain('cancelled: task is already finished');
    const [entry] = await listActivity({ wakeup_id: cancelled.id, code: 'wakeup_stale_cancelled' });
    expect(entry.details).toMatchObject({ reason: 'task_terminal' });
    expect(await listRuns({ task_id: taskT })).toEqual([]);
    expectNoCheckout(await getTask(taskT));
  });

  it('GIVEN a wakeup whose task does not exist WHEN it is claimed THEN it is cancelled with task_not_found and the activity is logged', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const scheduler = h.scheduler;
    const outcome = await scheduler.store.transaction((tx) => scheduler.services.wakeups.enqueue(tx, {
      agent_id: agentId, source: 'comment', payload: { task_id: 'tsk_missing', comment_id: 'cmt_missing' },
    }, Date.now()));
    expect(outcome.kind).toBe('queued');

    const cancelled = await waitForWakeupStatus(outcome.wakeup.id, 'cancelled', 'the wakeup to be cancelled');
    expect(cancelled.cancel_reason).toBe('task_not_found');
    expect(cancelled.explain).toBe('cancelled: the task no longer exists');
    const [entry] = await listActivity({ workspace_id: workspaceId, code: 'wakeup_stale_cancelled' });
    expect(entry).toMatchObject({ wakeup_id: outcome.wakeup.id });
    expect(entry.details).toMatchObject({ reason: 'task_not_found' });
    expect(await listRuns({ agent_id: agentId })).toEqual([]);
  });
});

describe('retry cancellation on reassignment or cancellation (spec scenarios)', () => {
  /** Agent A fails once on task T; the retry then waits for `backoff`'s first step. */
  async function retryWaiting(backoff: string) {
    h = await startHarness({ OFFICE_BACKOFF: backoff });
    const { workspaceId, agentId: agentA } = await seedAgent(h, { name: 'Agent A', executor: fixtureAgent('fail.mjs') });
    const agentB = await createAgent(workspaceId, { name: 'Agent B', executor: fixtureAgent('succeed.mjs') });
    const taskT = await createTaskId(workspaceId, 'Task T', agentA);
    const waiting = await waitForWakeup(agentA, taskT, (w) => w.status === 'scheduled_retry', 'the failed run to schedule a retry');
    expect(waiting.retry_count).toBe(1);
    return { workspaceId, agentA, agentB, taskT, waiting };
  }

  it('GIVEN a retry is scheduled for task T WHEN T is reassigned through the API THEN the retry is cancelled at once with retry_stale_assignee and wakeup_retry_cancelled is logged', async () => {
    const { agentA, agentB, taskT, waiting } = await retryWaiting('30s,30s,30s,30s');

    const patched = await h!.api('PATCH', `/api/office/tasks/${taskT}`, { assignee_agent_instance_id: agentB });
    expect(patched.status).toBe(200);

    // Immediately: no waiting for the 30 s promotion.
    const cancelled = await getWakeup(waiting.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancel_reason: 'retry_stale_assignee', retry_count: 1 });
    expect(cancelled.explain).toBe('cancelled: retry dropped because the task was reassigned to Agent B');
    const [entry] = await listActivity({ wakeup_id: waiting.id, code: 'wakeup_retry_cancelled' });
    expect(entry).toMatchObject({ agent_id: agentA, task_id: taskT });
    expect(entry.details).toMatchObject({ reason: 'retry_stale_assignee', task_id: taskT, old_agent: agentA });
    // A holds no lock on T (B, woken by the reassignment, may already hold its own).
    const during = await getTask(taskT);
    expect(during.checkout_agent_id).not.toBe(agentA);
    expect(during.checkout_wakeup_id).not.toBe(waiting.id);

    // A's actor dropped the retry; B is woken by the reassignment and runs T.
    const agentView = (await h!.api('GET', `/api/office/agents/${agentA}`)).body;
    expect(agentView.actor.queued).toBe(0);
    await waitForRun({ agent_id: agentB, task_id: taskT }, 'succeeded', 'B to run T');
    expect(await listRuns({ wakeup_id: waiting.id })).toHaveLength(1);
    expectNoCheckout(await getTask(taskT));
  });

  it('GIVEN a retry is scheduled for task T WHEN T is reassigned without the API THEN the retry is cancelled at promotion with retry_stale_assignee', async () => {
    const { agentA, agentB, taskT, waiting } = await retryWaiting('2s,2s,2s,2s');

    // A write that bypasses the API's reassignment hook: only the promotion check can catch it.
    sqliteFaults(h!.scheduler.store).run('UPDATE tasks SET assignee_agent_instance_id = ? WHERE id = ?', agentB, taskT);
    expect((await getWakeup(waiting.id)).status).toBe('scheduled_retry');

    const cancelled = await waitForWakeupStatus(waiting.id, 'cancelled', 'the retry to be cancelled at promotion');
    expect(cancelled.cancel_reason).toBe('retry_stale_assignee');
    expect(Date.parse(cancelled.finished_at)).toBeGreaterThanOrEqual(Date.parse(waiting.scheduled_retry_at));
    const [entry] = await listActivity({ wakeup_id: waiting.id, code: 'wakeup_retry_cancelled' });
    expect(entry.details).toMatchObject({ reason: 'retry_stale_assignee', old_agent: agentA });
    expect(await listRuns({ wakeup_id: waiting.id })).toHaveLength(1);
    expectNoCheckout(await getTask(taskT));
  });

  it('GIVEN a retry is scheduled for task T WHEN T is cancelled before the retry fires THEN the retry is cancelled at promotion with retry_task_cancelled and locks are cleared', async () => {
    const { agentA, taskT, waiting } = await retryWaiting('2s,2s,2s,2s');

    const moved = await h!.api('POST', `/api/office/tasks/${taskT}/move`, { state: 'CANCELLED' });
    expect(moved.status).toBe(200);
    // Not cancelled by the move itself: the promotion check is what drops it.
    expect((await getWakeup(waiting.id)).status).toBe('scheduled_retry');

    const cancelled = await waitForWakeupStatus(waiting.id, 'cancelled', 'the retry to be cancelled at promotion');
    expect(cancelled.cancel_reason).toBe('retry_task_cancelled');
    expect(cancelled.explain).toBe('cancelled: retry dropped because the task was cancelled');
    expect(Date.parse(cancelled.finished_at)).toBeGreaterThanOrEqual(Date.parse(waiting.scheduled_retry_at));
    const [entry] = await listActivity({ wakeup_id: waiting.id, code: 'wakeup_retry_cancelled' });
    expect(entry).toMatchObject({ agent_id: agentA, task_id: taskT });
    expect(entry.details).toMatchObject({ reason: 'retry_task_cancelled', old_agent: agentA });
    // Only the original attempt ever ran.
    expect(await listRuns({ wakeup_id: waiting.id })).toHaveLength(1);
    expectNoCheckout(await getTask(taskT));
  });
});
