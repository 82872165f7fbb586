import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { InvalidWakeupPayloadError } from '../../src/domain/wakeupSources.js';
import type { EnqueueRequest } from '../../src/services/wakeups.js';
import { apiClient, TERMINAL, type Query } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.stop());

const api = apiClient(() => h);
const { getWakeup, getAgent, waitForWakeupStatus, waitForWakeupEnd, agentAtRest } = api;
const runsOf = (agentId: string) => api.listRuns({ agent_id: agentId });
const wakeupsOf = (agentId: string, query: Query = {}) => api.listWakeups({ agent_id: agentId, ...query });

/** The run whose fixture process has written its `.started` marker and not yet finished. */
function startedRun(dir: string, runs: any[]) {
  return runs.find((r) => r.status === 'running' && existsSync(join(dir, `${r.id}.started`)));
}

/**
 * A worker on sleep.mjs, `sleepMs` a run, whose processes mark their start and end in `started`
 * (see startedRun).
 */
async function sleepingAgent(sleepMs: number, agent: Record<string, unknown> = {}) {
  const started = join(h.dir, 'started');
  const { workspaceId, agentId } = await seedAgent(h, {
    executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: String(sleepMs), FIXTURE_STARTED_DIR: started }), ...agent,
  });
  return { workspaceId, agentId, started };
}

/** A worker on an 800 ms sleep.mjs, woken once; returns once that first run's process is running. */
async function busyAgent() {
  h = await startHarness();
  const { agentId, started } = await sleepingAgent(800);
  const first = (await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'first' })).body.wakeup;
  const run = await h.waitFor(async () => startedRun(started, await runsOf(agentId)), 'the first run to be running');
  return { agentId, first, run };
}

const createTask = (workspaceId: string, agentId: string, title: string) =>
  api.createTask({ workspace_id: workspaceId, title, assignee_agent_instance_id: agentId });

/** Enqueues directly through the service, in one transaction, as internal callers do; `now` is the caller's time. */
function enqueue(request: EnqueueRequest, now = Date.now()) {
  return h.scheduler.store.transaction((tx) => h.scheduler.services.wakeups.enqueue(tx, request, now));
}

/**
 * The largest number of intervals open at one instant. Touching intervals ([a,b] and [b,c]) do not
 * overlap: at equal times an end is counted before a start.
 */
function maxOverlap(intervals: { start: number; end: number }[]): number {
  const points = intervals.flatMap((i) => [{ t: i.start, d: 1 }, { t: i.end, d: -1 }]);
  points.sort((a, b) => a.t - b.t || a.d - b.d);
  let open = 0;
  let max = 0;
  for (const p of points) {
    open += p.d;
    max = Math.max(max, open);
  }
  return max;
}

