/**
 * The audit trail tells unattended work from attended (API.md, "Governance" -> "Audit"), and caps
 * compose (issue 16): end to end with the real HTTP server, a SQLite file and fixture agents as real
 * child processes. Cron ticks, coalescing holds and retry backoffs run on an injected clock that
 * moves only when the test moves it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { get, post, listActivity, listWakeups, listRuns, createWorkspace, createAgent, createTaskId, waitForWakeupStatus, waitForWakeupEnd, quiet } =
  apiClient(() => h);

/** The routines' owner: a live member token (an unknown or revoked owner is refused), made per test by startWithOwner. */
let OWNER = '';

/** A harness, and the member token whose id is OWNER. */
async function startWithOwner(...args: Parameters<typeof startHarness>): Promise<Harness> {
  const harness = await startHarness(...args);
  OWNER = (await harness.api('POST', '/api/office/tokens', { name: 'alice', role: 'member' })).body.id;
  return harness;
}

function stillClock(): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
  return clock;
}

const everyMinute = (workspaceId: string, assignee: string, name: string) => post('/api/office/routines', {
  workspace_id: workspaceId, name, assignee_agent_instance_id: assignee, owner_id: OWNER, concurrency_policy: 'always_enqueue',
  triggers: [{ kind: 'schedule', cron_expression: '* * * * *', timezone: 'UTC' }],
});

const activity = (workspaceId: string, unattended?: 'true' | 'false'): Promise<any[]> =>
  listActivity({ workspace_id: workspaceId, limit: '1000', ...(unattended ? { unattended } : {}) });

