/**
 * Guards that watch an agent across runs: the loop detector, the budget alert threshold and the
 * daily run cap. Real SQLite, real HTTP, real child-process agents.
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

const DAY_MS = 86_400_000;

const { call, get, listWakeups, listRuns, listActivity, createAgent, settled, waitForWakeupEnd, waitForRun, waitForAgentActor } = apiClient(() => h);

/** An injected clock standing at noon UTC today: no day boundary passes while a test runs. */
function noonClock(): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS / 2);
  return clock;
}

/** Posts a user comment and returns the comment wakeup it caused, once that has ended. */
async function poke(taskId: string, agentId: string, body: string): Promise<any> {
  const comment = await call('POST', `/api/office/tasks/${taskId}/comments`, { body, author_type: 'user', author_id: 'pm' }, 201);
  const wake = await h!.waitFor(async () =>
    (await listWakeups({ agent_id: agentId, source: 'comment' })).find((w) => w.payload.comment_id === comment.id), 'the comment wakeup');
  return waitForWakeupEnd(wake.id);
}

describe('loop detector (OFFICE_LOOP_DETECTOR_RUNS=3)', () => {
  it('an agent whose runs on the same task change nothing is paused after 3 such runs, with a readable reason, an agent.paused inbox item and an agent_loop_paused activity', async () => {
    h = await startHarness({ OFFICE_LOOP_DETECTOR_RUNS: '3' });
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Spinner' });
    const task = await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Fix the flaky test', assignee_agent_instance_id: agentId }, 201);
    // Run 1: the assignment. succeed.mjs changes nothing: no comment, no move, no action.
    const first = await waitForWakeupEnd((await h.waitFor(async () => (await listWakeups({ agent_id: agentId }))[0], 'the assignment wakeup')).id);
    expect(first.status).toBe('finished');
    // Runs 2 and 3: a person keeps asking; the agent keeps doing nothing.
    const second = await poke(task.id, agentId, 'Any progress?');
    expect(second.status).toBe('finished');
    expect((await get(`/api/office/agents/${agentId}`)).status).not.toBe('paused');
    const third = await poke(task.id, agentId, 'Still nothing?');
    expect(third.status).toBe('finished');
    await settled();

    const runs = await listRuns({ agent_id: agentId });
    expect(runs).toHaveLength(3);
    expect(runs.every((r) => r.status === 'succeeded' && r.task_id === task.id && r.made_progress === false)).toBe(true);

    const agent = await get(`/api/office/agents/${agentId}`);
    expect(agent.status).toBe('paused');
    expect(agent.paused_reason).toMatch(/loop detector/);
    expect(agent.paused_reason).toContain('3 runs in a row');
    expect(agent.paused_reason).toContain(task.id);
    expect(agent.actor.state).toMatch(/^paused/);

    const inbox = (await get(`/api/office/inbox?workspace_id=${workspaceId}`)).filter((i: any) => i.kind === 'agent.paused');
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({ agent_id: agentId, task_id: task.id, ref_id: runs[0].id, status: 'open' });
    expect(inbox[0].body).toBe(agent.paused_reason);
    const activity = await listActivity({ workspace_id: workspaceId, code: 'agent_loop_paused' });
    expect(activity).toHaveLength(1);
    expect(activity[0]).toMatchObject({ agent_id: agentId, task_id: task.id, run_id: runs[0].id });

    // Paused: the next poke ends with no run.
    const fourth = await poke(task.id, agentId, 'Hello?');
    expect(fourth).toMatchObject({ status: 'finished', run_id: null, skip_reason: 'agent_paused' });
    expect(await listRuns({ agent_id: agentId })).toHaveLength(3);
  });

  it('a loop of self-wakes that does nothing else trips the detector: self_wake is not progress, and the agent is paused', async () => {
    h = await startHarness({ OFFICE_LOOP_DETECTOR_RUNS: '3' });
    const { workspaceId, agentId } = await seedAgent(h, {
      name: 'Snoozer',
      executor: fixtureAgent('json-actions.mjs', { FIXTURE_RESULT: JSON.stringify({ actions: [{ type: 'self_wake', reason: 'look again' }] }) }),
    });
    const task = await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Wait for CI', assignee_agent_instance_id: agentId }, 201);
    // Run 1 (the assignment) wakes itself, run 2 (that self wake) wakes itself, run 3 too: nothing else changes.
    const agent = await h.waitFor(async () => {
      const current = await get(`/api/office/agents/${agentId}`);
      return current.status === 'paused' ? current : null;
    }, 'the loop detector to pause the agent');
    expect(agent.paused_reason).toContain('3 runs in a row');
    await settled();
    const runs = await listRuns({ agent_id: agentId });
    expect(runs).toHaveLength(3);
    expect(runs.every((r) => r.status === 'succeeded' && r.task_id === task.id && r.made_progress === false)).toBe(true);
    expect(await listActivity({ workspace_id: workspaceId, code: 'agent_loop_paused' })).toHaveLength(1);
    // The third run's self wake ends with no run: the agent is paused.
    const last = await h.waitFor(async () => (await listWakeups({ agent_id: agentId, source: 'self' })).find((w) => w.skip_reason === 'agent_paused'), 'the last self wake to end');
    expect(last).toMatchObject({ status: 'finished', run_id: null });
  });

  it('runs that change something (here a comment action) do not count: the agent is never paused', async () => {
    h = await startHarness({ OFFICE_LOOP_DETECTOR_RUNS: '3' });
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Worker' });
    const task = await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Write docs' }, 201);
    await call('PATCH', `/api/office/agents/${agentId}`, {
      executor: fixtureAgent('json-actions.mjs', { FIXTURE_RESULT: JSON.stringify({ actions: [{ type: 'comment', task_id: task.id, body: 'Progress note' }] }) }),
    });
    await call('PATCH', `/api/office/tasks/${task.id}`, { assignee_agent_instance_id: agentId });
    await waitForWakeupEnd((await h.waitFor(async () => (await listWakeups({ agent_id: agentId }))[0], 'the assignment wakeup')).id);
    for (let i = 1; i <= 3; i++) expect((await poke(task.id, agentId, `Question ${i}`)).status).toBe('finished');
    await settled();
    const runs = await listRuns({ agent_id: agentId });
    expect(runs).toHaveLength(4);
    expect(runs.every((r) => r.made_progress === true)).toBe(true);
    expect((await get(`/api/office/agents/${agentId}`)).status).not.toBe('paused');
    expect(await listActivity({ workspace_id: workspaceId, code: 'agent_loop_paused' })).toEqual([]);
  });

  it('a run with progress in between resets the count', async () => {
    h = await startHarness({ OFFICE_LOOP_DETECTOR_RUNS: '3' });
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Worker' });
    const task = await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Triage bugs', assignee_agent_instance_id: agentId }, 201);
    await waitForWakeupEnd((await h.waitFor(async () => (await listWakeups({ agent_id: agentId }))[0], 'the assignment wakeup')).id);
    await poke(task.id, agentId, 'one');
    // One run that does something: it comments.
    await call('PATCH', `/api/office/agents/${agentId}`, {
      executor: fixtureAgent('json-actions.mjs', { FIXTURE_RESULT: JSON.stringify({ actions: [{ type: 'comment', task_id: task.id, body: 'Triaged 4 bugs' }] }) }),
    });
    await poke(task.id, agentId, 'two');
    await call('PATCH', `/api/office/agents/${agentId}`, { executor: fixtureAgent('succeed.mjs') });
    await poke(task.id, agentId, 'three');
    await poke(task.id, agentId, 'four');
    await settled();
    expect((await get(`/api/office/agents/${agentId}`)).status).not.toBe('paused');
    await poke(task.id, agentId, 'five');
    await settled();
    expect((await get(`/api/office/agents/${agentId}`)).status).toBe('paused');
    expect(await listRuns({ agent_id: agentId })).toHaveLength(6);
  });
});

