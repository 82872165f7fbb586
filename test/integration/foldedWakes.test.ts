/**
 * Requests folded into another wakeup (the coalescing window, or a run that has not started yet)
 * are never lost: event and user wakes always proceed, so when their target ends without running
 * them they go back to the queue, whatever ended it. Real SQLite, real HTTP, real child processes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, getWakeup, listWakeups, waitForWakeupStatus, waitForWakeupEnd } = apiClient(() => h);

describe('a user wake merged into a routine wakeup that waits to retry', () => {
  it('is requeued and runs when that retry is idle-skipped, and its explain never claims it merged into a run that had not started', async () => {
    // The retry wait is long enough for the test to merge a wake into it.
    h = await startHarness({ OFFICE_BACKOFF: '1500ms,1500ms,1500ms,1500ms' });
    const { workspaceId, agentId } = await seedAgent(h, { executor: fixtureAgent('fail.mjs'), skip_idle_wakeups: false });
    const routine = await call('POST', '/api/office/routines', {
      workspace_id: workspaceId, name: 'Digest', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }],
    }, 201);
    await call('POST', `/api/office/routines/${routine.id}/fire`, {}, 202);
    const tick = await h.waitFor(async () => (await listWakeups({ agent_id: agentId, source: 'routine' }))[0], 'the routine wakeup');
    const waiting = await waitForWakeupStatus(tick.id, 'scheduled_retry', 'the routine wakeup to wait for its retry');

    const woken = await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'look at the outage' }, 202);
    expect(woken.outcome).toBe('merged_into_run');
    const folded = await getWakeup(woken.wakeup.id);
    expect(folded).toMatchObject({ status: 'coalesced', coalesced_into_id: tick.id });
    // The run it names had already failed: it merged into a wakeup waiting to retry, not a run that had not started.
    expect(folded.explain).not.toMatch(/had not started/);
    expect(folded.explain).toContain(tick.id);
    expect(folded.explain).toContain(waiting.run_id);

    // The retry finds nothing to do (no actionable tasks), and the agent now works.
    await call('PATCH', `/api/office/agents/${agentId}`, { skip_idle_wakeups: true, executor: fixtureAgent('succeed.mjs') }, 200);
    const skipped = await waitForWakeupEnd(tick.id, 'the retry to end');
    expect(skipped).toMatchObject({ status: 'finished', skip_reason: 'no_actionable_tasks' });

    const ran = await waitForWakeupEnd(woken.wakeup.id, 'the user wake to run on its own');
    expect(ran.status).toBe('finished');
    expect(ran.skip_reason).toBeNull();
    const run = await call('GET', `/api/office/runs/${ran.run_id}`);
    expect(run).toMatchObject({ status: 'succeeded', wakeup_id: woken.wakeup.id });
  });
});