describe('an audit trail that tells unattended from attended', () => {
  it('an unattended run\'s skip, retry and follow-on comment (and the wake and run of the agent it woke) are all marked unattended with on_behalf_of the routine owner; ?unattended=true and =false filter them', async () => {
    const clock = stillClock();
    h = await startWithOwner({}, undefined, clock);
    const ws = await createWorkspace();
    const idle = await createAgent(ws, { name: 'Idle', skip_idle_wakeups: true });
    const flaky = await createAgent(ws, {
      name: 'Flaky', skip_idle_wakeups: false,
      executor: fixtureAgent('flaky.mjs', { FIXTURE_COUNTER_FILE: join(h.dir, 'flaky.count'), FIXTURE_FAIL_TIMES: '1' }),
    });
    const reviewer = await createAgent(ws, { name: 'Reviewer', skip_idle_wakeups: false });
    // A person's task for the reviewer: attended work, for contrast.
    const report = await createTaskId(ws, 'Review the nightly report', reviewer);
    const commenter = await createAgent(ws, {
      name: 'Commenter', skip_idle_wakeups: false,
      executor: fixtureAgent('json-actions.mjs', { FIXTURE_RESULT: JSON.stringify({ actions: [{ type: 'comment', task_id: report, body: 'nightly: 3 exceptions' }] }) }),
    });
    const routines = [await everyMinute(ws, idle, 'Idle sweep'), await everyMinute(ws, flaky, 'Flaky sweep'), await everyMinute(ws, commenter, 'Nightly note')];
    await quiet(reviewer);

    const triggerIds = routines.map((r) => r.triggers[0].id as string);
    await h.waitFor(() => triggerIds.every((id) => h!.scheduler.triggers.view(id)?.state === 'waiting'), 'every trigger actor to wait for its tick');
    await h.scheduler.triggers.flush();
    const tick = Date.parse(routines[0].triggers[0].next_run_at);
    clock.set(tick);
    const fires = await h.waitFor(async () => {
      const runs = await Promise.all(routines.map(async (r) => (await get(`/api/office/routines/${r.id}/runs`))[0]));
      return runs.every((run) => run?.status === 'dispatched') ? runs : null;
    }, 'the three cron fires');
    expect(fires.map((run) => [run.source, run.unattended, run.on_behalf_of])).toEqual(Array(3).fill(['cron', true, OWNER]));

    // The routine wakeups wait out their coalescing hold; then each reaches its agent.
    clock.set(tick + 1_000);
    const [idleFire, flakyFire, noteFire] = fires.map((run) => run.linked_wakeup_id as string);
    expect(await waitForWakeupEnd(idleFire!)).toMatchObject({ status: 'finished', skip_reason: 'no_actionable_tasks', unattended: true, on_behalf_of: OWNER });
    await waitForWakeupStatus(flakyFire!, 'scheduled_retry', 'the flaky fire to wait for its retry');
    clock.set(tick + 5_000);
    expect(await waitForWakeupEnd(flakyFire!)).toMatchObject({ status: 'finished', retry_count: 1, unattended: true, on_behalf_of: OWNER });
    expect(await waitForWakeupEnd(noteFire!)).toMatchObject({ status: 'finished', unattended: true, on_behalf_of: OWNER });

    // The comment woke the reviewer: its wakeup and its run are the routine run's follow-on work.
    const woken = await h.waitFor(async () => (await listWakeups({ agent_id: reviewer, source: 'comment' }))[0], 'the reviewer\'s comment wakeup');
    expect(woken).toMatchObject({ unattended: true, on_behalf_of: OWNER });
    await quiet(reviewer);
    const reviewerRuns = await listRuns({ agent_id: reviewer });
    expect(reviewerRuns.map((run) => [run.wakeup_id === woken.id, run.unattended, run.on_behalf_of]).sort()).toEqual([
      [false, false, null], // the person's assignment
      [true, true, OWNER],
    ]);
    for (const agent of [flaky, commenter]) {
      expect((await listRuns({ agent_id: agent })).map((run) => [run.unattended, run.on_behalf_of])).toEqual(
        agent === flaky ? [[true, OWNER], [true, OWNER]] : [[true, OWNER]]);
    }

    // The same skip from a person's "Run now" is attended, on behalf of that person.
    const byHand = (await post(`/api/office/routines/${routines[0].id}/fire`, {}, 202)).routine_run;
    clock.set(tick + 7_000);
    expect(await waitForWakeupEnd(byHand.linked_wakeup_id)).toMatchObject({ skip_reason: 'no_actionable_tasks', unattended: false, on_behalf_of: 'admin' });

    const all = await activity(ws);
    for (const entry of all) {
      expect(Object.keys(entry)).toEqual(expect.arrayContaining(['unattended', 'on_behalf_of']));
    }
    const unattended = await activity(ws, 'true');
    for (const entry of unattended) expect(entry).toMatchObject({ unattended: true, on_behalf_of: OWNER });
    const codesOf = (entries: any[], agent: string) => entries.filter((e) => e.agent_id === agent).map((e) => e.code);
    expect(codesOf(unattended, idle)).toEqual(expect.arrayContaining(['routine_run_dispatched', 'wakeup_idle_skipped']));
    expect(codesOf(unattended, flaky)).toEqual(expect.arrayContaining(['routine_run_dispatched', 'wakeup_retry_scheduled']));
    expect(codesOf(unattended, commenter)).toEqual(expect.arrayContaining(['routine_run_dispatched', 'comment_created']));
    const comment = unattended.find((e) => e.code === 'comment_created');
    expect(comment).toMatchObject({ actor_type: 'agent', actor_id: commenter, task_id: report, run_id: (await listRuns({ agent_id: commenter }))[0].id });

    const attended = await activity(ws, 'false');
    for (const entry of attended) expect(entry).toMatchObject({ unattended: false, on_behalf_of: 'admin' });
    expect(attended.map((e) => [e.code, e.agent_id]).sort()).toEqual([['routine_run_dispatched', idle], ['wakeup_idle_skipped', idle]]);
    expect(unattended.length + attended.length).toBe(all.length);
  });

  it('a manual fire is attended, on behalf of whoever fired it', async () => {
    h = await startWithOwner();
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { name: 'Worker', skip_idle_wakeups: false });
    const routine = await post('/api/office/routines', {
      workspace_id: ws, name: 'Run now', assignee_agent_instance_id: agent, owner_id: OWNER, triggers: [{ kind: 'manual' }],
    });
    const { routine_run: run } = await post(`/api/office/routines/${routine.id}/fire`, {}, 202);
    // No token is configured: the local caller is the bootstrap admin.
    expect(run).toMatchObject({ source: 'manual', unattended: false, on_behalf_of: 'admin' });
    await waitForWakeupEnd(run.linked_wakeup_id);
    expect(await get(`/api/office/wakeups/${run.linked_wakeup_id}`)).toMatchObject({ unattended: false, on_behalf_of: 'admin' });
    const [agentRun] = await listRuns({ agent_id: agent });
    expect(agentRun).toMatchObject({ unattended: false, on_behalf_of: 'admin' });
    expect(await activity(ws, 'true')).toEqual([]);
    expect((await activity(ws, 'false')).find((e) => e.code === 'routine_run_dispatched')).toMatchObject({ unattended: false, on_behalf_of: 'admin' });
  });
});

