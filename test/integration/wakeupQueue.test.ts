import { afterEach, describe, expect, it } from 'vitest';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.stop());

describe('wakeup queue (spec scenarios)', () => {
  it('GIVEN a task is assigned to a worker WHEN the assignment is saved THEN a task_assigned wakeup is queued, claimed and run', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const task = await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Write docs', assignee_agent_instance_id: agentId });
    expect(task.status).toBe(201);
    const run = await h.waitFor(async () => {
      const runs = await h.api('GET', `/api/office/runs?agent_id=${agentId}`);
      return runs.body.find((r: any) => r.status === 'succeeded');
    }, 'a succeeded run');
    expect(run.task_id).toBe(task.body.id);
    expect(run.result_json.summary).toBe('handled task_assigned');
    expect(run.assembled_prompt).toContain('Write docs');
    const wakeup = await h.api('GET', `/api/office/wakeups/${run.wakeup_id}`);
    expect(wakeup.body).toMatchObject({ source: 'task_assigned', status: 'finished', run_id: run.id });
  });
});
