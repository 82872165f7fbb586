/**
 * Routine firing, end to end: the real HTTP server, SQLite file, trigger actors and fixture agents.
 * Spec: office-scheduler.md (Routines, routine scenarios) and peer-routines-horizontal.md
 * (idempotent ticks, caps, auto-pause, governance, delivery); API.md Pinned details.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { loadConfig } from '../../src/config.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { apiClient } from '../helpers/client.js';
import { FAST_ENV, fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await h?.stop();
});

const { listWakeups, waitForWakeupStatus } = apiClient(() => h);
const SLOW = (ms: number) => fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: String(ms) });

async function createRoutine(body: Record<string, unknown>) {
  const response = await h.api('POST', '/api/office/routines', body);
  if (response.status !== 201) throw new Error(`routine create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function routineRuns(routineId: string): Promise<any[]> {
  const response = await h.api('GET', `/api/office/routines/${routineId}/runs`);
  expect(response.status).toBe(200);
  return response.body;
}

async function routineRun(routineId: string, runId: string) {
  return (await routineRuns(routineId)).find((r) => r.id === runId);
}

async function fire(routineId: string, variables?: Record<string, unknown>) {
  return h.api('POST', `/api/office/routines/${routineId}/fire`, variables ? { variables } : {});
}


/** A heavy "Review" routine with `policy`, on a slow agent, fired once: its task is still active. */
async function reviewRoutineWithActiveRun(policy: 'skip_if_active' | 'coalesce_if_active') {
  h = await startHarness();
  const { workspaceId, agentId } = await seedAgent(h, { executor: SLOW(4000) });
  const routine = await createRoutine({
    workspace_id: workspaceId, name: 'Review', assignee_agent_instance_id: agentId, concurrency_policy: policy,
    task_template: { title: 'Review {{date}}' }, triggers: [{ kind: 'manual' }],
  });
  const first = (await fire(routine.id)).body.routine_run;
  expect(first.status).toBe('task_created');
  return { workspaceId, routine, first };
}

/** The trigger actor exists once the async refresh after a routine change has run. */
async function waitForActor(triggerId: string) {
  return h.waitFor(() => h.scheduler.triggers.view(triggerId), `trigger actor ${triggerId}`);
}

const iso = (ms: number) => new Date(ms).toISOString();

/** An injected clock standing at a whole second until the test moves it; `tick(n)` is n seconds later. */
function secondsClock() {
  const clock = new SimulatedClock();
  const start = Math.floor(Date.now() / 1000) * 1000;
  clock.set(start);
  return { clock, tick: (n: number) => start + n * 1000 };
}

/** Once the trigger's actor in each of `schedulers` waits for the tick at `at`: every earlier tick is fired or followed. */
function triggerWaitsFor(schedulers: Scheduler[], triggerId: string, at: number) {
  return h.waitFor(() => schedulers.every((scheduler) => {
    const view = scheduler.triggers.view(triggerId);
    return view?.state === 'waiting' && view.next_run_at === at;
  }), `trigger ${triggerId} to wait for ${iso(at)}`);
}

/**
 * A six-field cron that fires exactly once, `leadMs` or a little more from now (UTC), at a whole
 * second: both triggers of a "same instant" test get the same expression and so the same tick.
 */
function oneShotCron(leadMs = 2000): { expression: string; at: number } {
  const at = Math.ceil((Date.now() + leadMs) / 1000) * 1000;
  const d = new Date(at);
  return { expression: `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`, at };
}

function sign(secret: string, raw: string) {
  return `sha256=${createHmac('sha256', secret).update(raw, 'utf8').digest('hex')}`;
}

