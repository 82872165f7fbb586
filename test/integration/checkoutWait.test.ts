/**
 * Pinned: checkout conflicts wait. A wakeup whose task is checked out by another run (a former
 * assignee's, a fellow reviewer's) waits for the release, is checked for staleness again and runs;
 * it is never skipped for the conflict. Real SQLite, real HTTP, real child-process agents.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { patch, listWakeups, listRuns, createAgent, createTask, createTaskId, settled, waitForRun, quiet } = apiClient(() => h);

const sleeper = (ms: number) => fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: String(ms) });

describe('checkout conflicts wait for the release', () => {
  it('GIVEN task T assigned to X while X\'s session runs WHEN a PATCH assigns T to Y THEN Y runs T after X\'s run ends', async () => {
    h = await startHarness();
    const { workspaceId, agentId: x } = await seedAgent(h, { name: 'X', executor: sleeper(1200) });
    const y = await createAgent(workspaceId, { name: 'Y' });
    const taskId = await createTaskId(workspaceId, 'Migrate the billing tables', x);
    const xRun = await waitForRun({ task_id: taskId }, 'running', 'X\'s session');

    await patch(`/api/office/tasks/${taskId}`, { assignee_agent_instance_id: y });
    const yRun = await waitForRun({ agent_id: y }, 'succeeded', 'Y\'s run on the reassigned task');
    expect(yRun.task_id).toBe(taskId);
    const xDone = (await listRuns({ agent_id: x })).find((r) => r.id === xRun.id);
    expect(xDone.status).toBe('succeeded');
    expect(Date.parse(yRun.started_at)).toBeGreaterThanOrEqual(Date.parse(xDone.finished_at));
    const [yWakeup] = await quiet(y);
    expect(yWakeup).toMatchObject({ id: yRun.wakeup_id, source: 'task_assigned', status: 'finished', skip_reason: null });
    // Nothing skipped for a conflict, and a later sweep sees Y's finished wakeup: it dispatches nothing more.
    expect((await listWakeups({ task_id: taskId })).filter((w) => w.skip_reason === 'checkout_conflict')).toEqual([]);
    expect(await h.scheduler.recovery.sweep()).toBe(0);
  });

  it('GIVEN Y\'s wakeup parked behind X\'s checkout WHEN the scheduler restarts (X\'s session is stopped with it) THEN Y\'s wakeup is offered again at boot and runs', async () => {
    h = await startHarness({ OFFICE_SHUTDOWN_GRACE_MS: '200' });
    const { workspaceId, agentId: x } = await seedAgent(h, { name: 'X', executor: sleeper(20_000) });
    const y = await createAgent(workspaceId, { name: 'Y' });
    const taskId = await createTaskId(workspaceId, 'Rotate the keys', x);
    await waitForRun({ task_id: taskId }, 'running', 'X\'s session');
    await patch(`/api/office/tasks/${taskId}`, { assignee_agent_instance_id: y });
    const parked = await h.waitFor(async () => (await listWakeups({ agent_id: y })).find((w) => w.status === 'queued' && /^queued: waiting for/.test(w.explain)), 'Y\'s wakeup to park');

    await h.restart();
    const yRun = await waitForRun({ agent_id: y }, 'succeeded', 'Y\'s run after the restart');
    expect(yRun).toMatchObject({ task_id: taskId, wakeup_id: parked.id });
  });

  it('GIVEN two reviewers woken together on a task WHEN both claim it THEN both reviews run, one after the other', async () => {
    h = await startHarness();
    const { workspaceId, agentId: author } = await seedAgent(h, { name: 'Author' });
    const alice = await createAgent(workspaceId, { name: 'Reviewer Alice', executor: sleeper(700) });
    const bob = await createAgent(workspaceId, { name: 'Reviewer Bob', executor: sleeper(700) });
    const task = await createTask({ workspace_id: workspaceId, title: 'Refactor billing', assignee_agent_instance_id: author, reviewers: [alice, bob] });
    await quiet(author);

    await h.api('POST', `/api/office/tasks/${task.id}/move`, { state: 'IN_REVIEW' });
    const runs = await Promise.all([alice, bob].map((reviewer) => waitForRun({ agent_id: reviewer }, 'succeeded', `the review of ${reviewer}`)));
    for (const run of runs) expect(run.task_id).toBe(task.id);
    const [first, second] = [...runs].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
    expect(Date.parse(second!.started_at)).toBeGreaterThanOrEqual(Date.parse(first!.finished_at));
    for (const reviewer of [alice, bob]) {
      const [review] = await quiet(reviewer);
      expect(review).toMatchObject({ status: 'finished', skip_reason: null, payload: { task_id: task.id, as: 'reviewer' } });
    }
  });

  it('GIVEN ten tasks held by running sessions WHEN 50 reassignments land in parallel THEN every task is run by its final assignee after its last assignment', async () => {
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '0' });
    const { workspaceId, agentId: first } = await seedAgent(h, { name: 'Agent 0', executor: sleeper(2500), max_concurrent_sessions: 10 });
    const agents = [first];
    for (let i = 1; i < 4; i++) agents.push(await createAgent(workspaceId, { name: `Agent ${i}`, executor: sleeper(150), max_concurrent_sessions: 10 }));
    const taskIds = await Promise.all(Array.from({ length: 10 }, (_, i) => createTaskId(workspaceId, `Task ${i}`, first)));
    await h.waitFor(async () => (await listRuns({ agent_id: first })).length === 10, 'ten sessions holding their tasks');

    const plan = Array.from({ length: 50 }, (_, i) => ({ taskId: taskIds[i % 10]!, to: agents[1 + ((i * 7) % 3)]! }));
    await Promise.all(plan.map(({ taskId, to }) => patch(`/api/office/tasks/${taskId}`, { assignee_agent_instance_id: to })));
    await settled();

    await h.waitFor(async () => {
      for (const taskId of taskIds) {
        const task = (await h!.api('GET', `/api/office/tasks/${taskId}`)).body;
        const runs = await listRuns({ task_id: taskId, agent_id: task.assignee_agent_instance_id });
        if (!runs.some((r) => r.status === 'succeeded' && Date.parse(r.started_at) >= Date.parse(task.assigned_at))) return false;
      }
      return true;
    }, 'every task to be run by its final assignee', 20_000);
    const all = await Promise.all(agents.map((agent) => quiet(agent)));
    expect(all.flat().filter((w) => w.skip_reason === 'checkout_conflict')).toEqual([]);
  });
});