describe('an unattended run\'s failure', () => {
  it('escalates unattended: its retries, the escalation and the coordinator\'s agent_error wakeup and run are all for the routine owner', async () => {
    h = await startWithOwner();
    const ws = await createWorkspace();
    const coordinator = await createAgent(ws, { name: 'Chief', role: 'coordinator', skip_idle_wakeups: false });
    const agent = await createAgent(ws, { name: 'Broken', skip_idle_wakeups: false, executor: fixtureAgent('fail.mjs') });
    const routine = await post('/api/office/routines', {
      workspace_id: ws, name: 'Nightly', assignee_agent_instance_id: agent, owner_id: OWNER, triggers: [{ kind: 'webhook', signing_mode: 'none' }],
    });
    const fired = (await h.api('POST', routine.triggers[0].url, {})).body.routine_run;
    expect(await waitForWakeupEnd(fired.linked_wakeup_id, 'the failing fire to give up', 20_000)).toMatchObject({ status: 'failed', retry_count: 4 });
    const escalation = await h.waitFor(async () => (await listWakeups({ agent_id: coordinator, source: 'agent_error' }))[0], 'the escalation wakeup');
    expect(escalation).toMatchObject({ unattended: true, on_behalf_of: OWNER });
    await waitForWakeupEnd(escalation.id);
    expect((await listRuns({ agent_id: coordinator })).find((r) => r.wakeup_id === escalation.id)).toMatchObject({ unattended: true, on_behalf_of: OWNER });
    const entries = (await activity(ws, 'true')).filter((e) => e.agent_id === agent).map((e) => e.code);
    expect(entries.filter((code) => code === 'wakeup_retry_scheduled')).toHaveLength(4);
    expect(entries).toContain('wakeup_escalated');
  });
});

