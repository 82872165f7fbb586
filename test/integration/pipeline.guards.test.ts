/**
 * Spec scenarios for the pipeline's guards after staleness: idle wakeup skip, the budget
 * pre-check and the atomic task checkout. Real SQLite, real HTTP, real child-process agents.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
const tempDirs: string[] = [];
afterEach(async () => {
  await h?.stop();
  h = undefined;
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const {
  post, listWakeups, listRuns, listActivity, getWakeup, createAgent, createTask, createTaskId, waitForWakeupStatus, waitForRun,
} = apiClient(() => h);

/** A lightweight routine (no task_template) with a manual trigger, fired once by hand. */
async function fireLightweightRoutine(workspaceId: string, agentId: string): Promise<{ routineId: string; wakeupId: string }> {
  const routine = await h!.api('POST', '/api/office/routines', {
    workspace_id: workspaceId, name: 'Check upstream PRs', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }],
  });
  expect(routine.status).toBe(201);
  const fired = await h!.api('POST', `/api/office/routines/${routine.body.id}/fire`, {});
  expect(fired.status).toBe(202);
  expect(fired.body.routine_run).toMatchObject({ status: 'dispatched' });
  const wakeupId = fired.body.routine_run.linked_wakeup_id as string;
  expect(wakeupId).toBeTruthy();
  return { routineId: routine.body.id, wakeupId };
}

describe('idle wakeup skip (spec scenarios)', () => {
  it('GIVEN a worker with skip_idle_wakeups and no TODO/IN_PROGRESS tasks WHEN a lightweight-routine wakeup is claimed THEN it is finished with no run and wakeup_idle_skipped is recorded; a task_assigned wakeup still proceeds', async () => {
    h = await startHarness();
    const { workspaceId, agentId, agent } = await seedAgent(h, { name: 'Idle Worker' });
    expect(agent.skip_idle_wakeups).toBe(true);

    const { wakeupId } = await fireLightweightRoutine(workspaceId, agentId);
    const skipped = await waitForWakeupStatus(wakeupId, ['finished', 'skipped', 'cancelled', 'failed'], 'the routine wakeup to end');
    expect(skipped).toMatchObject({ status: 'finished', skip_reason: 'no_actionable_tasks', run_id: null, source: 'routine' });
    expect(skipped.explain).toBe('skipped: no actionable tasks');
    const [entry] = await listActivity({ wakeup_id: wakeupId, code: 'wakeup_idle_skipped' });
    expect(entry).toMatchObject({ agent_id: agentId });
    expect(entry.details).toMatchObject({ reason: 'no_actionable_tasks', agent_instance_id: agentId, agent_name: 'Idle Worker' });
    expect(await listRuns({ agent_id: agentId })).toEqual([]);

    // Event-triggered wakeups skip the check. The task is in review (not actionable), so the agent
    // still has zero actionable tasks when the task_assigned wakeup is claimed, and it runs anyway.
    const taskId = await createTaskId(workspaceId, 'Look at the review', null);
    expect((await h.api('POST', `/api/office/tasks/${taskId}/move`, { state: 'IN_REVIEW' })).status).toBe(200);
    expect((await h.api('PATCH', `/api/office/tasks/${taskId}`, { assignee_agent_instance_id: agentId })).status).toBe(200);
    const run = await waitForRun({ agent_id: agentId }, 'succeeded', 'the task_assigned run');
    expect(run.task_id).toBe(taskId);
    const assigned = await getWakeup(run.wakeup_id);
    expect(assigned).toMatchObject({ source: 'task_assigned', status: 'finished', skip_reason: null, run_id: run.id });
  });

  it('GIVEN a worker with an actionable TODO task WHEN a lightweight-routine wakeup is claimed THEN it is not skipped', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const taskId = await createTaskId(workspaceId, 'Open work', agentId);
    await waitForRun({ task_id: taskId }, 'succeeded', 'the task run');

    const { wakeupId } = await fireLightweightRoutine(workspaceId, agentId);
    const done = await waitForWakeupStatus(wakeupId, ['finished', 'skipped', 'cancelled', 'failed'], 'the routine wakeup to end');
    expect(done.skip_reason).toBeNull();
    expect(done.status).toBe('finished');
    const [run] = await listRuns({ wakeup_id: wakeupId });
    expect(run).toMatchObject({ status: 'succeeded', task_id: null, id: done.run_id });
  });

  it('GIVEN a coordinator (skip_idle_wakeups false by default) with no tasks WHEN a routine-fired wakeup is claimed THEN the skip check is not performed and a run happens', async () => {
    h = await startHarness();
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const coordinator = await h.api('POST', '/api/office/agents', {
      workspace_id: ws.body.id, name: 'Chief', role: 'coordinator', executor: fixtureAgent('succeed.mjs'), cooldown_sec: 0,
    });
    expect(coordinator.status).toBe(201);
    expect(coordinator.body.skip_idle_wakeups).toBe(false);

    const { wakeupId } = await fireLightweightRoutine(ws.body.id, coordinator.body.id);
    const done = await waitForWakeupStatus(wakeupId, ['finished', 'skipped', 'cancelled', 'failed'], 'the routine wakeup to end');
    expect(done).toMatchObject({ status: 'finished', skip_reason: null });
    const [run] = await listRuns({ wakeup_id: wakeupId });
    expect(run).toMatchObject({ status: 'succeeded', agent_id: coordinator.body.id, task_id: null, id: done.run_id });
    expect(run.result_json.summary).toBe('handled routine');
    expect(await listActivity({ wakeup_id: wakeupId, code: 'wakeup_idle_skipped' })).toEqual([]);
  });
});

