/**
 * Routine field bugs (issue 11, items 7, 8, 13 and 14), end to end: the real HTTP server, a SQLite
 * file, trigger actors and fixture agents. Cron ticks and windows run on an injected clock (XState's
 * SimulatedClock), moved by hand. API.md, Pinned details: "Deleting an agent", "Routine-run caps",
 * "Deleting a routine", "Webhook order".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { ServiceError } from '../../src/services/errors.js';
import { apiClient } from '../helpers/client.js';
import { seedAgent, startHarness, type Harness } from '../helpers/harness.js';
import { sqliteFaults } from '../helpers/storage.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { get, post, patch, call, createAgent, getWakeup, waitForWakeupStatus } = apiClient(() => h);

/** An injected clock that starts at the wall clock's whole minute and moves only when told. */
function minuteClock(): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(Math.floor(Date.now() / 60_000) * 60_000);
  return clock;
}

const createRoutine = (body: Record<string, unknown>): Promise<any> => post('/api/office/routines', body);
const fire = (routineId: string, variables: Record<string, unknown> = {}) => post(`/api/office/routines/${routineId}/fire`, { variables }, 202);
const routineRuns = (routineId: string): Promise<any[]> => get(`/api/office/routines/${routineId}/runs`);
const runOf = async (routineId: string, runId: string) => (await routineRuns(routineId)).find((r) => r.id === runId);

async function webhook(publicId: string, deliveryId: string, body: Record<string, unknown> = {}) {
  return h!.api('POST', `/api/routine-triggers/${publicId}/fire`, body, { 'x-delivery-id': deliveryId });
}

describe('deleting an agent settles its routine runs (item 7)', () => {
  it('a routine run whose wakeup was cancelled by the agent deletion ends cancelled, so with OFFICE_MAX_CONCURRENT_ROUTINE_RUNS=1 a later fire of another routine is dispatched, not skipped cap_reached', async () => {
    // The clock stands still: the routine wakeup stays held in its coalescing window, unclaimed.
    h = await startHarness({ OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: '1' }, undefined, minuteClock());
    const { workspaceId, agentId: doomed } = await seedAgent(h, { skip_idle_wakeups: false });
    const survivor = await createAgent(workspaceId, { name: 'Survivor', skip_idle_wakeups: false });
    const doomedRoutine = await createRoutine({ workspace_id: workspaceId, name: 'Inbox sweep', assignee_agent_instance_id: doomed, triggers: [{ kind: 'manual' }] });
    const otherRoutine = await createRoutine({ workspace_id: workspaceId, name: 'Upstream check', assignee_agent_instance_id: survivor, triggers: [{ kind: 'manual' }] });

    const first = (await fire(doomedRoutine.id)).routine_run;
    expect(first).toMatchObject({ status: 'dispatched', outcome: null });
    expect((await getWakeup(first.linked_wakeup_id)).status).toBe('queued');

    await call('DELETE', `/api/office/agents/${doomed}`, undefined, 204);
    expect(await getWakeup(first.linked_wakeup_id)).toMatchObject({ status: 'cancelled', cancel_reason: 'agent_deleted' });
    expect(await runOf(doomedRoutine.id, first.id)).toMatchObject({ status: 'dispatched', outcome: 'cancelled' });

    const later = (await fire(otherRoutine.id)).routine_run;
    expect(later).toMatchObject({ status: 'dispatched', skip_reason: null });
  });

  it('a routine run an earlier version left open after its agent was deleted is settled cancelled on upgrade, so it no longer holds OFFICE_MAX_CONCURRENT_ROUTINE_RUNS', async () => {
    h = await startHarness({ OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: '1' }, undefined, minuteClock());
    const { workspaceId, agentId: doomed } = await seedAgent(h, { skip_idle_wakeups: false });
    const survivor = await createAgent(workspaceId, { name: 'Survivor', skip_idle_wakeups: false });
    const doomedRoutine = await createRoutine({ workspace_id: workspaceId, name: 'Inbox sweep', assignee_agent_instance_id: doomed, triggers: [{ kind: 'manual' }] });
    const otherRoutine = await createRoutine({ workspace_id: workspaceId, name: 'Upstream check', assignee_agent_instance_id: survivor, triggers: [{ kind: 'manual' }] });
    const leaked = (await fire(doomedRoutine.id)).routine_run;
    await call('DELETE', `/api/office/agents/${doomed}`, undefined, 204);

    // The rows as an earlier version left them (its deletion cancelled the wakeup, not the routine
    // run), on a database that has not been upgraded yet.
    const db = sqliteFaults(h.scheduler.store);
    db.run('UPDATE office_routine_runs SET outcome = NULL, completed_at = NULL WHERE id = ?', leaked.id);
    db.run("DELETE FROM schema_migrations WHERE name = '0011_settle_leaked_routine_runs.sql'");
    expect((await fire(otherRoutine.id)).routine_run).toMatchObject({ status: 'skipped', skip_reason: 'cap_reached' });

    await h.restart();
    const wakeup = await getWakeup(leaked.linked_wakeup_id);
    expect(await runOf(doomedRoutine.id, leaked.id)).toMatchObject({ status: 'dispatched', outcome: 'cancelled', completed_at: wakeup.finished_at });
    expect((await fire(otherRoutine.id)).routine_run).toMatchObject({ status: 'dispatched', skip_reason: null });
  });
});