async function webhook(publicId: string, raw: string | undefined, headers: Record<string, string> = {}) {
  const response = await fetch(`${h.url}/api/routine-triggers/${publicId}/fire`, {
    method: 'POST',
    headers: { ...(raw !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: raw,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('heavy and lightweight routines (spec scenarios)', () => {
  it('GIVEN heavy routine "Daily Dep Update" (0 9 * * *, UTC) WHEN the clock reaches its next_run_at THEN a task "Daily Dep Update - <date>" is created on the routine workflow for the assignee with a task_assigned wakeup, hidden from GET /tasks unless include_routine=true, and the successful run completes the task and the routine run', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Frontend Worker' });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Daily Dep Update', assignee_agent_instance_id: agentId,
      task_template: { title: 'Daily Dep Update - {{date}}', description: 'Bump dependencies ({{datetime}} UTC)' },
      triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'UTC' }],
    });
    const trigger = routine.triggers[0];
    expect(trigger.next_run_at).toMatch(/T09:00:00\.000Z$/);
    expect(await waitForActor(trigger.id)).toMatchObject({ state: 'waiting', next_run_at: Date.parse(trigger.next_run_at) });

    // "The clock reaches 09:00": the stored next_run_at is moved to just ahead of now, and the actor follows the row.
    const due = Date.now() + 400;
    await h.scheduler.store.transaction((tx) => tx.routines.editTrigger(trigger.id, { next_run_at: due }));
    await h.scheduler.triggers.refresh(routine.id);

    const run = await h.waitFor(async () => (await routineRuns(routine.id))[0], 'the routine run');
    expect(run).toMatchObject({ source: 'cron', status: 'task_created', trigger_id: trigger.id, scheduled_for: new Date(due).toISOString() });
    expect(run.linked_task_id).toEqual(expect.any(String));
    const date = new Date(Date.parse(run.started_at)).toISOString().slice(0, 10);

    const task = (await h.api('GET', `/api/office/tasks/${run.linked_task_id}`)).body;
    expect(task).toMatchObject({ title: `Daily Dep Update - ${date}`, workflow: 'routine', assignee_agent_instance_id: agentId, origin: 'routine', origin_id: routine.id });
    expect(task.description).toMatch(new RegExp(`^Bump dependencies \\(${date} \\d\\d:\\d\\d UTC\\)$`));

    const assigned = await h.waitFor(async () => (await listWakeups({ agent_id: agentId, source: 'task_assigned' })).find((w) => w.payload.task_id === task.id), 'task_assigned wakeup');
    expect(assigned.task_id).toBe(task.id);

    const visible = (await h.api('GET', `/api/office/tasks?workspace_id=${workspaceId}`)).body;
    expect(visible.map((t: any) => t.id)).not.toContain(task.id);
    const withRoutine = (await h.api('GET', `/api/office/tasks?workspace_id=${workspaceId}&include_routine=true`)).body;
    expect(withRoutine.map((t: any) => t.id)).toContain(task.id);

    const done = await h.waitFor(async () => {
      const current = await routineRun(routine.id, run.id);
      return current.outcome ? current : null;
    }, 'the routine run outcome');
    expect(done.outcome).toBe('succeeded');
    expect((await h.api('GET', `/api/office/tasks/${task.id}`)).body.state).toBe('DONE');
    const agentRun = (await h.api('GET', `/api/office/runs?agent_id=${agentId}`)).body.find((r: any) => r.task_id === task.id);
    expect(agentRun).toMatchObject({ status: 'succeeded', wakeup_id: assigned.id });

    // The trigger moved on to the next 09:00 and its actor waits for it.
    const after = (await h.api('GET', `/api/office/routines/${routine.id}`)).body.triggers[0];
    expect(after.next_run_at).toMatch(/T09:00:00\.000Z$/);
    expect(Date.parse(after.next_run_at)).toBeGreaterThan(due);
    expect(after.last_fired_at).not.toBeNull();
    expect(h.scheduler.triggers.view(trigger.id)).toMatchObject({ state: 'waiting', next_run_at: Date.parse(after.next_run_at) });
  });

  it('GIVEN a lightweight routine WHEN it fires THEN a taskless routine wakeup is dispatched, the agent run has no task, and the continuation summary is kept under routine:<id>', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Check upstream PRs', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }],
    });
    expect(routine.task_template).toBeNull();
    const fired = await fire(routine.id);
    expect(fired.status).toBe(202);
    const rr = fired.body.routine_run;
    expect(rr).toMatchObject({ status: 'dispatched', source: 'manual', linked_task_id: null, linked_wakeup_id: expect.any(String), outcome: null });

    const wakeup = (await h.api('GET', `/api/office/wakeups/${rr.linked_wakeup_id}`)).body;
    expect(wakeup).toMatchObject({ source: 'routine', task_id: null, routine_run_id: rr.id });
    expect(wakeup.payload).toMatchObject({ routine_id: routine.id, routine_run_id: rr.id });

    const agentRun = await h.waitFor(async () => {
      const runs = (await h.api('GET', `/api/office/runs?agent_id=${agentId}`)).body;
      return runs.find((r: any) => r.wakeup_id === rr.linked_wakeup_id && r.status === 'succeeded');
    }, 'the taskless agent run');
    expect(agentRun.task_id).toBeNull();
    expect(agentRun.routine_id).toBe(routine.id);

    const ended = await h.waitFor(async () => {
      const current = await routineRun(routine.id, rr.id);
      return current.outcome ? current : null;
    }, 'routine run outcome');
    expect(ended).toMatchObject({ status: 'dispatched', outcome: 'succeeded', linked_task_id: null });

    const summaries = await h.waitFor(async () => {
      const list = (await h.api('GET', `/api/office/agents/${agentId}/summaries`)).body;
      return list.length ? list : null;
    }, 'a continuation summary');
    expect(summaries).toEqual([expect.objectContaining({ scope: `routine:${routine.id}`, updated_by_run_id: agentRun.id })]);
    expect(summaries[0].content).toContain('handled routine');
    // No task was created anywhere for a lightweight fire.
    expect((await h.api('GET', `/api/office/tasks?workspace_id=${workspaceId}&include_routine=true`)).body).toEqual([]);
  });

  it('GIVEN skip_if_active and an active task from a previous run WHEN the routine fires again THEN the routine run is skipped and no new task is created', async () => {
    const { workspaceId, routine, first } = await reviewRoutineWithActiveRun('skip_if_active');
    const second = await fire(routine.id);
    expect(second.status).toBe(202);
    expect(second.body.routine_run).toMatchObject({ status: 'skipped', skip_reason: 'active_run', linked_task_id: null, linked_wakeup_id: null, coalesced_into_run_id: null });
    expect(second.body.routine_run.completed_at).not.toBeNull();
    const tasks = (await h.api('GET', `/api/office/tasks?workspace_id=${workspaceId}&include_routine=true`)).body;
    expect(tasks.map((t: any) => t.id)).toEqual([first.linked_task_id]);
    expect((await routineRuns(routine.id)).map((r) => r.status)).toEqual(['skipped', 'task_created']);
  });

  it('GIVEN coalesce_if_active WHEN the routine fires while the first run is active THEN the second routine run is coalesced into the first', async () => {
    const { workspaceId, routine, first } = await reviewRoutineWithActiveRun('coalesce_if_active');
    const second = (await fire(routine.id)).body.routine_run;
    expect(second).toMatchObject({ status: 'coalesced', coalesced_into_run_id: first.id, linked_task_id: null });
    expect((await h.api('GET', `/api/office/tasks?workspace_id=${workspaceId}&include_routine=true`)).body).toHaveLength(1);
  });

  it('fires again and again: a */1-second lightweight routine with a fast agent dispatches at least 3 routine runs, each its own agent run (guards "fires once, never again")', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Tick', assignee_agent_instance_id: agentId,
      triggers: [{ kind: 'schedule', cron_expression: '*/1 * * * * *' }],
    });
    const dispatched = await h.waitFor(async () => {
      const runs = (await routineRuns(routine.id)).filter((r) => r.status === 'dispatched' && r.outcome === 'succeeded');
      return runs.length >= 3 ? runs : null;
    }, '3 dispatched routine runs that succeeded', 20_000);
    expect(new Set(dispatched.map((r) => r.scheduled_for)).size).toBe(dispatched.length);
    expect(new Set(dispatched.map((r) => r.linked_wakeup_id)).size).toBe(dispatched.length);
    const agentRuns = await Promise.all(dispatched.map(async (r) => (await h.api('GET', `/api/office/wakeups/${r.linked_wakeup_id}`)).body.run_id));
    expect(agentRuns.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(agentRuns).size).toBe(dispatched.length);
    // Every run that is not dispatched was folded into an active one while it ran.
    for (const run of await routineRuns(routine.id)) expect(['dispatched', 'coalesced']).toContain(run.status);
  });

  it('GIVEN a required {{reason}} WHEN Run Now omits it THEN 400 naming reason and no routine run; WHEN given THEN 202 and it is resolved in the task title and description', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Hotfix', assignee_agent_instance_id: agentId,
      task_template: { title: 'Hotfix because {{reason}}', description: 'Reason given: {{reason}}' },
      variables: [{ name: 'reason', type: 'text', required: true }],
      triggers: [{ kind: 'manual' }],
    });
    for (const body of [{}, { variables: {} }, { variables: { reason: null } }]) {
      const missing = await h.api('POST', `/api/office/routines/${routine.id}/fire`, body);
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe('validation_error');
      expect(missing.body.error.message).toContain('reason');
      expect(missing.body.error.details).toEqual([expect.objectContaining({ path: 'variables.reason' })]);
    }
    const noBody = await h.api('POST', `/api/office/routines/${routine.id}/fire`);
    expect(noBody.status).toBe(400);
    expect(noBody.body.error.message).toContain('reason');
    expect(await routineRuns(routine.id)).toEqual([]);
    expect((await h.api('GET', `/api/office/tasks?workspace_id=${workspaceId}&include_routine=true`)).body).toEqual([]);

    const ok = await fire(routine.id, { reason: 'prod is down' });
    expect(ok.status).toBe(202);
    expect(ok.body.routine_run).toMatchObject({ status: 'task_created', trigger_payload: expect.objectContaining({ reason: 'prod is down' }) });
    const task = (await h.api('GET', `/api/office/tasks/${ok.body.routine_run.linked_task_id}`)).body;
    expect(task.title).toBe('Hotfix because prod is down');
    expect(task.description).toBe('Reason given: prod is down');
  });
});

