/**
 * The runs timeline (GET /api/office/stats/timeline) draws sessions: a run that never started (one
 * still queued, one that resolved no executor) is no bar. Real server on a SQLite file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { runRow, wakeupRow } from '../store/rows.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, createWorkspace, createAgent, waitForWakeupEnd } = apiClient(() => h);

describe('the runs timeline', () => {
  it('leaves out the runs that never started: one still queued (with or without a start time) and one that resolved no executor', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const worker = await createAgent(ws, { name: 'Worker', executor: fixtureAgent('succeed.mjs') });
    const nowhere = await createAgent(ws, { name: 'Nowhere', executor: null });
    const ran = await waitForWakeupEnd((await call('POST', `/api/office/agents/${worker}/wake`, { reason: 'go' }, 202)).wakeup.id);
    const failed = await waitForWakeupEnd((await call('POST', `/api/office/agents/${nowhere}/wake`, { reason: 'go' }, 202)).wakeup.id);
    expect(failed).toMatchObject({ status: 'failed', error: 'no_executor' });
    // Runs claimed and not started yet, as the pipeline may leave them for a moment.
    const queued = await h.scheduler.store.transaction(async (tx) => {
      const agent = (await tx.agents.get(worker))!;
      const at = Date.now() - 60_000;
      const wakeup = wakeupRow(agent, at, { status: 'claimed', claimed_at: at });
      await tx.wakeups.insert(wakeup);
      const runs = [runRow(wakeup, at, { status: 'queued', started_at: at }), runRow(wakeup, at, { status: 'queued', attempt: 2 })];
      for (const run of runs) await tx.runs.insert(run, null);
      return runs.map((r) => r.id);
    });

    const timeline = await get(`/api/office/stats/timeline?workspace_id=${ws}`);
    expect(timeline.runs.map((r: any) => r.id)).toEqual([ran.run_id]);
    const listed = (await get(`/api/office/runs?agent_id=${worker}`)).map((r: any) => r.id);
    expect(listed).toEqual(expect.arrayContaining(queued));
  });
});