describe('a routine on a deleted assignee (item 8)', () => {
  it('PATCH {status:"active"} onto a routine whose assignee was deleted is a 409 that names the agent, and changes nothing', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const routine = await createRoutine({ workspace_id: workspaceId, name: 'Nightly', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }] });
    await call('DELETE', `/api/office/agents/${agentId}`, undefined, 204);
    expect((await get(`/api/office/routines/${routine.id}`)).status).toBe('paused');

    const resumed = await h.api('PATCH', `/api/office/routines/${routine.id}`, { status: 'active' });
    expect(resumed.status).toBe(409);
    expect(resumed.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining(agentId) });
    expect((await get(`/api/office/routines/${routine.id}`)).status).toBe('paused');

    // Resuming onto a live assignee in the same PATCH is fine.
    const other = await createAgent(workspaceId, { name: 'Other' });
    expect(await patch(`/api/office/routines/${routine.id}`, { status: 'active', assignee_agent_instance_id: other })).toMatchObject({ status: 'active' });
  });

  it('a cron tick whose assignee was deleted is a failed routine run with the error; next_run_at moves on, and after consecutive_failure_limit ticks the routine pauses itself', async () => {
    const clock = minuteClock();
    h = await startHarness({}, undefined, clock);
    const { workspaceId, agentId } = await seedAgent(h);
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Every minute', assignee_agent_instance_id: agentId, consecutive_failure_limit: 2,
      triggers: [{ kind: 'schedule', cron_expression: '* * * * *', timezone: 'UTC' }],
    });
    const trigger = routine.triggers[0];
    await call('DELETE', `/api/office/agents/${agentId}`, undefined, 204);
    // The state an older server let a PATCH reach: active on a deleted assignee.
    sqliteFaults(h.scheduler.store).run("UPDATE office_routines SET status = 'active' WHERE id = ?", routine.id);
    await h.scheduler.triggers.refresh(routine.id);

    const firstTick = Date.parse(trigger.next_run_at);
    clock.set(firstTick);
    const failed = await h.waitFor(async () => (await routineRuns(routine.id))[0], 'the failed routine run of the first tick');
    expect(failed).toMatchObject({
      source: 'cron', status: 'failed', outcome: 'failed', scheduled_for: new Date(firstTick).toISOString(),
      error: expect.stringContaining(agentId), linked_wakeup_id: null,
    });
    const detail = await h.waitFor(async () => {
      const current = await get(`/api/office/routines/${routine.id}`);
      return Date.parse(current.triggers[0].next_run_at) > firstTick ? current : null;
    }, 'next_run_at to move past the failed tick');
    expect(detail).toMatchObject({ status: 'active', consecutive_failures: 1 });
    expect(Date.parse(detail.triggers[0].next_run_at)).toBe(firstTick + 60_000);

    clock.set(firstTick + 60_000);
    const paused = await h.waitFor(async () => {
      const current = await get(`/api/office/routines/${routine.id}`);
      return current.status === 'paused' ? current : null;
    }, 'the routine to pause itself');
    expect(paused.paused_reason).toMatch(/2 consecutive failed runs/);
    expect((await routineRuns(routine.id)).map((r) => r.status)).toEqual(['failed', 'failed']);
    await h.waitFor(() => h!.scheduler.triggers.view(trigger.id) === null, 'the trigger actor to stop');
  });

  it('a cron fire refused by a rule is recorded as a failed routine run and its tick moves on, instead of being retried for ever with next_run_at in the past', async () => {
    const clock = minuteClock();
    h = await startHarness({}, undefined, clock);
    const { workspaceId, agentId } = await seedAgent(h);
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Every minute', assignee_agent_instance_id: agentId,
      triggers: [{ kind: 'schedule', cron_expression: '* * * * *', timezone: 'UTC' }],
    });
    await h.waitFor(() => h!.scheduler.triggers.view(routine.triggers[0].id), 'the trigger actor');
    const service = h.scheduler.services.routines.firing;
    service.fireIn = async () => { throw new ServiceError('conflict', 'refused by a rule for this test'); };

    const tick = Date.parse(routine.triggers[0].next_run_at);
    clock.set(tick);
    const failed = await h.waitFor(async () => (await routineRuns(routine.id))[0], 'the refused tick to be recorded');
    expect(failed).toMatchObject({ status: 'failed', outcome: 'failed', error: 'refused by a rule for this test', scheduled_for: new Date(tick).toISOString() });
    const detail = await get(`/api/office/routines/${routine.id}`);
    expect(Date.parse(detail.triggers[0].next_run_at)).toBe(tick + 60_000);
    expect(detail.consecutive_failures).toBe(1);
  });
});