describe('webhook triggers', () => {
  async function webhookRoutine(triggers: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Hooked', assignee_agent_instance_id: agentId, concurrency_policy: 'always_enqueue', triggers, ...extra,
    });
    return { routine, workspaceId, agentId };
  }

  it('GIVEN an hmac_sha256 trigger WHEN a validly signed {"branch": "release/2.0"} arrives THEN {{branch}} is resolved in the task template', async () => {
    const { routine, workspaceId } = await webhookRoutine([{ kind: 'webhook', signing_mode: 'hmac_sha256' }], {
      task_template: { title: 'Release {{branch}}', description: 'Cut {{branch}} now' },
    });
    const trigger = routine.triggers[0];
    const raw = JSON.stringify({ branch: 'release/2.0' });
    const response = await webhook(trigger.public_id, raw, { 'x-hub-signature-256': sign(trigger.secret, raw) });
    expect(response.status).toBe(202);
    expect(response.body.routine_run).toMatchObject({ source: 'webhook', status: 'task_created', trigger_id: trigger.id, trigger_payload: expect.objectContaining({ branch: 'release/2.0' }) });
    const task = (await h.api('GET', `/api/office/tasks/${response.body.routine_run.linked_task_id}`)).body;
    expect(task).toMatchObject({ title: 'Release release/2.0', description: 'Cut release/2.0 now', workflow: 'routine' });
    expect((await h.api('GET', `/api/office/tasks?workspace_id=${workspaceId}&include_routine=true`)).body).toHaveLength(1);
  });

  it('verifies every signing mode: none accepts; bearer and hmac accept the right credential and answer 401 (creating nothing) otherwise', async () => {
    const { routine } = await webhookRoutine([
      { kind: 'webhook', signing_mode: 'none' },
      { kind: 'webhook', signing_mode: 'bearer', secret: 'tok-123' },
      { kind: 'webhook', signing_mode: 'hmac_sha256', secret: 's3cret' },
    ]);
    const [none, bearer, hmac] = routine.triggers;
    const count = async () => (await routineRuns(routine.id)).length;
    const raw = JSON.stringify({ n: 1 });

    expect((await webhook(none.public_id, raw)).status).toBe(202);
    expect((await webhook(none.public_id, undefined)).status).toBe(202);
    expect(await count()).toBe(2);

    const bearerOk = await webhook(bearer.public_id, raw, { authorization: 'Bearer tok-123' });
    expect(bearerOk.status).toBe(202);
    expect(bearerOk.body.routine_run.trigger_id).toBe(bearer.id);
    expect(await count()).toBe(3);
    const badBearer: Record<string, string>[] = [{ authorization: 'Bearer wrong' }, {}, { authorization: 'Bearer ' }, { authorization: 'tok-123' }, { authorization: 'Basic dG9rLTEyMw==' }, { authorization: 'Bearer tok-1234' }];
    for (const headers of badBearer) {
      const rejected = await webhook(bearer.public_id, raw, headers);
      expect(rejected.status, JSON.stringify(headers)).toBe(401);
      expect(rejected.body.error.code).toBe('unauthorized');
    }
    expect(await count()).toBe(3);

    expect((await webhook(hmac.public_id, raw, { 'x-hub-signature-256': sign('s3cret', raw) })).status).toBe(202);
    expect(await count()).toBe(4);
    const badHmac: Record<string, string>[] = [
      { 'x-hub-signature-256': sign('other', raw) },
      { 'x-hub-signature-256': sign('s3cret', JSON.stringify({ n: 2 })) },
      { 'x-hub-signature-256': sign('s3cret', raw).replace('sha256=', 'sha1=') },
      { 'x-hub-signature-256': 'sha256=' },
      { authorization: 'Bearer s3cret' },
      {},
    ];
    for (const headers of badHmac) {
      const rejected = await webhook(hmac.public_id, raw, headers);
      expect(rejected.status, JSON.stringify(headers)).toBe(401);
      expect(rejected.body.error.code).toBe('unauthorized');
    }
    expect(await count()).toBe(4);
    expect((await webhook('no-such-trigger', raw)).status).toBe(404);
  });

  it('a bearer or hmac trigger whose secret is empty (NULL) accepts nothing', async () => {
    const { routine } = await webhookRoutine([
      { kind: 'webhook', signing_mode: 'bearer', secret: 'placeholder' },
      { kind: 'webhook', signing_mode: 'hmac_sha256', secret: 'placeholder' },
    ]);
    const [bearer, hmac] = routine.triggers;
    // The API refuses an empty secret outright…
    expect((await h.api('PATCH', `/api/office/routine-triggers/${bearer.id}`, { secret: '' })).status).toBe(400);
    // …so the empty secret is made the way a bad migration or manual edit would: in the row.
    await h.scheduler.store.transaction(async (tx) => {
      await tx.routines.editTrigger(bearer.id, { secret: null });
      await tx.routines.editTrigger(hmac.id, { secret: null });
    });
    const raw = '{}';
    const bearerAttempts: Record<string, string>[] = [{}, { authorization: 'Bearer ' }, { authorization: 'Bearer null' }, { authorization: 'Bearer undefined' }, { authorization: 'Bearer placeholder' }];
    for (const headers of bearerAttempts) {
      expect((await webhook(bearer.public_id, raw, headers)).status, JSON.stringify(headers)).toBe(401);
    }
    const hmacAttempts: Record<string, string>[] = [{}, { 'x-hub-signature-256': sign('', raw) }, { 'x-hub-signature-256': sign('placeholder', raw) }];
    for (const headers of hmacAttempts) {
      expect((await webhook(hmac.public_id, raw, headers)).status, JSON.stringify(headers)).toBe(401);
    }
    expect(await routineRuns(routine.id)).toEqual([]);
  });

  it('a repeated X-Delivery-Id or X-GitHub-Delivery answers 200 with the first routine run and fires nothing new', async () => {
    const { routine, agentId } = await webhookRoutine([{ kind: 'webhook', signing_mode: 'none' }]);
    const publicId = routine.triggers[0].public_id;
    const first = await webhook(publicId, '{"a":1}', { 'x-delivery-id': 'delivery-1' });
    expect(first.status).toBe(202);
    const repeat = await webhook(publicId, '{"a":2}', { 'x-delivery-id': 'delivery-1' });
    expect(repeat.status).toBe(200);
    expect(repeat.body.routine_run.id).toBe(first.body.routine_run.id);
    expect(repeat.body.routine_run.trigger_payload.a).toBe(1);

    const gh = await webhook(publicId, '{}', { 'x-github-delivery': 'gh-42' });
    expect(gh.status).toBe(202);
    const ghRepeat = await webhook(publicId, '{}', { 'x-github-delivery': 'gh-42' });
    expect(ghRepeat.status).toBe(200);
    expect(ghRepeat.body.routine_run.id).toBe(gh.body.routine_run.id);

    const other = await webhook(publicId, '{}', { 'x-delivery-id': 'delivery-2' });
    expect(other.status).toBe(202);
    expect(other.body.routine_run.id).not.toBe(first.body.routine_run.id);

    const runs = await routineRuns(routine.id);
    expect(runs).toHaveLength(3);
    expect(runs.map((r) => r.delivery_id).sort()).toEqual(['delivery-1', 'delivery-2', 'gh-42']);
    const routineWakeups = (await listWakeups({ agent_id: agentId, source: 'routine' })).filter((w) => w.payload.routine_id === routine.id);
    expect(routineWakeups).toHaveLength(3);
  });

  it('a paused or archived routine, or a disabled trigger, answers 409 and fires nothing', async () => {
    const { routine } = await webhookRoutine([{ kind: 'webhook', signing_mode: 'none' }, { kind: 'manual' }]);
    const [hook] = routine.triggers;
    const count = async () => (await routineRuns(routine.id)).length;

    await h.api('PATCH', `/api/office/routines/${routine.id}`, { status: 'paused' });
    const paused = await webhook(hook.public_id, '{}');
    expect(paused.status).toBe(409);
    expect(paused.body.error.code).toBe('conflict');
    expect((await fire(routine.id)).status).toBe(409);
    expect(await count()).toBe(0);

    await h.api('PATCH', `/api/office/routines/${routine.id}`, { status: 'active' });
    expect((await webhook(hook.public_id, '{}')).status).toBe(202);
    expect(await count()).toBe(1);

    await h.api('PATCH', `/api/office/routine-triggers/${hook.id}`, { enabled: false });
    expect((await webhook(hook.public_id, '{}')).status).toBe(409);
    expect(await count()).toBe(1);
    await h.api('PATCH', `/api/office/routine-triggers/${hook.id}`, { enabled: true });

    expect((await h.api('PATCH', `/api/office/routines/${routine.id}`, { status: 'archived' })).status).toBe(200);
    expect((await webhook(hook.public_id, '{}')).status).toBe(409);
    expect((await fire(routine.id)).status).toBe(409);
    expect(await count()).toBe(1);
  });

  it('a JSON body that is not an object (array, string, number, null) is a 400 and fires nothing', async () => {
    const { routine } = await webhookRoutine([{ kind: 'webhook', signing_mode: 'none' }]);
    const publicId = routine.triggers[0].public_id;
    for (const raw of ['[{"branch":"x"}]', '"release/2.0"', '42', 'null', '{"broken":']) {
      const response = await webhook(publicId, raw);
      expect(response.status, raw).toBe(400);
    }
    expect(await routineRuns(routine.id)).toEqual([]);
  });
});