const ms = (iso: string) => new Date(iso).getTime();

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

  it('GIVEN a worker at capacity WHEN a comment wakeup arrives THEN it stays queued until the running session ends', async () => {
    h = await startHarness();
    const { workspaceId, agentId, started } = await sleepingAgent(1200, { cooldown_sec: 0 });
    const task = await createTask(workspaceId, agentId, 'Ship the release');
    const first = await h.waitFor(async () => startedRun(started, await runsOf(agentId)), 'the first run to be running');

    const commentBody = 'Please also update the CHANGELOG before shipping';
    const comment = await h.api('POST', `/api/office/tasks/${task.id}/comments`, { body: commentBody, author_type: 'user', author_id: 'u-alice' });
    expect(comment.status).toBe(201);

    const queued = await h.waitFor(async () => (await wakeupsOf(agentId, { source: 'comment' }))[0], 'the comment wakeup');
    expect(queued).toMatchObject({ status: 'queued', run_id: null, claimed_at: null });
    expect(queued.payload).toEqual({ task_id: task.id, comment_id: comment.body.id });
    expect(queued.explain).toMatch(/capacity/);
    // Observed while the first session still runs: it was not merged into it and not claimed.
    expect((await h.api('GET', `/api/office/runs/${first.id}`)).body.status).toBe('running');
    expect((await getAgent(agentId)).actor).toMatchObject({ state: 'active.atCapacity', running: 1, queued: 1 });
    expect(existsSync(join(started, `${first.id}.done`))).toBe(false);

    const done = await waitForWakeupStatus(queued.id, 'finished', 'the comment wakeup to finish');
    const firstRun = (await h.api('GET', `/api/office/runs/${first.id}`)).body;
    expect(firstRun.status).toBe('succeeded');
    const commentRun = (await h.api('GET', `/api/office/runs/${done.run_id}`)).body;
    expect(commentRun).toMatchObject({ status: 'succeeded', wakeup_id: queued.id, task_id: task.id });
    expect(commentRun.result_json.summary).toBe('handled comment');
    expect(commentRun.assembled_prompt).toContain(commentBody);
    // Claimed only after the first session ended.
    expect(ms(done.claimed_at)).toBeGreaterThanOrEqual(ms(firstRun.finished_at));
    expect(ms(commentRun.started_at)).toBeGreaterThanOrEqual(ms(firstRun.finished_at));
    expect(await runsOf(agentId)).toHaveLength(2);
  });

  for (const status of ['paused', 'stopped'] as const) {
    it(`GIVEN a ${status} agent WHEN its wakeup is claimed THEN it ends finished with no run`, async () => {
      h = await startHarness();
      const { agentId } = await seedAgent(h);
      const patched = await h.api('PATCH', `/api/office/agents/${agentId}`, { status });
      expect(patched.status).toBe(200);
      expect(patched.body.status).toBe(status);

      const woke = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'look at this' });
      expect(woke.status).toBe(202);
      const id = woke.body.wakeup.id;
      const ended = await waitForWakeupEnd(id, 'the wakeup to end');
      expect(ended).toMatchObject({ status: 'finished', run_id: null, retry_count: 0, scheduled_retry_at: null, skip_reason: `agent_${status}` });
      expect(ended.explain).toContain(status);
      expect(ended.activity.map((a: any) => a.code)).toContain('wakeup_agent_unavailable');

      // Not retried: the actor holds nothing (no retry waits in its inbox), so nothing runs later either.
      expect(await agentAtRest(agentId)).toMatchObject({ state: `${status}.idle` });
      expect(await getWakeup(id)).toMatchObject({ status: 'finished', retry_count: 0, run_id: null });
      expect(await runsOf(agentId)).toEqual([]);
      expect(await wakeupsOf(agentId)).toHaveLength(1);
    });
  }

  it('GIVEN a busy agent with a queued wakeup WHEN it is paused THEN the queued wakeup ends finished with no run and the running session completes', async () => {
    const { agentId, first, run } = await busyAgent();
    const second = (await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'second' })).body.wakeup;
    expect((await getWakeup(second.id)).status).toBe('queued');

    expect((await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' })).status).toBe(200);
    const ended = await waitForWakeupEnd(second.id, 'the queued wakeup to end');
    expect(ended).toMatchObject({ status: 'finished', run_id: null, skip_reason: 'agent_paused' });

    const firstDone = await waitForWakeupEnd(first.id, 'the running wakeup to end');
    expect(firstDone).toMatchObject({ status: 'finished', run_id: run.id });
    const runs = await runsOf(agentId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: run.id, status: 'succeeded' });
  });

  it('GIVEN a backend restart WHEN the scheduler starts THEN queued wakeups are processed and none is lost', async () => {
    h = await startHarness();
    const { workspaceId, agentId, started } = await sleepingAgent(400, { max_concurrent_sessions: 1, cooldown_sec: 0 });
    const tasks = [];
    for (let i = 1; i <= 5; i++) tasks.push(await createTask(workspaceId, agentId, `Task ${i}`));
    await h.waitFor(async () => startedRun(started, await runsOf(agentId)), 'a run to be running');
    const queuedBefore = await wakeupsOf(agentId, { status: 'queued' });
    // The scenario needs wakeups that exist only as rows when the process stops.
    expect(queuedBefore.length).toBeGreaterThanOrEqual(3);

    const restartedAt = Date.now();
    await h.restart();

    const all = await h.waitFor(async () => {
      const ws = await wakeupsOf(agentId);
      return ws.length === 5 && ws.every((w) => TERMINAL.has(w.status)) ? ws : null;
    }, 'every wakeup to end');
    expect(all.map((w) => w.status)).toEqual(Array(5).fill('finished'));
    expect(new Set(all.map((w) => w.task_id))).toEqual(new Set(tasks.map((t) => t.id)));

    const runs = await runsOf(agentId);
    expect(runs).toHaveLength(5);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    // Exactly one run per wakeup: none lost, none doubled.
    expect(new Set(runs.map((r) => r.wakeup_id))).toEqual(new Set(all.map((w) => w.id)));
    for (const w of all) expect(runs.find((r) => r.id === w.run_id)?.wakeup_id).toBe(w.id);
    // The ones that were only rows at the stop ran in the new process (at most one of the
    // snapshot may have been claimed by the old process between the snapshot and the stop).
    const ranAfterRestart = queuedBefore.filter((q) => ms(runs.find((run) => run.wakeup_id === q.id)!.started_at) >= restartedAt);
    expect(ranAfterRestart.length).toBeGreaterThanOrEqual(queuedBefore.length - 1);
  });

  it('GIVEN a graceful stop WHEN several sessions end during the grace period THEN each is succeeded, none interrupted or run again', async () => {
    h = await startHarness({ OFFICE_SHUTDOWN_GRACE_MS: '5000' });
    const { workspaceId, agentId, started } = await sleepingAgent(600, { max_concurrent_sessions: 4, cooldown_sec: 0 });
    for (let i = 1; i <= 4; i++) await createTask(workspaceId, agentId, `Task ${i}`);
    await h.waitFor(async () => (await runsOf(agentId)).filter((r) => existsSync(join(started, `${r.id}.started`))).length === 4, 'four runs to be running');

    await h.restart();
    const runs = await runsOf(agentId);
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    for (const r of runs) expect(existsSync(join(started, `${r.id}.done`))).toBe(true);
    expect((await wakeupsOf(agentId)).map((w) => [w.status, w.retry_count])).toEqual(Array(4).fill(['finished', 0]));
  });

  it('GIVEN a shutdown that cannot wait for the running session WHEN the scheduler starts again THEN the interrupted wakeup is retried and none is lost', async () => {
    h = await startHarness({ OFFICE_SHUTDOWN_GRACE_MS: '0' });
    const { workspaceId, agentId, started } = await sleepingAgent(1500, { cooldown_sec: 0 });
    for (let i = 1; i <= 3; i++) await createTask(workspaceId, agentId, `Task ${i}`);
    const cut = await h.waitFor(async () => startedRun(started, await runsOf(agentId)), 'a run to be running');

    // Later sessions are fast; the one already running keeps the executor it was launched with.
    const patched = await h.api('PATCH', `/api/office/agents/${agentId}`, {
      executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '50', FIXTURE_STARTED_DIR: started }),
    });
    expect(patched.status).toBe(200);
    // A grace of 0: the stop does not wait for the session; it is aborted and marked interrupted.
    await h.restart();

    const all = await h.waitFor(async () => {
      const ws = await wakeupsOf(agentId);
      return ws.length === 3 && ws.every((w) => TERMINAL.has(w.status)) ? ws : null;
    }, 'every wakeup to end');
    expect(all.map((w) => w.status)).toEqual(['finished', 'finished', 'finished']);
    const runs = await runsOf(agentId);
    const interrupted = (await h.api('GET', `/api/office/runs/${cut.id}`)).body;
    expect(interrupted.status).toBe('interrupted');
    expect(interrupted.error).toMatch(/interrupted/);
    expect(existsSync(join(started, `${cut.id}.done`))).toBe(false);
    for (const w of all) {
      expect(runs.filter((r) => r.wakeup_id === w.id && r.status === 'succeeded')).toHaveLength(1);
    }
    expect((await getWakeup(cut.wakeup_id)).retry_count).toBe(1);
  });

  it('two routine wakeups inside the coalescing window are coalesced (always_enqueue: the wakeup layer merges them)', async () => {
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '1000' });
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await h.api('POST', '/api/office/routines', {
      workspace_id: workspaceId, name: 'Check upstream PRs', assignee_agent_instance_id: agentId,
      concurrency_policy: 'always_enqueue', triggers: [{ kind: 'manual' }],
    });
    expect(routine.status).toBe(201);

    const fire1 = await h.api('POST', `/api/office/routines/${routine.body.id}/fire`, { variables: {} });
    const fire2 = await h.api('POST', `/api/office/routines/${routine.body.id}/fire`, { variables: {} });
    expect(fire1.status).toBe(202);
    expect(fire2.status).toBe(202);
    const rr1 = fire1.body.routine_run;
    const rr2 = fire2.body.routine_run;
    expect(rr1.status).toBe('dispatched');
    expect(rr2).toMatchObject({ status: 'coalesced', linked_wakeup_id: rr1.linked_wakeup_id, coalesced_into_run_id: rr1.id });

    const wakeups = await wakeupsOf(agentId);
    expect(wakeups).toHaveLength(2);
    const first = wakeups.find((w) => w.id === rr1.linked_wakeup_id)!;
    const second = wakeups.find((w) => w.id !== rr1.linked_wakeup_id)!;
    expect(first).toMatchObject({ source: 'routine', coalesced_count: 2 });
    expect(second).toMatchObject({ source: 'routine', status: 'coalesced', coalesced_into_id: first.id, run_id: null });

    const done = await waitForWakeupStatus(first.id, 'finished', 'the first wakeup to finish');
    expect(done.coalesced_count).toBe(2);
    // At rest, the actor has no other wakeup to dispatch: the coalesced one never gets a run of its own.
    await agentAtRest(agentId);
    const runs = await runsOf(agentId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'succeeded', wakeup_id: first.id, task_id: null });
    expect(runs[0].context_snapshot.wakes).toHaveLength(2);
    expect(runs[0].context_snapshot.wakes.map((w: any) => w.wakeup_id)).toEqual([first.id, second.id]);
    expect((await getWakeup(second.id)).status).toBe('coalesced');
  });

  it('two routine fires with the default coalesce_if_active policy: the second routine run is coalesced into the first, one run', async () => {
    h = await startHarness({ OFFICE_COALESCE_WINDOW_MS: '1000' });
    const { workspaceId, agentId } = await seedAgent(h, { skip_idle_wakeups: false });
    const routine = await h.api('POST', '/api/office/routines', {
      workspace_id: workspaceId, name: 'Daily triage', assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }],
    });
    expect(routine.status).toBe(201);
    expect(routine.body.concurrency_policy).toBe('coalesce_if_active');

    const rr1 = (await h.api('POST', `/api/office/routines/${routine.body.id}/fire`, {})).body.routine_run;
    const rr2 = (await h.api('POST', `/api/office/routines/${routine.body.id}/fire`, {})).body.routine_run;
    expect(rr1.status).toBe('dispatched');
    expect(rr2).toMatchObject({ status: 'coalesced', coalesced_into_run_id: rr1.id });

    const done = await waitForWakeupStatus(rr1.linked_wakeup_id, 'finished', 'the wakeup to finish');
    expect(done.coalesced_count).toBe(2);
    const runs = await runsOf(agentId);
    expect(runs).toHaveLength(1);
    expect(runs[0].context_snapshot.wakes).toHaveLength(2);
    const history = (await h.api('GET', `/api/office/routines/${routine.body.id}/runs`)).body;
    expect(history.find((r: any) => r.id === rr1.id)).toMatchObject({ status: 'dispatched', outcome: 'succeeded' });
    expect(history.find((r: any) => r.id === rr2.id).status).toBe('coalesced');

    // Once the active run is over, the next fire dispatches again instead of coalescing forever.
    const rr3 = (await h.api('POST', `/api/office/routines/${routine.body.id}/fire`, {})).body.routine_run;
    expect(rr3.status).toBe('dispatched');
    await h.waitFor(async () => (await runsOf(agentId)).filter((r) => r.status === 'succeeded').length === 2, 'a second run');
  });

  it('max_concurrent_sessions=2 runs two at once and never three', async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const started = join(h.dir, 'started');
    const { workspaceId, agentId } = await seedAgent(h, {
      executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '600', FIXTURE_RECORD_DIR: record, FIXTURE_STARTED_DIR: started }),
      max_concurrent_sessions: 2,
      cooldown_sec: 0,
    });
    for (let i = 1; i <= 5; i++) await createTask(workspaceId, agentId, `Review PR #${i}`);

    const runs = await h.waitFor(async () => {
      const rs = await runsOf(agentId);
      return rs.length === 5 && rs.every((r) => r.status === 'succeeded') ? rs : null;
    }, 'five succeeded runs');
    expect(await wakeupsOf(agentId, { status: 'finished' })).toHaveLength(5);

    // The scheduler's view: run rows span claim to finish, so they contain each process's lifetime.
    const fromRows = runs.map((r) => ({ start: ms(r.started_at), end: ms(r.finished_at) }));
    expect(maxOverlap(fromRows)).toBe(2);

    // The processes' own view: what actually ran at the same time.
    const fromProcesses = runs.map((r) => ({
      start: JSON.parse(readFileSync(join(record, `${r.id}.json`), 'utf8')).started_at as number,
      end: Number(readFileSync(join(started, `${r.id}.done`), 'utf8')),
    }));
    expect(maxOverlap(fromProcesses)).toBe(2);
    expect(readdirSync(record)).toHaveLength(5);
  });

  it('the same idempotency key twice gives one row', async () => {
    h = await startHarness();
    const { agentId } = await seedAgent(h);
    const request: EnqueueRequest = { agent_id: agentId, source: 'user', payload: { user_id: 'u-1' }, idempotency_key: 'ext:delivery-42' };

    const first = await enqueue(request);
    const again = await enqueue(request);
    expect(first.kind).toBe('queued');
    expect(again.kind).toBe('duplicate');
    expect(again.wakeup.id).toBe(first.wakeup.id);

    // Still a duplicate after the first one has run: the window, not the status, decides.
    await h.waitFor(async () => (await getWakeup(first.wakeup.id)).status === 'finished', 'the first wakeup to finish');
    const later = await enqueue(request);
    expect(later).toMatchObject({ kind: 'duplicate', wakeup: { id: first.wakeup.id } });

    const rows = await wakeupsOf(agentId);
    expect(rows).toHaveLength(1);
    expect(rows[0].idempotency_key).toBe('ext:delivery-42');
    expect(await runsOf(agentId)).toHaveLength(1);
  });

  it('outside the idempotency window the same key is accepted again and yields a new row', async () => {
    // A window of one hour on an injected clock, stepped by hand.
    const HOUR = 3_600_000;
    const clock = new SimulatedClock();
    clock.set(Math.floor(Date.now() / 60_000) * 60_000);
    h = await startHarness({ OFFICE_IDEMPOTENCY_WINDOW_HOURS: '1', OFFICE_COALESCE_WINDOW_MS: '0' }, undefined, clock);
    const { agentId } = await seedAgent(h);
    const request: EnqueueRequest = { agent_id: agentId, source: 'user', payload: { user_id: 'u-1' }, idempotency_key: 'ext:delivery-43' };

    const first = await enqueue(request, clock.now());
    const dup = await enqueue(request, clock.now());
    expect(first.kind).toBe('queued');
    expect(dup).toMatchObject({ kind: 'duplicate', wakeup: { id: first.wakeup.id } });

    await h.waitFor(async () => (await getWakeup(first.wakeup.id)).status === 'finished', 'the first wakeup to finish');
    clock.set(first.wakeup.requested_at + HOUR - 1);
    expect(await enqueue(request, clock.now())).toMatchObject({ kind: 'duplicate', wakeup: { id: first.wakeup.id } });
    clock.set(first.wakeup.requested_at + HOUR + 1);
    const fresh = await enqueue(request, clock.now());
    expect(fresh.kind).toBe('queued');
    expect(fresh.wakeup.id).not.toBe(first.wakeup.id);

    const rows = await wakeupsOf(agentId);
    expect(rows).toHaveLength(2);
    expect(rows.find((w) => w.id === fresh.wakeup.id).idempotency_key).toBe('ext:delivery-43');
    // The old row keeps its key readable for audit, no longer colliding.
    expect(rows.find((w) => w.id === first.wakeup.id).idempotency_key).toMatch(/^ext:delivery-43#expired/);
    await h.waitFor(async () => (await runsOf(agentId)).filter((r) => r.status === 'succeeded').length === 2, 'the new row to run');
  });

  it('claim-time merge: a request for an agent whose wakeup waits for a retry is coalesced into it and reaches the retry run', async () => {
    h = await startHarness({ OFFICE_BACKOFF: '1500ms,1500ms' });
    const record = join(h.dir, 'record');
    const { agentId } = await seedAgent(h, {
      executor: fixtureAgent('flaky.mjs', { FIXTURE_COUNTER_FILE: join(h.dir, 'counter'), FIXTURE_FAIL_TIMES: '1', FIXTURE_RECORD_DIR: record }),
    });
    const first = (await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'first look' })).body.wakeup;
    const waiting = await waitForWakeupStatus(first.id, 'scheduled_retry', 'the wakeup to wait for its retry');
    expect(waiting.retry_count).toBe(1);
    expect(waiting.run_id).not.toBeNull();
    const failedRunId = waiting.run_id;

    const merged = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'also this', context: { ticket: 'OPS-7731' } });
    expect(merged.status).toBe(202);
    expect(merged.body.outcome).toBe('merged_into_run');
    expect(merged.body.wakeup).toMatchObject({ status: 'coalesced', run_id: failedRunId, coalesced_into_id: first.id });
    const stored = await getWakeup(merged.body.wakeup.id);
    expect(stored).toMatchObject({ status: 'coalesced', run_id: failedRunId, coalesced_into_id: first.id });
    const target = await getWakeup(first.id);
    expect(target.status).toBe('scheduled_retry');
    expect(target.coalesced_count).toBe(2);
    expect(target.context_snapshot.wakes.map((w: any) => w.wakeup_id)).toEqual([first.id, stored.id]);

    const done = await waitForWakeupEnd(first.id, 'the retried wakeup to end');
    expect(done).toMatchObject({ status: 'finished', retry_count: 1, coalesced_count: 2 });
    const runs = await runsOf(agentId);
    expect(runs).toHaveLength(2);
    expect(runs.every((r) => r.wakeup_id === first.id)).toBe(true);
    const retryRun = runs.find((r) => r.status === 'succeeded')!;
    expect(retryRun).toMatchObject({ id: done.run_id, attempt: 2 });
    expect(retryRun.context_snapshot.wakes).toHaveLength(2);
    expect(retryRun.context_snapshot.wakes[1].payload).toMatchObject({ context: { ticket: 'OPS-7731' } });
    expect(retryRun.assembled_prompt).toContain('OPS-7731');
    // What the agent process actually received on stdin.
    expect(JSON.parse(readFileSync(join(record, `${retryRun.id}.json`), 'utf8')).prompt).toContain('OPS-7731');
    expect((await getWakeup(stored.id)).status).toBe('coalesced');
  });

  it('claim-time merge: a request while a run is RUNNING is not merged (it stays queued and gets its own run)', async () => {
    const { agentId, first, run: running } = await busyAgent();

    const second = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'second', context: { note: 'late news' } });
    expect(second.status).toBe(202);
    expect(second.body.outcome).toBe('queued');
    expect(second.body.wakeup).toMatchObject({ status: 'queued', run_id: null });
    expect((await getWakeup(first.id)).coalesced_count).toBe(1);

    const ended = await waitForWakeupEnd(second.body.wakeup.id, 'the second wakeup to end');
    expect(ended.status).toBe('finished');
    const runs = await runsOf(agentId);
    expect(runs).toHaveLength(2);
    const firstRun = runs.find((r) => r.id === running.id)!;
    const secondRun = runs.find((r) => r.id === ended.run_id)!;
    expect(firstRun.context_snapshot.wakes.map((w: any) => w.wakeup_id)).toEqual([first.id]);
    expect(secondRun.context_snapshot.wakes.map((w: any) => w.wakeup_id)).toEqual([second.body.wakeup.id]);
    expect(secondRun.assembled_prompt).toContain('late news');
    expect(firstRun.assembled_prompt).not.toContain('late news');
  });

  it('a bad payload is rejected with InvalidWakeupPayloadError and writes nothing', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, {}, {});
    const paused = await h.api('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' });
    expect(paused.status).toBe(200);
    const task = await createTask(workspaceId, agentId, 'Something');
    await h.waitFor(async () => (await wakeupsOf(agentId)).every((w) => TERMINAL.has(w.status)), 'the assignment wakeup to end');
    const before = await wakeupsOf(agentId);

    const missing = enqueue({ agent_id: agentId, source: 'comment', payload: { task_id: task.id } });
    await expect(missing).rejects.toBeInstanceOf(InvalidWakeupPayloadError);
    await expect(missing).rejects.toMatchObject({ source: 'comment', issues: [expect.objectContaining({ path: 'comment_id' })] });
    await expect(enqueue({ agent_id: agentId, source: 'heartbeat' as never, payload: {} })).rejects.toBeInstanceOf(InvalidWakeupPayloadError);
    await expect(enqueue({ agent_id: agentId, source: 'user', payload: { user_id: 'u', extra: 1 } })).rejects.toBeInstanceOf(InvalidWakeupPayloadError);

    // A valid request earlier in the same transaction is rolled back with it.
    await expect(h.scheduler.store.transaction(async (tx) => {
      await h.scheduler.services.wakeups.enqueue(tx, { agent_id: agentId, source: 'user', payload: { user_id: 'u' }, idempotency_key: 'rolled-back' }, Date.now());
      await h.scheduler.services.wakeups.enqueue(tx, { agent_id: agentId, source: 'comment', payload: { comment_id: 'c1' } }, Date.now());
    })).rejects.toBeInstanceOf(InvalidWakeupPayloadError);

    const bad = await h.api('POST', `/api/office/agents/${agentId}/wake`, { context: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect(JSON.stringify(bad.body.error)).toContain('context');

    // Each refusal above answered after its transaction rolled back: a row it left would be listed now.
    expect(await wakeupsOf(agentId)).toEqual(before);
    // The rolled-back key is free: nothing of that transaction survived.
    expect((await enqueue({ agent_id: agentId, source: 'user', payload: { user_id: 'u' }, idempotency_key: 'rolled-back' })).kind).toBe('queued');
  });

  it('the agent body includes the live actor: state, queued, running, cooldown_until', async () => {
    h = await startHarness();
    const { agentId, started } = await sleepingAgent(600, { cooldown_sec: 60 });
    expect((await getAgent(agentId)).actor).toMatchObject({ state: 'active.idle', queued: 0, running: 0, cooldown_until: null });

    await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'first' });
    const run = await h.waitFor(async () => startedRun(started, await runsOf(agentId)), 'the first run to be running');
    const second = (await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'second' })).body.wakeup;
    const busy = await getAgent(agentId);
    expect(busy.status).toBe('working');
    expect(busy.actor).toMatchObject({ state: 'active.atCapacity', queued: 1, running: 1, cooldown_until: null });

    const cooling = await h.waitFor(async () => {
      const a = await getAgent(agentId);
      return a.actor.state === 'active.coolingDown' ? a : null;
    }, 'the cooldown');
    expect(cooling.actor).toMatchObject({ queued: 1, running: 0 });
    const finishedAt = ms((await h.api('GET', `/api/office/runs/${run.id}`)).body.finished_at);
    const until = ms(cooling.actor.cooldown_until);
    expect(until).toBeGreaterThanOrEqual(finishedAt + 60_000);
    expect(until).toBeLessThan(finishedAt + 62_000);
    const waiting = await getWakeup(second.id);
    expect(waiting.status).toBe('queued');
    expect(waiting.explain).toMatch(/cooling down/);
  });
});