describe('deleting a routine archives it (item 13)', () => {
  it('DELETE /routines/:id is 204; the routine leaves the list, GET answers status "archived", /runs keeps its history, its triggers are disabled and their actors stop, even after a restart', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Weekly report', assignee_agent_instance_id: agentId,
      triggers: [{ kind: 'schedule', cron_expression: '0 9 * * 1' }, { kind: 'webhook', signing_mode: 'none' }, { kind: 'manual' }],
    });
    const [schedule, hook] = routine.triggers;
    await h.waitFor(() => h!.scheduler.triggers.view(schedule.id), 'the schedule trigger actor');
    const fired: any[] = [];
    for (let i = 0; i < 2; i++) {
      fired.push((await fire(routine.id)).routine_run);
      await waitForWakeupStatus(fired[i].linked_wakeup_id, 'finished', `fire ${i + 1} to run`);
      await h.waitFor(async () => (await runOf(routine.id, fired[i].id)).outcome, `fire ${i + 1} to be settled`);
    }

    await call('DELETE', `/api/office/routines/${routine.id}`, undefined, 204);
    expect(await get(`/api/office/routines?workspace_id=${workspaceId}`)).toEqual([]);
    const archived = await get(`/api/office/routines/${routine.id}`);
    expect(archived.status).toBe('archived');
    expect(archived.triggers.map((t: any) => [t.kind, t.enabled, t.next_run_at]).sort()).toEqual([['manual', false, null], ['schedule', false, null], ['webhook', false, null]]);
    expect(archived.recent_runs.map((r: any) => r.id)).toEqual([fired[1].id, fired[0].id]);
    const history = await routineRuns(routine.id);
    expect(history.map((r) => [r.id, r.outcome])).toEqual([[fired[1].id, 'succeeded'], [fired[0].id, 'succeeded']]);
    await h.waitFor(() => h!.scheduler.triggers.view(schedule.id) === null, 'the trigger actor to stop');

    expect((await h.api('POST', `/api/office/routines/${routine.id}/fire`, {})).status).toBe(409);
    expect((await webhook(hook.public_id, 'after-archive')).status).toBe(409);
    expect((await h.api('PATCH', `/api/office/routine-triggers/${schedule.id}`, { enabled: true })).status).toBe(409);
    expect((await h.api('DELETE', `/api/office/routine-triggers/${hook.id}`)).status).toBe(409);
    expect(await routineRuns(routine.id)).toHaveLength(2);

    await h.restart();
    expect(h.scheduler.triggers.view(schedule.id)).toBeNull();
    expect((await get(`/api/office/routines/${routine.id}`)).status).toBe('archived');
  });
});