describe('the coordinator heartbeat', () => {
  it('GIVEN a new coordinator THEN "Coordinator heartbeat" is installed; WHEN the user deletes it THEN its trigger actor is gone and no routine wakeup is ever queued for it, even after a restart', async () => {
    h = await startHarness();
    const ws = (await h.api('POST', '/api/office/workspaces', { name: 'Acme', timezone: 'Europe/Berlin' })).body;
    const before = h.scheduler.triggers.size;
    const agent = await h.api('POST', '/api/office/agents', { workspace_id: ws.id, name: 'Boss', role: 'coordinator', executor: fixtureAgent('succeed.mjs'), cooldown_sec: 0 });
    expect(agent.status).toBe(201);

    const routines = (await h.api('GET', `/api/office/routines?workspace_id=${ws.id}`)).body;
    expect(routines).toHaveLength(1);
    const heartbeat = routines[0];
    expect(heartbeat).toMatchObject({
      name: 'Coordinator heartbeat', assignee_agent_instance_id: agent.body.id, status: 'active',
      concurrency_policy: 'coalesce_if_active', catch_up_policy: 'enqueue_missed_with_cap', catch_up_max: 25,
      task_template: null, variables: [],
    });
    expect(heartbeat.description).toMatch(/every 5 minutes/);
    expect(heartbeat.triggers).toEqual([expect.objectContaining({ kind: 'schedule', cron_expression: '*/5 * * * *', timezone: 'Europe/Berlin', enabled: true })]);
    const next = new Date(heartbeat.triggers[0].next_run_at);
    expect(next.getUTCMinutes() % 5).toBe(0);
    expect(next.getUTCSeconds()).toBe(0);
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000);

    const triggerId = heartbeat.triggers[0].id;
    await waitForActor(triggerId);
    expect(h.scheduler.triggers.size).toBe(before + 1);

    expect((await h.api('DELETE', `/api/office/routines/${heartbeat.id}`)).status).toBe(204);
    await h.waitFor(() => h.scheduler.triggers.view(triggerId) === null, 'the trigger actor to stop');
    expect(h.scheduler.triggers.size).toBe(before);
    expect((await h.api('GET', `/api/office/routines?workspace_id=${ws.id}`)).body).toEqual([]);

    await h.restart();
    expect(h.scheduler.triggers.view(triggerId)).toBeNull();
    expect(h.scheduler.triggers.size).toBe(before);
    expect(await listWakeups({ agent_id: agent.body.id, source: 'routine' })).toEqual([]);
  });
});

