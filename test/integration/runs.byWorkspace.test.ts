/**
 * GET /api/office/runs?workspace_id=: the runs of one workspace, newest first, which the tasks board
 * reads to show each task's running or last run (one request for the whole board).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

it('lists the runs of the workspace asked for, newest first, and none of another', async () => {
  const mine = await seedAgent(h, { skip_idle_wakeups: false });
  const other = await seedAgent(h, { skip_idle_wakeups: false }, { name: 'Elsewhere' });
  const wakes = [];
  for (const agentId of [mine.agentId, other.agentId, mine.agentId]) {
    const woke = (await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'work' })).body.wakeup.id;
    await h.waitFor(async () => (await h.api('GET', `/api/office/wakeups/${woke}`)).body.status === 'finished', 'the run to end');
    wakes.push(woke);
  }
  const runs = (await h.api('GET', `/api/office/runs?workspace_id=${mine.workspaceId}`)).body;
  expect(runs.map((r: { wakeup_id: string }) => r.wakeup_id)).toEqual([wakes[2], wakes[0]]);
  expect(runs.every((r: { workspace_id: string }) => r.workspace_id === mine.workspaceId)).toBe(true);
  expect((await h.api('GET', `/api/office/runs?workspace_id=${other.workspaceId}&limit=5`)).body.map((r: { wakeup_id: string }) => r.wakeup_id)).toEqual([wakes[1]]);
});