describe('webhook deliveries (item 14)', () => {
  async function webhookRoutine(env: Record<string, string> = {}, clock?: SimulatedClock) {
    h = await startHarness(env, undefined, clock);
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'On push', assignee_agent_instance_id: agentId, triggers: [{ kind: 'webhook', signing_mode: 'none' }],
    });
    return { routine, hook: routine.triggers[0] };
  }

  it('a repeated delivery id answers 200 with the first delivery\'s routine run after the routine was paused or the trigger disabled; a new delivery is then a 409', async () => {
    const { routine, hook } = await webhookRoutine();
    const first = await webhook(hook.public_id, 'delivery-1', { branch: 'main' });
    expect(first.status).toBe(202);

    await patch(`/api/office/routines/${routine.id}`, { status: 'paused' });
    const whilePaused = await webhook(hook.public_id, 'delivery-1', { branch: 'other' });
    expect(whilePaused.status).toBe(200);
    expect(whilePaused.body.routine_run).toMatchObject({ id: first.body.routine_run.id, trigger_payload: { branch: 'main' } });
    expect((await webhook(hook.public_id, 'delivery-2')).status).toBe(409);

    await patch(`/api/office/routine-triggers/${hook.id}`, { enabled: false });
    const whileDisabled = await webhook(hook.public_id, 'delivery-1');
    expect(whileDisabled.status).toBe(200);
    expect(whileDisabled.body.routine_run.id).toBe(first.body.routine_run.id);
    expect(await routineRuns(routine.id)).toHaveLength(1);
  });

  it('delivery-id dedup expires with the idempotency window: the same id after OFFICE_IDEMPOTENCY_WINDOW_HOURS fires a new routine run, which the next repeat then answers', async () => {
    const clock = minuteClock();
    const { routine, hook } = await webhookRoutine({ OFFICE_IDEMPOTENCY_WINDOW_HOURS: '1' }, clock);
    const first = await webhook(hook.public_id, 'delivery-1');
    expect(first.status).toBe(202);
    clock.set(clock.now() + 59 * 60_000);
    expect((await webhook(hook.public_id, 'delivery-1')).body.routine_run.id).toBe(first.body.routine_run.id);

    clock.set(clock.now() + 2 * 60_000);
    const again = await webhook(hook.public_id, 'delivery-1');
    expect(again.status).toBe(202);
    expect(again.body.routine_run).toMatchObject({ delivery_id: 'delivery-1', status: 'dispatched' });
    expect(again.body.routine_run.id).not.toBe(first.body.routine_run.id);
    const repeat = await webhook(hook.public_id, 'delivery-1');
    expect(repeat.status).toBe(200);
    expect(repeat.body.routine_run.id).toBe(again.body.routine_run.id);

    // The first delivery's run keeps its history; its id is retired, not reused.
    const runs = await routineRuns(routine.id);
    expect(runs.map((r) => r.id)).toEqual([again.body.routine_run.id, first.body.routine_run.id]);
    expect(runs[1].delivery_id).toBe(`delivery-1#expired:${first.body.routine_run.id}`);
  });
});