describe('coalescing inside the window', () => {
  it('GIVEN two routines for the same agent firing in the same second THEN one agent run: the second wakeup-request is coalesced into the first (coalesced_count 2, payload merged)', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const tick = oneShotCron();
    const routines: any[] = [];
    for (const name of ['Scan A', 'Scan B']) {
      routines.push(await createRoutine({
        workspace_id: workspaceId, name, assignee_agent_instance_id: agentId,
        triggers: [{ kind: 'schedule', cron_expression: tick.expression, timezone: 'UTC' }],
      }));
    }
    for (const routine of routines) {
      expect(Date.parse(routine.triggers[0].next_run_at)).toBe(tick.at);
      await waitForActor(routine.triggers[0].id);
    }
    const [a, b] = await h.waitFor(async () => {
      const runs = await Promise.all(routines.map(async (r) => (await routineRuns(r.id))[0]));
      return runs.every(Boolean) ? runs : null;
    }, 'both routines to fire', 10_000);
    expect(a.scheduled_for).toBe(new Date(tick.at).toISOString());
    expect(b.scheduled_for).toBe(new Date(tick.at).toISOString());
    expect([a.status, b.status].sort()).toEqual(['coalesced', 'dispatched']);
    const [kept, folded] = a.status === 'dispatched' ? [a, b] : [b, a];
    expect(folded.linked_wakeup_id).toBe(kept.linked_wakeup_id);
    expect(folded.coalesced_into_run_id).toBe(kept.id);

    const finished = await waitForWakeupStatus(kept.linked_wakeup_id, 'finished', 'the surviving wakeup to finish');
    expect(finished.coalesced_count).toBe(2);
    const wakeups = await listWakeups({ agent_id: agentId, source: 'routine' });
    expect(wakeups).toHaveLength(2);
    const coalesced = wakeups.find((w) => w.id !== finished.id);
    expect(coalesced).toMatchObject({ status: 'coalesced', coalesced_into_id: finished.id });

    const runs = (await h.api('GET', `/api/office/runs?agent_id=${agentId}`)).body;
    expect(runs).toHaveLength(1);
    const routineIds = runs[0].context_snapshot.wakes.map((w: any) => w.payload.routine_id).sort();
    expect(routineIds).toEqual(routines.map((r) => r.id).sort());
  });

  it('GIVEN two schedule triggers of one lightweight routine due in the same second THEN one run; the second routine run is coalesced and the wakeup coalesced_count is incremented', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const tick = oneShotCron();
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Twice', assignee_agent_instance_id: agentId,
      triggers: [
        { kind: 'schedule', cron_expression: tick.expression, timezone: 'UTC' },
        { kind: 'schedule', cron_expression: tick.expression, timezone: 'UTC' },
      ],
    });
    for (const trigger of routine.triggers) await waitForActor(trigger.id);
    const runs = await h.waitFor(async () => {
      const list = await routineRuns(routine.id);
      return list.length === 2 ? list : null;
    }, 'both triggers to fire', 10_000);
    expect(new Set(runs.map((r) => r.trigger_id)).size).toBe(2);
    const kept = runs.find((r) => r.status === 'dispatched')!;
    const folded = runs.find((r) => r.status === 'coalesced')!;
    expect(kept && folded).toBeTruthy();
    expect(folded.coalesced_into_run_id).toBe(kept.id);
    const wakeup = await waitForWakeupStatus(kept.linked_wakeup_id, 'finished', 'the wakeup to finish');
    expect(wakeup.coalesced_count).toBe(2);
    expect((await h.api('GET', `/api/office/runs?agent_id=${agentId}`)).body).toHaveLength(1);
  });
});