describe('an unattended run\'s spend', () => {
  it('crossing a budget\'s alert threshold is an unattended budget_alert, for the routine owner', async () => {
    h = await startWithOwner();
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { name: 'Spender', skip_idle_wakeups: false, executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '0.8' }) });
    await post('/api/office/budgets', { scope: 'agent', scope_id: agent, limit_usd: 1, period: 'monthly', action_on_exceed: 'warn', alert_threshold_pct: 50 });
    const routine = await post('/api/office/routines', {
      workspace_id: ws, name: 'Spend', assignee_agent_instance_id: agent, owner_id: OWNER, triggers: [{ kind: 'webhook', signing_mode: 'none' }],
    });
    expect((await h.api('POST', routine.triggers[0].url, {})).status).toBe(202);
    const alert = await h.waitFor(async () => (await activity(ws)).find((e) => e.code === 'budget_alert'), 'the budget alert');
    expect(alert).toMatchObject({ agent_id: agent, unattended: true, on_behalf_of: OWNER });
  });

  it('its result delivery is logged as unattended, for the routine owner', async () => {
    const server = createServer((_req, res) => { res.statusCode = 200; res.end(); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      h = await startWithOwner();
      const ws = await createWorkspace();
      const agent = await createAgent(ws, { name: 'Reporter', skip_idle_wakeups: false });
      const routine = await post('/api/office/routines', {
        workspace_id: ws, name: 'Report', assignee_agent_instance_id: agent, owner_id: OWNER, triggers: [{ kind: 'webhook', signing_mode: 'none' }],
        delivery: { kind: 'webhook', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/results` },
      });
      expect((await h.api('POST', routine.triggers[0].url, {})).status).toBe(202);
      const delivered = await h.waitFor(async () => (await activity(ws)).find((e) => e.code === 'routine_delivery_delivered'), 'the delivery');
      expect(delivered).toMatchObject({ routine_id: routine.id, unattended: true, on_behalf_of: OWNER });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('caps that compose', () => {
  it('a routine run\'s subtasks that wake other agents count against the agent and deployment caps, and are refused and logged at them; the subtasks stay, and the slots free when the work ends', async () => {
    h = await startWithOwner({ OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: '3' });
    const ws = await createWorkspace();
    const release = join(h.dir, 'release');
    const busy = fixtureAgent('wait-for-release.mjs', { FIXTURE_RELEASE_FILE: release });
    const helperA = await createAgent(ws, { name: 'Helper A', skip_idle_wakeups: false, max_concurrent_routine_runs: 1, executor: busy });
    const helperB = await createAgent(ws, { name: 'Helper B', skip_idle_wakeups: false, executor: busy });
    const helperC = await createAgent(ws, { name: 'Helper C', skip_idle_wakeups: false, executor: busy });
    const parent = await createTaskId(ws, 'Overnight triage', null);
    const subtask = (title: string, assignee: string) => ({
      path: '/api/office/tasks', body: { workspace_id: ws, title, parent_id: parent, assignee_agent_instance_id: assignee },
    });
    const lead = await createAgent(ws, {
      name: 'Lead', skip_idle_wakeups: false,
      executor: fixtureAgent('fan-out.mjs', { FIXTURE_CALLS: JSON.stringify([
        subtask('A1', helperA), // deployment 2 of 3 (the fire holds 1), Helper A 1 of 1
        subtask('A2', helperA), // Helper A's cap
        subtask('B1', helperB), // deployment 3 of 3
        subtask('C1', helperC), // the deployment's cap
      ]) }),
    });
    const routine = await post('/api/office/routines', {
      workspace_id: ws, name: 'Triage', assignee_agent_instance_id: lead, owner_id: OWNER,
      triggers: [{ kind: 'webhook', signing_mode: 'none' }],
    });
    const fired = await h.api('POST', routine.triggers[0].url, { night: 'tuesday' });
    expect(fired.status).toBe(202);
    expect(fired.body.routine_run).toMatchObject({ source: 'webhook', status: 'dispatched', unattended: true, on_behalf_of: OWNER });

    const leadRun = await h.waitFor(async () => (await listRuns({ agent_id: lead })).find((r) => r.status === 'succeeded'), 'the lead\'s run');
    // Every subtask is created (201): the refusal is of the work it would start, not of the record.
    const answers: any[] = leadRun.result_json.calls;
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    const tasks = Object.fromEntries(answers.map((a) => [a.body.title, a.body]));
    for (const task of Object.values(tasks)) expect(task).toMatchObject({ unattended: true, on_behalf_of: OWNER, parent_id: parent });

    const wakeupOf = async (task: any) => h!.waitFor(async () => (await listWakeups({ agent_id: task.assignee_agent_instance_id, source: 'task_assigned' }))
      .find((w) => w.task_id === task.id), `the wakeup of ${task.title}`);
    const [a1, a2, b1, c1] = await Promise.all(['A1', 'A2', 'B1', 'C1'].map((title) => wakeupOf(tasks[title])));
    for (const wakeup of [a1, a2, b1, c1]) expect(wakeup).toMatchObject({ unattended: true, on_behalf_of: OWNER });
    expect(a2).toMatchObject({ status: 'skipped', skip_reason: 'cap_reached' });
    expect(c1).toMatchObject({ status: 'skipped', skip_reason: 'cap_reached' });
    expect(a1.status).not.toBe('skipped');
    expect(b1.status).not.toBe('skipped');

    const refusals = (await activity(ws, 'true')).filter((e) => e.code === 'wakeup_cap_reached');
    expect(refusals.map((e) => [e.wakeup_id, e.agent_id, e.task_id]).sort()).toEqual([
      [a2.id, helperA, tasks.A2.id], [c1.id, helperC, tasks.C1.id],
    ].sort());
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ unattended: true, on_behalf_of: OWNER, details: { reason: 'cap_reached', caps: { deployment: 3 } } });
    }
    expect(refusals.find((e) => e.agent_id === helperA).details.caps.agent).toBe(1);
    const subtaskEntries = (await activity(ws, 'true')).filter((e) => e.code === 'task_created');
    expect(subtaskEntries).toHaveLength(4);
    for (const entry of subtaskEntries) expect(entry).toMatchObject({ actor_type: 'agent', actor_id: lead, run_id: leadRun.id, on_behalf_of: OWNER });

    // The lead's fire has ended; the helpers' two sessions hold the deployment's slots and Helper A's.
    const counters = () => h!.scheduler.store.read(async (tx) => ({
      deployment: await tx.routines.countActiveRuns({}), helperA: await tx.routines.countActiveRuns({ agent_id: helperA }),
    }));
    await waitForWakeupStatus(a1.id, 'claimed', 'Helper A to run A1');
    await waitForWakeupStatus(b1.id, 'claimed', 'Helper B to run B1');
    expect(await counters()).toEqual({ deployment: 2, helperA: 1 });

    const { writeFileSync } = await import('node:fs');
    writeFileSync(release, 'go');
    await waitForWakeupEnd(a1.id);
    await waitForWakeupEnd(b1.id);
    expect(await counters()).toEqual({ deployment: 0, helperA: 0 });
  });

  it('an agent\'s wake of itself through its run token during an unattended run counts too: at its cap it answers 202 with outcome refused, and the wakeup is skipped cap_reached', async () => {
    h = await startWithOwner();
    const ws = await createWorkspace();
    // Its own fire holds the agent's one routine-run slot while the run runs.
    const agent = await createAgent(ws, {
      name: 'Eager', skip_idle_wakeups: false, max_concurrent_routine_runs: 1,
      executor: fixtureAgent('api-call.mjs', { FIXTURE_PATH: '/api/office/agents/{agent_id}/wake', FIXTURE_BODY: JSON.stringify({ reason: 'again' }) }),
    });
    const routine = await post('/api/office/routines', {
      workspace_id: ws, name: 'Eager', assignee_agent_instance_id: agent, owner_id: OWNER, triggers: [{ kind: 'webhook', signing_mode: 'none' }],
    });
    const fired = (await h.api('POST', routine.triggers[0].url, {})).body.routine_run;
    await waitForWakeupEnd(fired.linked_wakeup_id);
    const [run] = await listRuns({ agent_id: agent });
    expect(run.result_json).toMatchObject({ status: 202, body: { outcome: 'refused', wakeup: { source: 'self', status: 'skipped', skip_reason: 'cap_reached', unattended: true, on_behalf_of: OWNER } } });
    expect((await activity(ws, 'true')).find((e) => e.code === 'wakeup_cap_reached')).toMatchObject({ agent_id: agent, wakeup_id: run.result_json.body.wakeup.id });
  });

  it('a fan-out from an attended (manual) fire takes no routine-run slot', async () => {
    h = await startWithOwner({ OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: '1' });
    const ws = await createWorkspace();
    const helper = await createAgent(ws, { name: 'Helper', skip_idle_wakeups: false });
    const parent = await createTaskId(ws, 'Triage by hand', null);
    const lead = await createAgent(ws, {
      name: 'Lead', skip_idle_wakeups: false,
      executor: fixtureAgent('fan-out.mjs', { FIXTURE_CALLS: JSON.stringify(['H1', 'H2'].map((title) => ({
        path: '/api/office/tasks', body: { workspace_id: ws, title, parent_id: parent, assignee_agent_instance_id: helper },
      }))) }),
    });
    const routine = await post('/api/office/routines', {
      workspace_id: ws, name: 'Triage', assignee_agent_instance_id: lead, owner_id: OWNER, triggers: [{ kind: 'manual' }],
    });
    await post(`/api/office/routines/${routine.id}/fire`, {}, 202);
    await h.waitFor(async () => (await listRuns({ agent_id: lead })).find((r) => r.status === 'succeeded'), 'the lead\'s run');
    const wakeups = await h.waitFor(async () => {
      const found = await listWakeups({ agent_id: helper, source: 'task_assigned' });
      return found.length === 2 ? found : null;
    }, 'both subtask wakeups');
    for (const wakeup of wakeups) expect(wakeup).toMatchObject({ unattended: false, skip_reason: null });
    expect((await activity(ws)).filter((e) => e.code === 'wakeup_cap_reached')).toEqual([]);
  });
});