describe('budget alert', () => {
  it('crossing alert_threshold_pct sends one budget_alert wakeup to the coordinator (budget_pct ~ 60); a second costly run in the same period sends no other', async () => {
    h = await startHarness();
    const { workspaceId, agentId: worker } = await seedAgent(h, {
      name: 'Spender', executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '0.6' }),
    });
    const coordinator = await createAgent(workspaceId, { name: 'Chief', role: 'coordinator' });
    const budget = await call('POST', '/api/office/budgets', {
      scope: 'agent', scope_id: worker, limit_usd: 1.0, period: 'daily', action_on_exceed: 'warn', alert_threshold_pct: 50,
    }, 201);

    const wake1 = await call('POST', `/api/office/agents/${worker}/wake`, { reason: 'expensive job' }, 202);
    const done1 = await waitForWakeupEnd(wake1.wakeup.id);
    expect(done1.status).toBe('finished');
    expect((await get(`/api/office/runs/${done1.run_id}`)).cost_usd).toBe(0.6);

    const alert = await h.waitFor(async () => (await listWakeups({ agent_id: coordinator, source: 'budget_alert' }))[0], 'the budget_alert wakeup');
    expect(alert.payload.agent_instance_id).toBe(worker);
    expect(alert.payload.budget_id).toBe(budget.id);
    expect(alert.payload.budget_pct).toBeCloseTo(60, 5);
    // The coordinator runs on it.
    const alertDone = await waitForWakeupEnd(alert.id);
    expect(alertDone.status).toBe('finished');
    expect((await get(`/api/office/runs/${alertDone.run_id}`)).result_json.summary).toBe('handled budget_alert');
    // Only the coordinator hears about it.
    expect(await listWakeups({ agent_id: worker, source: 'budget_alert' })).toEqual([]);

    const wake2 = await call('POST', `/api/office/agents/${worker}/wake`, { reason: 'another expensive job' }, 202);
    // The alert is decided in the finishing run's own transaction: had this run raised a second
    // one, its activity and wakeup would be committed with the wakeup's end.
    expect((await waitForWakeupEnd(wake2.wakeup.id)).status).toBe('finished');
    expect(await listWakeups({ agent_id: coordinator, source: 'budget_alert' })).toHaveLength(1);
    expect(await listWakeups({ workspace_id: workspaceId, source: 'budget_alert' })).toHaveLength(1);
    const alerts = await listActivity({ workspace_id: workspaceId, code: 'budget_alert' });
    expect(alerts).toHaveLength(1);
    expect(alerts[0].details.budget_pct).toBeCloseTo(60, 5);
    // Spend kept counting: the second run went ahead (action warn).
    expect((await listRuns({ agent_id: worker })).filter((r) => r.status === 'succeeded')).toHaveLength(2);
  });
});