describe('idempotent firing (one routine run per tick)', () => {
  it('two concurrent claims of the same tick: exactly one claimTick wins, and a second fireIn of the same scheduled tick creates nothing', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Once', assignee_agent_instance_id: agentId,
      triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'UTC' }],
    });
    const trigger = routine.triggers[0];
    const expected = Date.parse(trigger.next_run_at);
    const store = h.scheduler.store;
    const claims = await Promise.all([1, 2].map(() =>
      store.transaction((tx) => tx.routines.claimTick(trigger.id, expected, expected + 86_400_000, Date.now()))));
    expect(claims.sort()).toEqual([false, true]);
    const row = await store.read((tx) => tx.routines.getTrigger(trigger.id));
    expect(row!.next_run_at).toBe(expected + 86_400_000);

    const routineRow = (await store.read((tx) => tx.routines.get(routine.id)))!;
    const fires = await Promise.all([1, 2].map(() => store.transaction((tx) =>
      h.scheduler.services.routines.firing.fireIn(tx, routineRow, { source: 'cron', triggerId: trigger.id, variables: {}, scheduledFor: expected }))));
    expect(fires.map((f) => f.created).sort()).toEqual([false, true]);
    const runs = await routineRuns(routine.id);
    expect(runs).toHaveLength(1);
    expect(runs[0].scheduled_for).toBe(new Date(expected).toISOString());
    expect((await listWakeups({ agent_id: agentId, source: 'routine' }))).toHaveLength(1);
  });

  it('restarts exactly at the fire instant of a */1-second cron never fire a tick twice', async () => {
    // The injected clock puts each tick at a chosen moment of a restart (stop + boot).
    const { clock, tick } = secondsClock();
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '0' }, undefined, clock);
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Every second', assignee_agent_instance_id: agentId, concurrency_policy: 'always_enqueue',
      triggers: [{ kind: 'schedule', cron_expression: '*/1 * * * * *', timezone: 'UTC' }],
    });
    const triggerId = routine.triggers[0].id;
    await triggerWaitsFor([h.scheduler], triggerId, tick(1));
    // A tick the booted scheduler finds due is a 0 ms timer, which the simulated clock runs at its next step.
    const booted = (n: number) => {
      clock.increment(0);
      return triggerWaitsFor([h.scheduler], triggerId, tick(n + 1));
    };

    // Tick 1 goes off in the old scheduler just as it is told to stop.
    clock.set(tick(1));
    await h.restart();
    await booted(1);
    // Tick 2 falls while the old scheduler stops.
    const stopping = h.restart();
    clock.set(tick(2));
    await stopping;
    await booted(2);
    // Tick 3 falls while no scheduler runs: the next boot finds it due.
    await h.restart({}, () => clock.set(tick(3)));
    await booted(3);

    const runs = await routineRuns(routine.id);
    expect(runs.map((run) => run.scheduled_for).sort()).toEqual([1, 2, 3].map((n) => iso(tick(n))));
    const keys = (await listWakeups({ agent_id: agentId, source: 'routine' })).map((w) => w.idempotency_key);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('two schedulers (replicas) on the same database fire each tick once', async () => {
    // One injected clock for both: each step sets off both replicas' timers in the same instant.
    const { clock, tick } = secondsClock();
    h = await startHarness({}, undefined, clock);
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    // The agent is paused so the replicas only race on ticks, not on running sessions.
    await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Shared', assignee_agent_instance_id: agentId, concurrency_policy: 'always_enqueue',
      triggers: [{ kind: 'schedule', cron_expression: '*/1 * * * * *', timezone: 'UTC' }],
    });
    const replica: Scheduler = await createScheduler({ config: loadConfig({ ...FAST_ENV, OFFICE_DB: h.dbPath }), clock });
    await replica.start({ listen: false });
    cleanups.push(() => replica.stop());
    const triggerId = routine.triggers[0].id;
    await triggerWaitsFor([replica, h.scheduler], triggerId, tick(1));
    for (const n of [1, 2, 3]) {
      // Stepped at the start of a turn of the event loop, where a timer goes off: not in the middle
      // of the other store's transaction, which a checkpoint the step sets off would wait on.
      await new Promise((resolve) => setImmediate(resolve));
      clock.set(tick(n));
      // The replica that lost the tick follows the row to the next one.
      await triggerWaitsFor([replica, h.scheduler], triggerId, tick(n + 1));
    }
    const runs = await routineRuns(routine.id);
    expect(runs.map((run) => run.scheduled_for).sort()).toEqual([1, 2, 3].map((n) => iso(tick(n))));
  });
});