describe('pre-execution budget check (spec scenarios)', () => {
  async function spendThenWakeAgain(action: 'pause_agent' | 'warn') {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Spender', executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '0.05' }) });
    const budget = await post('/api/office/budgets', {
      scope: 'agent', scope_id: agentId, limit_usd: 0.01, period: 'monthly', action_on_exceed: action,
    });
    // The first run is within budget (nothing spent yet) and reports 0.05 USD.
    const first = await createTaskId(workspaceId, 'First job', agentId);
    const firstRun = await waitForRun({ task_id: first }, 'succeeded', 'the first run');
    expect(firstRun.cost_usd).toBe(0.05);
    const second = await createTaskId(workspaceId, 'Second job', agentId);
    const wakeup = await h.waitFor(async () => {
      const [w] = await listWakeups({ agent_id: agentId, task_id: second });
      return w && ['finished', 'skipped', 'failed', 'cancelled'].includes(w.status) ? w : undefined;
    }, 'the second wakeup to end');
    return { workspaceId, agentId, budgetId: budget.id as string, second, wakeup };
  }

  it('GIVEN an agent budget with pause_agent that a previous run exceeded WHEN the next wakeup is claimed THEN it is skipped, the agent is paused with a reason and wakeup_budget_blocked is logged', async () => {
    const { agentId, budgetId, second, wakeup } = await spendThenWakeAgain('pause_agent');

    expect(wakeup).toMatchObject({ status: 'skipped', skip_reason: 'budget_exceeded', run_id: null });
    expect((await getWakeup(wakeup.id)).explain).toBe('skipped: budget exceeded; agent paused');
    expect(await listRuns({ task_id: second })).toEqual([]);
    const agent = (await h!.api('GET', `/api/office/agents/${agentId}`)).body;
    expect(agent.status).toBe('paused');
    expect(agent.paused_reason).toMatch(/budget exceeded/);
    const [entry] = await listActivity({ wakeup_id: wakeup.id, code: 'wakeup_budget_blocked' });
    expect(entry).toMatchObject({ agent_id: agentId, task_id: second });
    expect(entry.details).toMatchObject({ budget_id: budgetId, spent_usd: 0.05, limit_usd: 0.01 });
    const task = (await h!.api('GET', `/api/office/tasks/${second}`)).body;
    expect(task).toMatchObject({ checkout_agent_id: null, checkout_wakeup_id: null });
  });

  it('GIVEN an agent budget with warn that a previous run exceeded WHEN the next wakeup is claimed THEN budget_warning is logged and the run proceeds', async () => {
    const { agentId, budgetId, second, wakeup } = await spendThenWakeAgain('warn');

    expect(wakeup).toMatchObject({ status: 'finished', skip_reason: null });
    const [run] = await listRuns({ task_id: second });
    expect(run).toMatchObject({ status: 'succeeded', id: wakeup.run_id });
    const warnings = await listActivity({ agent_id: agentId, code: 'budget_warning' });
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings[0].details).toMatchObject({ budget_id: budgetId, limit_usd: 0.01 });
    expect(await listActivity({ agent_id: agentId, code: 'wakeup_budget_blocked' })).toEqual([]);
    const agent = (await h!.api('GET', `/api/office/agents/${agentId}`)).body;
    expect(agent.status).not.toBe('paused');
  });
});

