import { afterEach, describe, expect, it } from 'vitest';
import { apiClient, sleep } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.stop());

const { listWakeups, listRuns, waitForRun } = apiClient(() => h);

describe('agent lifecycle: pause, resume, delete', () => {
  it('GIVEN work that ended with no run while the agent was paused WHEN the agent is resumed THEN that work is offered once more and runs', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' });
    const task = await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Fix the build', assignee_agent_instance_id: agentId });
    const dropped = await h.waitFor(async () => (await listWakeups({ agent_id: agentId })).find((w) => w.status === 'finished' && w.skip_reason === 'agent_paused'), 'the paused agent\'s wakeup to end');
    expect(await listRuns({ agent_id: agentId })).toHaveLength(0);

    await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'idle' });
    const run = await waitForRun({ agent_id: agentId }, 'succeeded', 'the replayed wakeup to run');
    expect(run.task_id).toBe(task.body.id);
    const replayed = (await listWakeups({ agent_id: agentId })).find((w) => w.id === run.wakeup_id);
    expect(replayed.idempotency_key).toBe(`replay:${dropped.id}`);
    expect((await h.api('GET', `/api/office/wakeups/${dropped.id}`)).body.skip_reason).toBe('agent_paused_replayed');

    // A second resume replays nothing more: each dropped wakeup is offered once.
    await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' });
    await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'idle' });
    await sleep(300);
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
