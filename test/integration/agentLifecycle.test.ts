import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.stop());

const { listWakeups, listRuns, listActivity, createAgent, waitForRun } = apiClient(() => h);

describe('agent lifecycle: pause, resume, delete', () => {
  it('GIVEN work that ended with no run while the agent was paused WHEN the agent is resumed THEN nothing is replayed, and the recovery sweep dispatches its open TODO task at once, once', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const other = await createAgent(workspaceId, { name: 'Other' });
    const done = await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Already reviewed', assignee_agent_instance_id: other });
    await waitForRun({ agent_id: other }, 'succeeded', 'the other agent\'s run');
    await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' });
    const task = await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Fix the build', assignee_agent_instance_id: agentId });
    const dropped = await h.waitFor(async () => (await listWakeups({ agent_id: agentId })).find((w) => w.status === 'finished' && w.skip_reason === 'agent_paused'), 'the paused agent\'s wakeup to end');
    // Work on a task that is not open TODO work (in review): dropped while paused, never replayed.
    expect((await h.api('POST', `/api/office/tasks/${done.body.id}/move`, { state: 'IN_REVIEW' })).status).toBe(200);
    expect((await h.api('PATCH', `/api/office/tasks/${done.body.id}`, { assignee_agent_instance_id: agentId })).status).toBe(200);
    await h.waitFor(async () => (await listWakeups({ agent_id: agentId, task_id: done.body.id })).find((w) => w.skip_reason === 'agent_paused'), 'the second dropped wakeup');
    expect(await listRuns({ agent_id: agentId })).toHaveLength(0);

    // The periodic sweep is off in the harness: only the resume can dispatch the task.
    await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'idle' });
    const run = await waitForRun({ agent_id: agentId }, 'succeeded', 'the recovered task to run');
    expect(run.task_id).toBe(task.body.id);
    const recovered = (await listWakeups({ agent_id: agentId })).find((w) => w.id === run.wakeup_id);
    expect(recovered).toMatchObject({ source: 'task_assigned', recovered: true, reason: 'recovered: assigned task never started' });
    const [dispatch] = await listActivity({ workspace_id: workspaceId, code: 'recovery_dispatch' });
    expect(dispatch).toMatchObject({ agent_id: agentId, task_id: task.body.id });
    // The dropped wakeups stay as they ended; none is replayed.
    expect((await h.api('GET', `/api/office/wakeups/${dropped.id}`)).body).toMatchObject({ status: 'finished', skip_reason: 'agent_paused' });
    const wakeups = await listWakeups({ agent_id: agentId });
    expect(wakeups.filter((w) => (w.idempotency_key ?? '').startsWith('replay:'))).toEqual([]);
    expect(wakeups.filter((w) => w.task_id === done.body.id).map((w) => w.skip_reason)).toEqual(['agent_paused']);

    // A second pause and resume dispatches nothing more: the task has a finished run of its assignee.
    await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' });
    await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'idle' });
    await h.waitFor(async () => (await listActivity({ workspace_id: workspaceId, code: 'recovery_sweep_complete' })).length >= 2, 'the second resume\'s sweep');
    expect(await listRuns({ agent_id: agentId })).toHaveLength(1);
  });

  it('GIVEN an agent with queued work and a routine WHEN it is deleted THEN its queue is cancelled, its routine pauses with a reason and its trigger stops', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '1500' }) });
    const first = await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Busy', assignee_agent_instance_id: agentId });
    await waitForRun({ agent_id: agentId }, 'running', 'the first run to start');
    const second = await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Waiting', assignee_agent_instance_id: agentId });
    await h.waitFor(async () => (await listWakeups({ agent_id: agentId })).find((w) => w.task_id === second.body.id && w.status === 'queued'), 'the second wakeup to queue');
    const routine = await h.api('POST', '/api/office/routines', {
      workspace_id: workspaceId, name: 'Hourly', assignee_agent_instance_id: agentId,
      triggers: [{ kind: 'schedule', cron_expression: '0 * * * *' }],
    });
    expect(routine.status).toBe(201);
    await h.waitFor(() => h.scheduler.triggers.size === 1, 'the trigger actor');

    expect((await h.api('DELETE', `/api/office/agents/${agentId}`)).status).toBe(204);
    const queued = (await h.api('GET', `/api/office/wakeups?task_id=${second.body.id}`)).body[0];
    expect(queued).toMatchObject({ status: 'cancelled', cancel_reason: 'agent_deleted' });
    const paused = (await h.api('GET', `/api/office/routines/${routine.body.id}`)).body;
    expect(paused.status).toBe('paused');
    expect(paused.paused_reason).toMatch(/assignee agent was deleted/);
    await h.waitFor(() => h.scheduler.triggers.size === 0, 'the trigger actor to stop');
    // The run already in progress finishes on its own and releases its task.
    await h.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.task_id === first.body.id && r.status === 'succeeded'), 'the running session to finish');
    expect((await h.api('GET', `/api/office/agents/${agentId}`)).status).toBe(404);
  });
});