describe('atomic task checkout (spec scenarios; pinned: checkout conflicts wait)', () => {
  it('GIVEN agent A (max_concurrent_sessions=2) runs task T WHEN a comment on T wakes A again THEN the comment wakeup waits for that run to end, is never skipped, and then runs', async () => {
    h = await startHarness();
    const started = mkdtempSync(join(tmpdir(), 'office-started-'));
    tempDirs.push(started);
    const { workspaceId, agentId } = await seedAgent(h, {
      name: 'Agent A', max_concurrent_sessions: 2,
      executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '1200', FIXTURE_STARTED_DIR: started }),
    });
    const taskId = await createTaskId(workspaceId, 'Task T', agentId);
    const firstRun = await waitForRun({ task_id: taskId }, 'running', 'the first session');
    const held = (await h.api('GET', `/api/office/tasks/${taskId}`)).body;
    expect(held).toMatchObject({ checkout_agent_id: agentId, checkout_wakeup_id: firstRun.wakeup_id });

    // A comment on T wakes A again; with a free slot it is claimed while the first session holds T.
    const comment = await h.api('POST', `/api/office/tasks/${taskId}/comments`, { body: 'Also check the edge case', author_type: 'user', author_id: 'u1' });
    expect(comment.status).toBe(201);
    const [entry] = await h.waitFor(async () => {
      const [w] = await listWakeups({ agent_id: agentId, source: 'comment' });
      return w ? listActivity({ wakeup_id: w.id, code: 'wakeup_waiting_on_checkout' }).then((list) => (list.length ? list : null)) : null;
    }, 'the comment wakeup to wait on the checkout');
    expect(entry.details).toMatchObject({ holder_agent_id: agentId, holder_wakeup_id: firstRun.wakeup_id, holder_run_id: firstRun.id });
    const waiting = await getWakeup(entry.wakeup_id);
    expect(waiting).toMatchObject({ status: 'queued', run_id: null, task_id: taskId, claimed_at: null });
    expect(waiting.explain).toMatch(/^queued: waiting for .*run .* of Agent A to release the task/);
    expect(waiting.explain).not.toMatch(/another agent/);
    // Waiting released nothing it did not hold: the first session still has T.
    expect((await h.api('GET', `/api/office/tasks/${taskId}`)).body.checkout_wakeup_id).toBe(firstRun.wakeup_id);

    const second = await waitForWakeupStatus(waiting.id, 'finished', 'the comment wakeup to run after the first session');
    expect(second.skip_reason).toBeNull();
    const runs = await listRuns({ task_id: taskId });
    expect(runs).toHaveLength(2);
    const secondRun = runs.find((r) => r.wakeup_id === second.id);
    expect(secondRun).toMatchObject({ agent_id: agentId, status: 'succeeded' });
    const first = runs.find((r) => r.id === firstRun.id);
    // It waited: the second session started only after the first one had ended.
    expect(Date.parse(secondRun.started_at)).toBeGreaterThanOrEqual(Date.parse(first.finished_at));
    expect(readdirSync(started).filter((f) => f.endsWith('.started')).sort()).toEqual([`${firstRun.id}.started`, `${secondRun.id}.started`].sort());
    expect(await listWakeups({ agent_id: agentId, status: 'skipped' })).toEqual([]);
    // No polling: it was claimed twice, once to park and once when the release offered it.
    expect(await listActivity({ wakeup_id: second.id, code: 'wakeup_waiting_on_checkout' })).toHaveLength(1);
    const released = (await h.api('GET', `/api/office/tasks/${taskId}`)).body;
    expect(released).toMatchObject({ checkout_agent_id: null, checkout_wakeup_id: null, checkout_at: null });
  });
  it('GIVEN agent A holds the checkout of task T WHEN T enters review and reviewer B is woken THEN B\'s review waits for A\'s run to end and then runs', async () => {
    h = await startHarness();
    const { workspaceId, agentId: agentA } = await seedAgent(h, {
      name: 'Agent A', executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '1200' }),
    });
    const agentB = await createAgent(workspaceId, { name: 'Agent B', role: 'specialist' });
    const task = await createTask({ workspace_id: workspaceId, title: 'Task T', assignee_agent_instance_id: agentA, reviewers: [agentB] });
    const taskId = task.id as string;
    const firstRun = await waitForRun({ task_id: taskId }, 'running', 'A\'s session');

    expect((await h.api('POST', `/api/office/tasks/${taskId}/move`, { state: 'IN_REVIEW' })).status).toBe(200);
    const [entry] = await h.waitFor(async () => {
      const [w] = await listWakeups({ agent_id: agentB });
      return w ? listActivity({ wakeup_id: w.id, code: 'wakeup_waiting_on_checkout' }).then((list) => (list.length ? list : null)) : null;
    }, 'the reviewer wakeup to wait on the checkout');
    expect(entry.details).toMatchObject({ holder_agent_id: agentA, holder_wakeup_id: firstRun.wakeup_id });
    expect((await getWakeup(entry.wakeup_id)).explain).toMatch(/^queued: waiting for .* of Agent A to release the task/);

    const review = await waitForWakeupStatus(entry.wakeup_id, 'finished', 'the review to run after A\'s session');
    expect(review.payload).toMatchObject({ as: 'reviewer' });
    const reviewRun = await waitForRun({ agent_id: agentB }, 'succeeded', 'B\'s review run');
    expect(reviewRun).toMatchObject({ task_id: taskId, wakeup_id: review.id });
    const aRun = (await listRuns({ task_id: taskId })).find((r) => r.id === firstRun.id);
    expect(Date.parse(reviewRun.started_at)).toBeGreaterThanOrEqual(Date.parse(aRun.finished_at));
    const released = (await h.api('GET', `/api/office/tasks/${taskId}`)).body;
    expect(released).toMatchObject({ checkout_agent_id: null, checkout_wakeup_id: null, checkout_at: null });
  });
});