describe('caps refuse rather than queue', () => {
  it('OFFICE_MAX_CONCURRENT_ROUTINE_RUNS=1: a second routine fired while one runs is skipped with cap_reached', async () => {
    h = await startHarness({ OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: '1' });
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false, executor: SLOW(3000) });
    const other = await h.api('POST', '/api/office/agents', { workspace_id: workspaceId, name: 'Other', role: 'worker', skip_idle_wakeups: false, executor: SLOW(3000), cooldown_sec: 0 });
    const a = await createRoutine({ workspace_id: workspaceId, name: 'A', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }] });
    const b = await createRoutine({ workspace_id: workspaceId, name: 'B', assignee_agent_instance_id: other.body.id, triggers: [{ kind: 'manual' }] });
    expect((await fire(a.id)).body.routine_run.status).toBe('dispatched');
    const refused = (await fire(b.id)).body.routine_run;
    expect(refused).toMatchObject({ status: 'skipped', skip_reason: 'cap_reached', linked_wakeup_id: null });
    expect(await listWakeups({ agent_id: other.body.id, source: 'routine' })).toEqual([]);
    const activity = (await h.api('GET', `/api/office/activity?workspace_id=${workspaceId}&code=routine_run_skipped`)).body;
    expect(activity.some((e: any) => e.routine_id === b.id && /cap_reached/.test(e.message))).toBe(true);
  });

  it('agent max_concurrent_routine_runs=1: a second routine for that agent is skipped with cap_reached; another agent is unaffected; the cap frees when the run ends', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false, executor: SLOW(1500), max_concurrent_routine_runs: 1 });
    const other = await h.api('POST', '/api/office/agents', { workspace_id: workspaceId, name: 'Other', role: 'worker', skip_idle_wakeups: false, executor: SLOW(1500), cooldown_sec: 0 });
    const a1 = await createRoutine({ workspace_id: workspaceId, name: 'A1', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }] });
    const a2 = await createRoutine({ workspace_id: workspaceId, name: 'A2', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }] });
    const b = await createRoutine({ workspace_id: workspaceId, name: 'B', assignee_agent_instance_id: other.body.id, triggers: [{ kind: 'manual' }] });

    const first = (await fire(a1.id)).body.routine_run;
    expect(first.status).toBe('dispatched');
    expect((await fire(a2.id)).body.routine_run).toMatchObject({ status: 'skipped', skip_reason: 'cap_reached' });
    expect((await fire(b.id)).body.routine_run.status).toBe('dispatched');

    await h.waitFor(async () => (await routineRun(a1.id, first.id)).outcome === 'succeeded', 'the first routine run to end');
    expect((await fire(a2.id)).body.routine_run.status).toBe('dispatched');
  });
});

describe('failure stops rather than retries forever', () => {
  it('consecutive_failure_limit 2: after 2 failed routine runs the routine pauses with a readable reason and a routine_auto_paused activity, and its trigger stops firing', async () => {
    const { clock, tick } = secondsClock();
    h = await startHarness({ OFFICE_BACKOFF: '10ms,10ms,10ms,10ms', OFFICE_COALESCE_WINDOW_MS: '0' }, undefined, clock);
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false, executor: fixtureAgent('fail.mjs') });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Broken', assignee_agent_instance_id: agentId, consecutive_failure_limit: 2,
      triggers: [{ kind: 'schedule', cron_expression: '*/1 * * * * *', timezone: 'UTC' }],
    });
    const triggerId = routine.triggers[0].id;
    await triggerWaitsFor([h.scheduler], triggerId, tick(1));
    // Two ticks, each run failing through its four retries: the clock steps to each retry once the
    // agent's actor waits for it, and to the next tick once the routine run has failed.
    for (const n of [1, 2]) {
      clock.set(tick(n));
      for (;;) {
        const step = await h.waitFor(async () => {
          const run = (await routineRuns(routine.id)).find((r) => r.scheduled_for === iso(tick(n)));
          if (run?.outcome) return { run };
          const actor = h.scheduler.supervisor.view(agentId);
          return actor?.state === 'active.waiting' ? { retryAt: Date.parse(actor.next_available_at!) } : null;
        }, `the routine run of tick ${n} to fail or wait for a retry`);
        if (step.run) break;
        clock.set(step.retryAt!);
      }
    }
    const paused = (await h.api('GET', `/api/office/routines/${routine.id}`)).body;
    expect(paused.status).toBe('paused');
    expect(paused.paused_reason).toMatch(/2 consecutive failed runs/);
    expect(paused.consecutive_failures).toBe(2);
    const failed = (await routineRuns(routine.id)).filter((r) => r.outcome === 'failed');
    expect(failed).toHaveLength(2);
    const activity = (await h.api('GET', `/api/office/activity?workspace_id=${workspaceId}&code=routine_auto_paused`)).body;
    expect(activity).toEqual([expect.objectContaining({ routine_id: routine.id, code: 'routine_auto_paused' })]);
    // Nothing stops silently: the inbox says so too.
    const inbox = (await h.api('GET', `/api/office/inbox?workspace_id=${workspaceId}&status=open`)).body;
    expect(inbox.filter((i: any) => i.kind === 'routine.paused')).toEqual([expect.objectContaining({ ref_id: routine.id, title: "Routine 'Broken' paused itself" })]);

    await h.waitFor(() => h.scheduler.triggers.view(triggerId) === null, 'the trigger actor to stop');
    const settled = (await routineRuns(routine.id)).length;
    // Ten ticks later no actor has come back for the trigger: a live one would be firing the moment the clock steps.
    clock.set(tick(12));
    expect(h.scheduler.triggers.view(triggerId)).toBeNull();
    expect(await routineRuns(routine.id)).toHaveLength(settled);
    expect((await h.api('GET', `/api/office/routines/${routine.id}`)).body.status).toBe('paused');
  });
});

