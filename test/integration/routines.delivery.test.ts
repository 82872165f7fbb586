/**
 * Durable result delivery (issue 16; API.md: routine run `delivery_status`), end to end: the real
 * server, a SQLite file, a fixture agent, and a local HTTP server as the routine's delivery webhook.
 * A delivery is recorded `pending` with the run's outcome and retried on the backoff steps
 * (OFFICE_BACKOFF) of an injected clock, moved by hand, until it is delivered or gives up; a restart
 * in between loses nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { apiClient } from '../helpers/client.js';
import { seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
let target: Server | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
  target?.closeAllConnections();
  target?.close();
  target = undefined;
});

const { get, post, listActivity } = apiClient(() => h);

const MINUTE = 60_000;

/** The delivery webhook: answers 500 to the first `failures` posts, 200 after; keeps what it received. */
async function deliveryTarget(failures: number) {
  const received: unknown[] = [];
  target = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.statusCode = received.length <= failures ? 500 : 200;
      res.end(received.length <= failures ? 'not now' : 'ok');
    });
  });
  await new Promise<void>((resolve) => target!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`, received };
}

/** The wall clock's whole minute, standing still until the test moves it. */
function stillClock(): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(Math.floor(Date.now() / MINUTE) * MINUTE);
  return clock;
}

/** A routine with a delivery webhook, fired by hand; its run, once it has succeeded. */
async function firedRoutineRun(url: string) {
  const { workspaceId, agentId } = await seedAgent(h!, { skip_idle_wakeups: false });
  const routine = await post('/api/office/routines', {
    workspace_id: workspaceId, name: 'Nightly report', assignee_agent_instance_id: agentId,
    delivery: { kind: 'webhook', url }, triggers: [{ kind: 'manual' }],
  });
  const fired = (await post(`/api/office/routines/${routine.id}/fire`, {}, 202)).routine_run;
  return { workspaceId, routine, runId: fired.id as string };
}

const routineRunOf = async (routineId: string, runId: string) =>
  (await get(`/api/office/routines/${routineId}/runs`) as any[]).find((r) => r.id === runId);

describe('durable result delivery', () => {
  it('a delivery that fails twice, then succeeds, ends delivered: each retry waits for its backoff step on the injected clock, and a restart between attempts loses nothing', async () => {
    const clock = stillClock();
    const t0 = clock.now();
    const hook = await deliveryTarget(2);
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '0', OFFICE_BACKOFF: '1m,5m' }, undefined, clock);
    const { workspaceId, routine, runId } = await firedRoutineRun(hook.url);

    // The run succeeds; its delivery is made at once, refused, and waits for the first backoff step.
    await h.waitFor(() => hook.received.length === 1, 'the first delivery attempt');
    const pending = await h.waitFor(async () => {
      const run = await routineRunOf(routine.id, runId);
      return run?.delivery_status === 'pending' && (await listActivity({ workspace_id: workspaceId, code: 'routine_delivery_retry_scheduled' })).length === 1 ? run : null;
    }, 'the first failure to be recorded');
    expect(pending).toMatchObject({ outcome: 'succeeded', delivery_status: 'pending' });
    const [firstRetry] = await listActivity({ workspace_id: workspaceId, code: 'routine_delivery_retry_scheduled' });
    expect(firstRetry.details).toMatchObject({ attempts: 1, error: 'HTTP 500 Internal Server Error', next_attempt_at: new Date(t0 + MINUTE).toISOString() });

    clock.increment(MINUTE);
    await h.waitFor(async () => (await listActivity({ workspace_id: workspaceId, code: 'routine_delivery_retry_scheduled' })).length === 2, 'the second failure to be recorded');
    expect(hook.received).toHaveLength(2);

    // The process goes away with the delivery still pending; the next one makes it when it is due.
    await h.restart();
    expect((await routineRunOf(routine.id, runId)).delivery_status).toBe('pending');
    clock.increment(5 * MINUTE);
    const delivered = await h.waitFor(async () => {
      const run = await routineRunOf(routine.id, runId);
      return run?.delivery_status === 'delivered' ? run : null;
    }, 'the delivery to succeed after the restart');
    expect(delivered.outcome).toBe('succeeded');
    expect(hook.received).toEqual(Array(3).fill({ routine_id: routine.id, routine_run_id: runId, outcome: 'succeeded' }));
    const [done] = await listActivity({ workspace_id: workspaceId, code: 'routine_delivery_delivered' });
    expect(done).toMatchObject({ routine_id: routine.id, details: expect.objectContaining({ attempts: 3, routine_run_id: runId }) });
  }, 60_000);

  it('a delivery another replica recorded, unknown to this one until then, is made at its next recovery sweep (OFFICE_RECOVERY_SWEEP_SEC)', async () => {
    const clock = stillClock();
    const hook = await deliveryTarget(0);
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '0', OFFICE_RECOVERY_SWEEP_SEC: '600' }, undefined, clock);
    const { routine, runId } = await firedRoutineRun(hook.url);
    await h.waitFor(async () => (await routineRunOf(routine.id, runId))?.outcome === 'succeeded' && hook.received.length === 1, 'the run and its own delivery');
    // A second routine run whose delivery another replica wrote (no kick here): only the sweep finds it.
    const other = (await post(`/api/office/routines/${routine.id}/fire`, {}, 202)).routine_run;
    await h.waitFor(async () => (await routineRunOf(routine.id, other.id))?.delivery_status === 'delivered', 'the second run delivered');
    const hidden = { id: `rrn_hidden_${Date.now()}` };
    await h.scheduler.store.transaction(async (tx) => {
      const run = await tx.routines.getRun(other.id);
      await tx.routines.insertRun({ ...run!, id: hidden.id, delivery_status: 'none' });
      await tx.deliveries.schedule({ routine_run_id: hidden.id, url: hook.url, body: { routine_run_id: hidden.id }, next_attempt_at: clock.now(), created_at: clock.now() });
    });
    expect((await routineRunOf(routine.id, hidden.id)).delivery_status).toBe('pending');
    clock.increment(600_000);
    await h.waitFor(async () => (await routineRunOf(routine.id, hidden.id))?.delivery_status === 'delivered', 'the sweep to make the delivery');
    expect(hook.received.at(-1)).toEqual({ routine_run_id: hidden.id });
  }, 60_000);

  it('a delivery that never succeeds gives up after MaxRetryCount retries and ends failed', async () => {
    const clock = stillClock();
    const hook = await deliveryTarget(Number.POSITIVE_INFINITY);
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '0', OFFICE_BACKOFF: '1m' }, undefined, clock);
    const { workspaceId, routine, runId } = await firedRoutineRun(hook.url);

    for (let attempt = 1; attempt <= 4; attempt++) {
      await h.waitFor(async () => (await listActivity({ workspace_id: workspaceId, code: 'routine_delivery_retry_scheduled' })).length === attempt,
        `failure ${attempt} to be recorded`);
      clock.increment(MINUTE);
    }
    const failed = await h.waitFor(async () => {
      const run = await routineRunOf(routine.id, runId);
      return run?.delivery_status === 'failed' ? run : null;
    }, 'the delivery to give up');
    expect(failed.outcome).toBe('succeeded');
    expect(hook.received).toHaveLength(5);
    const [gaveUp] = await listActivity({ workspace_id: workspaceId, code: 'routine_delivery_failed' });
    expect(gaveUp.details).toMatchObject({ attempts: 5, error: 'HTTP 500 Internal Server Error' });
  }, 60_000);
});