describe('daily caps', () => {
  it('daily_run_cap 1: the second wakeup is deferred to the next UTC midnight (queued, explained, wakeup_deferred_daily_cap); raising the cap releases it and it runs', async () => {
    const clock = noonClock();
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '0' }, undefined, clock);
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Capped', daily_run_cap: 1 });
    expect((await get(`/api/office/agents/${agentId}`)).daily_run_cap).toBe(1);

    const first = await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'first' }, 202);
    expect((await waitForWakeupEnd(first.wakeup.id)).status).toBe('finished');

    const second = await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'second' }, 202);
    const deferred = await h.waitFor(async () => {
      const w = await get(`/api/office/wakeups/${second.wakeup.id}`);
      return w.status === 'queued' && w.skip_reason === 'daily_run_cap' ? w : null;
    }, 'the deferral');
    const nextMidnight = (Math.floor(clock.now() / DAY_MS) + 1) * DAY_MS;
    expect(new Date(deferred.available_at).getTime()).toBe(nextMidnight);
    expect(deferred.available_at).toMatch(/T00:00:00\.000Z$/);
    expect(deferred.run_id).toBeNull();
    expect(deferred.explain).toMatch(/daily run cap/);
    expect(deferred.explain).toContain(deferred.available_at);
    const activity = await listActivity({ wakeup_id: second.wakeup.id });
    const decision = activity.find((a) => a.code === 'wakeup_deferred_daily_cap');
    expect(decision).toBeDefined();
    expect(decision.details).toMatchObject({ cap: 'daily_run_cap', until: deferred.available_at });
    expect((await listActivity({ workspace_id: workspaceId, code: 'wakeup_deferred_daily_cap' })).length).toBeGreaterThanOrEqual(1);
    // The actor holds it until midnight, with nothing running: only its timer can release it.
    expect(await waitForAgentActor(agentId, (actor) => actor.state === 'active.waiting', 'the actor to hold the deferred wakeup'))
      .toMatchObject({ queued: 1, running: 0, next_available_at: deferred.available_at });
    // A millisecond before midnight it still holds (a timer that fires hands the wakeup over at once).
    clock.set(nextMidnight - 1);
    expect(h.scheduler.supervisor.view(agentId)).toMatchObject({ state: 'active.waiting', queued: 1, running: 0 });
    expect(await listRuns({ agent_id: agentId })).toHaveLength(1);
    expect((await get(`/api/office/wakeups/${second.wakeup.id}`)).status).toBe('queued');

    const raised = await call('PATCH', `/api/office/agents/${agentId}`, { daily_run_cap: 2 });
    expect(raised.daily_run_cap).toBe(2);
    const released = await waitForWakeupEnd(second.wakeup.id);
    expect(released.status).toBe('finished');
    expect(released.skip_reason).toBeNull();
    const run = await get(`/api/office/runs/${released.run_id}`);
    expect(run.status).toBe('succeeded');
    expect(await listRuns({ agent_id: agentId })).toHaveLength(2);
  });

  it('daily_run_cap 1 also holds task-bound (event-driven) work, and lifting the cap (null) releases it', async () => {
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '0' }, undefined, noonClock());
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Capped', daily_run_cap: 1 });
    await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'First task', assignee_agent_instance_id: agentId }, 201);
    await waitForRun({ agent_id: agentId }, 'succeeded', 'the first run');
    const second = await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Second task', assignee_agent_instance_id: agentId }, 201);
    const deferred = await h.waitFor(async () =>
      (await listWakeups({ agent_id: agentId, task_id: second.id })).find((w) => w.status === 'queued' && w.skip_reason === 'daily_run_cap'), 'the deferral');
    expect(deferred.source).toBe('task_assigned');
    // The deferred wakeup holds no checkout on its task.
    expect((await get(`/api/office/tasks/${second.id}`)).checkout_agent_id).toBeNull();

    await call('PATCH', `/api/office/agents/${agentId}`, { daily_run_cap: null });
    const released = await waitForWakeupEnd(deferred.id);
    expect(released.status).toBe('finished');
    expect((await get(`/api/office/runs/${released.run_id}`))).toMatchObject({ status: 'succeeded', task_id: second.id });
  });
});
