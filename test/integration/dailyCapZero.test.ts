/**
 * A daily cap of 0 leaves no timed obligation (spec/peer-idle-agent-timers.md): the deferred work
 * holds no deadline, no midnight timer is re-armed every day, and raising the cap dispatches it.
 * Real SQLite, real HTTP server, a real child process as the agent, time on an injected clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { nextUtcDay } from '../../src/domain/dailyCaps.js';
import { fixtureAgent, startHarness, waitFor, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** Deadlines armed on the simulated clock. */
const deadlines = (clock: SimulatedClock) =>
  [...(clock as unknown as { timeouts: Map<unknown, { start: number; timeout: number }> }).timeouts.values()].map((t) => t.start + t.timeout);

describe('daily_run_cap 0', () => {
  it('holds no deadline for the deferred work (no midnight timer, nothing in the actor), and raising the cap dispatches it', async () => {
    const clock = new SimulatedClock();
    clock.set(Date.UTC(2026, 0, 5, 9, 0, 0));
    h = await startHarness({}, undefined, clock);
    const api = (method: string, path: string, body?: unknown) => h!.api(method, path, body);

    const ws = (await api('POST', '/api/office/workspaces', { name: 'Acme' })).body;
    const agent = (await api('POST', '/api/office/agents', {
      workspace_id: ws.id, name: 'Capped', role: 'worker', executor: fixtureAgent('succeed.mjs'), cooldown_sec: 0, daily_run_cap: 0,
    })).body;
    const woken = await api('POST', `/api/office/agents/${agent.id}/wake`, { reason: 'summarise the incident' });
    expect(woken.status).toBe(202);
    const wakeupId = woken.body.wakeup.id;

    const deferred = await waitFor(async () => {
      const w = (await api('GET', `/api/office/wakeups/${wakeupId}`)).body;
      return w.activity.some((a: any) => a.code === 'wakeup_deferred_daily_cap') && h!.scheduler.supervisor.view(agent.id)?.running === 0 ? w : null;
    }, 'the wakeup to be deferred by the cap');
    expect(deferred).toMatchObject({ status: 'queued', skip_reason: 'daily_run_cap', run_id: null });
    expect(deferred.explain).toContain('until the cap is raised');

    // The actor holds nothing for it: no inbox entry, no deadline, and no timer at the next midnight.
    const snapshot = h.scheduler.supervisor.snapshotOf(agent.id)!;
    expect(snapshot.context.inbox.size).toBe(0);
    const view = (await api('GET', `/api/office/agents/${agent.id}`)).body.actor;
    expect(view).toMatchObject({ state: 'active.idle', queued: 0, running: 0, next_available_at: null });
    expect(deadlines(clock)).not.toContain(nextUtcDay(clock.now()));

    // Raising the cap releases the deferred work at once: it runs.
    expect((await api('PATCH', `/api/office/agents/${agent.id}`, { daily_run_cap: 1 })).status).toBe(200);
    const ran = await waitFor(async () => {
      const w = (await api('GET', `/api/office/wakeups/${wakeupId}`)).body;
      return w.status === 'finished' ? w : null;
    }, 'the released wakeup to run');
    expect(ran.skip_reason).toBeNull();
    expect((await api('GET', `/api/office/runs/${ran.run_id}`)).body).toMatchObject({ status: 'succeeded', wakeup_id: wakeupId });
  });
});