describe('governance: a routine runs as its owner, marked unattended', () => {
  it('cron and webhook fires carry on_behalf_of = owner and unattended = true on the routine run, the fire activity (actor_type routine) and the agent run', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const alice = (await h.api('POST', '/api/office/tokens', { name: 'alice', role: 'member' })).body.id as string;
    const tick = oneShotCron(1500);
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Night watch', assignee_agent_instance_id: agentId, owner_id: alice, concurrency_policy: 'always_enqueue',
      triggers: [{ kind: 'schedule', cron_expression: tick.expression, timezone: 'UTC' }, { kind: 'webhook', signing_mode: 'none' }, { kind: 'manual' }],
    });
    await waitForActor(routine.triggers[0].id);
    const hooked = (await webhook(routine.triggers[1].public_id, '{}')).body.routine_run;
    const cron = await h.waitFor(async () => (await routineRuns(routine.id)).find((r) => r.source === 'cron'), 'the cron fire', 10_000);
    for (const run of [cron, hooked]) {
      expect(run).toMatchObject({ on_behalf_of: alice, unattended: true });
    }
    const manual = (await fire(routine.id)).body.routine_run;
    // A manual fire is attended, on behalf of whoever fired it (API.md, "Audit"): here the local caller, the bootstrap admin.
    expect(manual).toMatchObject({ source: 'manual', on_behalf_of: 'admin', unattended: false });

    const activity = (await h.api('GET', `/api/office/activity?workspace_id=${workspaceId}&code=routine_run_dispatched`)).body;
    const cronEntry = activity.find((e: any) => e.details?.routine_run_id === cron.id);
    expect(cronEntry).toMatchObject({ routine_id: routine.id, actor_type: 'routine', actor_id: alice, unattended: true });
    expect(activity.find((e: any) => e.details?.routine_run_id === hooked.id)).toMatchObject({ actor_type: 'routine', unattended: true });

    const agentRun = await h.waitFor(async () => {
      const w = (await h.api('GET', `/api/office/wakeups/${cron.linked_wakeup_id}`)).body;
      return w.run_id ? (await h.api('GET', `/api/office/runs/${w.run_id}`)).body : null;
    }, 'the agent run of the cron fire');
    expect(agentRun).toMatchObject({ unattended: true, on_behalf_of: alice, routine_id: routine.id });
  });
});

describe('delivery is recorded apart from the outcome', () => {
  function listen(handler: (req: IncomingMessage, body: string) => number): Promise<{ server: Server; url: string }> {
    return new Promise((resolve) => {
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
          res.statusCode = handler(req, Buffer.concat(chunks).toString('utf8'));
          res.end();
        });
      });
      server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }));
    });
  }

  async function deliveredRun(url: string) {
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await createRoutine({
      workspace_id: workspaceId, name: 'Report', assignee_agent_instance_id: agentId, delivery: { kind: 'webhook', url }, triggers: [{ kind: 'manual' }],
    });
    const rr = (await fire(routine.id)).body.routine_run;
    return h.waitFor(async () => {
      const run = await routineRun(routine.id, rr.id);
      // `pending` while it is retried (FAST_ENV's backoff steps add up to 2 s), then where it ended.
      return run.delivery_status === 'delivered' || run.delivery_status === 'failed' ? run : null;
    }, 'the delivery to end');
  }

  it('to a listening http server: delivered, with the run id and outcome in the POST', async () => {
    h = await startHarness();
    const received: any[] = [];
    const { server, url } = await listen((req, body) => {
      received.push({ method: req.method, body: JSON.parse(body) });
      return 200;
    });
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const run = await deliveredRun(url);
    expect(run).toMatchObject({ outcome: 'succeeded', delivery_status: 'delivered' });
    expect(received).toEqual([{ method: 'POST', body: expect.objectContaining({ routine_run_id: run.id, outcome: 'succeeded' }) }]);
  });

  it('to a closed port: delivery failed once its retries are spent, while the outcome stays succeeded', async () => {
    h = await startHarness();
    const { server, url } = await listen(() => 200);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const run = await deliveredRun(url);
    expect(run).toMatchObject({ outcome: 'succeeded', delivery_status: 'failed' });
  });

  it('to a server answering 500: delivery failed once its retries are spent (1 attempt + MaxRetryCount), while the outcome stays succeeded', async () => {
    h = await startHarness();
    let attempts = 0;
    const { server, url } = await listen(() => { attempts++; return 500; });
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const run = await deliveredRun(url);
    expect(run).toMatchObject({ outcome: 'succeeded', delivery_status: 'failed' });
    expect(attempts).toBe(5);
  });
});
