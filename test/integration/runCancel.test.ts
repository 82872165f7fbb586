/**
 * Stopping a run in flight (API.md, "Governance": POST /api/office/runs/:id/cancel), through the
 * real server with real child processes: the session's process group gets SIGTERM, then SIGKILL
 * after OFFICE_SHUTDOWN_GRACE_MS; the run ends `cancelled`, its wakeup `cancelled` (run_cancelled),
 * and nothing retries it. A run that has ended is a 409.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { FIXTURES, fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';
import { pidsWhere } from '../helpers/processes.js';

let h: Harness | undefined;
let agentServer: Server | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
  agentServer?.closeAllConnections();
  agentServer?.close();
  agentServer = undefined;
});

const { get, call, listRuns, listActivity, getWakeup } = apiClient(() => h);

const GRACE_MS = 1_000;

/**
 * A session that leads a process group of two agents: a shell, a child that ignores SIGTERM for 30 s
 * (stubborn.mjs, in the background) and one that dies of it (sleep.mjs). Only the SIGKILL of the
 * whole group, after the grace period, stops the stubborn one in time.
 */
function twoProcessSession(marker: string) {
  const node = JSON.stringify(process.execPath);
  const script = `${node} ${JSON.stringify(join(FIXTURES, 'stubborn.mjs'))} ${marker} & `
    + `${node} ${JSON.stringify(join(FIXTURES, 'sleep.mjs'))} ${marker}; wait`;
  return { kind: 'command', command: '/bin/sh', args: ['-c', script], env: { FIXTURE_SLEEP_MS: '3600000', FIXTURE_TERM_DELAY_MS: '30000' } };
}

const sessionPids = (marker: string) => pidsWhere((argv) => argv.includes(marker));

async function runningRunOf(agentId: string) {
  return h!.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.status === 'running'), 'the run to be running');
}

describe.runIf(process.platform === 'linux')('POST /api/office/runs/:id/cancel', () => {
  it('cancelling a running command-executor run kills its whole process group within OFFICE_SHUTDOWN_GRACE_MS, ends the run cancelled and its wakeup cancelled (run_cancelled), and does not retry it', async () => {
    const marker = `office-cancel-${randomUUID()}`;
    // A retry, if one were scheduled, would start within 200 ms.
    h = await startHarness({ OFFICE_SHUTDOWN_GRACE_MS: String(GRACE_MS), OFFICE_BACKOFF: '200ms' });
    const { workspaceId, agentId } = await seedAgent(h, { executor: twoProcessSession(marker) });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'long job' }, 202);
    await h.waitFor(() => sessionPids(marker).length === 2, 'both agent processes to run');
    const run = await runningRunOf(agentId);

    const cancelledAt = Date.now();
    const answer = await call('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'wrong prompt' });
    expect(answer).toMatchObject({ id: run.id, status: 'cancelled', wakeup_id: run.wakeup_id });
    expect(answer.error).toContain('wrong prompt');
    expect(answer.finished_at).not.toBeNull();

    // The stubborn process ignores SIGTERM: it is gone only through the group's SIGKILL after the grace period.
    await h.waitFor(() => sessionPids(marker).length === 0, 'every process of the session to be gone', GRACE_MS + 3_000);
    expect(Date.now() - cancelledAt).toBeLessThan(GRACE_MS + 2_000);

    // The session's own ending arrives after the cancel: kept apart, never the run's outcome.
    await h.waitFor(async () => (await listActivity({ workspace_id: workspaceId, code: 'run_result_after_cancel' })).length === 1,
      "the session's late result to be refused");
    expect(await get(`/api/office/runs/${run.id}`)).toMatchObject({ status: 'cancelled', error: answer.error });
    expect(await getWakeup(run.wakeup_id)).toMatchObject({ status: 'cancelled', cancel_reason: 'run_cancelled', retry_count: 0, scheduled_retry_at: null });
    expect(await listRuns({ wakeup_id: run.wakeup_id })).toHaveLength(1);
    expect(await listActivity({ workspace_id: workspaceId, code: 'wakeup_retry_scheduled' })).toEqual([]);
    expect(await listActivity({ workspace_id: workspaceId, code: 'wakeup_escalated' })).toEqual([]);
    const [decision] = await listActivity({ workspace_id: workspaceId, code: 'run_cancelled' });
    expect(decision).toMatchObject({ run_id: run.id, wakeup_id: run.wakeup_id });
    expect(decision.message).toContain('wrong prompt');
    // The agent is free again: its next wake runs.
    await h.waitFor(async () => (await get(`/api/office/agents/${agentId}`)).status === 'idle', 'the agent to be idle');
  }, 60_000);

  it("cancelling an HTTP agent's run aborts its request", async () => {
    let aborted = false;
    let received = false;
    agentServer = createServer((req) => {
      received = true;
      // Never answers; the scheduler's abort closes the connection.
      req.socket.on('close', () => { aborted = true; });
    });
    await new Promise<void>((resolve) => agentServer!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}/agent`;
    h = await startHarness({ OFFICE_BACKOFF: '200ms' });
    const { agentId } = await seedAgent(h, { executor: { kind: 'http', url } });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'never answered' }, 202);
    const run = await runningRunOf(agentId);
    await h.waitFor(() => received, 'the agent to receive the request');

    expect(await call('POST', `/api/office/runs/${run.id}/cancel`, {})).toMatchObject({ status: 'cancelled' });
    await h.waitFor(() => aborted, 'the request to be aborted', 5_000);
    expect(await getWakeup(run.wakeup_id)).toMatchObject({ status: 'cancelled', cancel_reason: 'run_cancelled' });
  }, 30_000);

  it("a member may cancel the runs of routines it owns; another member's routine's run, or a run no routine started, is a 403 with the reason; an admin cancels any run", async () => {
    const admin = { authorization: 'Bearer cancel-admin-token' };
    h = await startHarness({ OFFICE_API_TOKEN: 'cancel-admin-token' });
    const as = (headers: Record<string, string>) => (method: string, path: string, body?: unknown) => h!.api(method, path, body, headers);
    const asAdmin = as(admin);
    const member = async (name: string) => {
      const created = await asAdmin('POST', '/api/office/tokens', { name, role: 'member' });
      expect(created.status).toBe(201);
      return as({ authorization: `Bearer ${created.body.token}` });
    };
    const [alice, bob] = [await member('alice'), await member('bob')];
    const workspaceId = (await asAdmin('POST', '/api/office/workspaces', { name: 'Acme' })).body.id;
    const agentId = (await asAdmin('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Worker', role: 'worker', cooldown_sec: 0, max_concurrent_sessions: 3, skip_idle_wakeups: false,
      executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '3600000' }),
    })).body.id;
    /** A routine `who` owns, fired by it: its run once running. */
    const runningRoutineRun = async (who: typeof alice, name: string) => {
      const routine = await who('POST', '/api/office/routines', { workspace_id: workspaceId, name, assignee_agent_instance_id: agentId, triggers: [{ kind: 'manual' }] });
      expect(routine.status).toBe(201);
      const fired = await who('POST', `/api/office/routines/${routine.body.id}/fire`, {});
      expect(fired.status).toBe(202);
      return h!.waitFor(async () => {
        const wakeup = (await asAdmin('GET', `/api/office/wakeups/${fired.body.routine_run.linked_wakeup_id}`)).body;
        const run = wakeup.run_id ? (await asAdmin('GET', `/api/office/runs/${wakeup.run_id}`)).body : null;
        return run?.status === 'running' ? run : null;
      }, `the run of ${name} to be running`);
    };
    const alicesRun = await runningRoutineRun(alice, "Alice's digest");
    const bobsRun = await runningRoutineRun(bob, "Bob's digest");
    const woke = await asAdmin('POST', `/api/office/agents/${agentId}/wake`, { reason: 'by hand' });
    const handRun = await h.waitFor(async () => {
      const run = (await asAdmin('GET', `/api/office/runs?wakeup_id=${woke.body.wakeup.id}`)).body[0];
      return run?.status === 'running' ? run : null;
    }, 'the hand-woken run to be running');

    const refused = await bob('POST', `/api/office/runs/${alicesRun.id}/cancel`, { reason: 'not mine' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden' });
    expect(refused.body.error.message).toContain('a member may manage only the routines it owns');
    const notARoutine = await alice('POST', `/api/office/runs/${handRun.id}/cancel`, {});
    expect(notARoutine.status).toBe(403);
    expect(notARoutine.body.error.message).toContain('only an admin may cancel it');
    // Refused: nothing changed.
    expect((await asAdmin('GET', `/api/office/runs/${alicesRun.id}`)).body.status).toBe('running');

    expect((await alice('POST', `/api/office/runs/${alicesRun.id}/cancel`, {})).body).toMatchObject({ status: 'cancelled' });
    expect((await asAdmin('POST', `/api/office/runs/${bobsRun.id}/cancel`, {})).body).toMatchObject({ status: 'cancelled' });
    expect((await asAdmin('POST', `/api/office/runs/${handRun.id}/cancel`, {})).body).toMatchObject({ status: 'cancelled' });
    for (const run of [alicesRun, bobsRun, handRun]) {
      expect((await asAdmin('GET', `/api/office/wakeups/${run.wakeup_id}`)).body).toMatchObject({ status: 'cancelled', cancel_reason: 'run_cancelled' });
    }
  }, 60_000);

  it("a member may cancel any run on the task of a heavy routine it owns, not only the task's first (a comment's wakeup carries no routine run)", async () => {
    h = await startHarness({ OFFICE_API_TOKEN: 'cancel-admin-token' });
    const asAdmin = (method: string, path: string, body?: unknown) => h!.api(method, path, body, { authorization: 'Bearer cancel-admin-token' });
    const token = (await asAdmin('POST', '/api/office/tokens', { name: 'alice', role: 'member' })).body.token;
    const alice = (method: string, path: string, body?: unknown) => h!.api(method, path, body, { authorization: `Bearer ${token}` });
    const workspaceId = (await asAdmin('POST', '/api/office/workspaces', { name: 'Acme' })).body.id;
    const agentId = (await asAdmin('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Worker', role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false,
      executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '3600000' }),
    })).body.id;
    const routine = (await alice('POST', '/api/office/routines', {
      workspace_id: workspaceId, name: 'Weekly audit', assignee_agent_instance_id: agentId, task_template: { title: 'Audit' }, triggers: [{ kind: 'manual' }],
    })).body;
    const taskId = (await alice('POST', `/api/office/routines/${routine.id}/fire`, {})).body.routine_run.linked_task_id;
    const runningOnTask = (excluding: string[]) => h!.waitFor(async () =>
      (await asAdmin('GET', `/api/office/runs?task_id=${taskId}`)).body.find((r: any) => r.status === 'running' && !excluding.includes(r.id)), 'a run on the routine task');
    const first = await runningOnTask([]);
    expect((await alice('POST', `/api/office/runs/${first.id}/cancel`, {})).status).toBe(200);

    await asAdmin('POST', `/api/office/tasks/${taskId}/comments`, { body: 'please look again', author_type: 'user', author_id: 'admin' });
    const second = await runningOnTask([first.id]);
    expect((await asAdmin('GET', `/api/office/wakeups/${second.wakeup_id}`)).body.routine_run_id).toBeNull();
    const cancelled = await alice('POST', `/api/office/runs/${second.id}/cancel`, {});
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
  }, 60_000);

  it('cancelling a run that has already ended is a 409 that changes nothing, and an unknown run is a 404', async () => {
    h = await startHarness();
    const { agentId } = await seedAgent(h, { executor: fixtureAgent('succeed.mjs') });
    const woke = await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'quick' }, 202);
    const ended = await h.waitFor(async () => (await listRuns({ wakeup_id: woke.wakeup.id })).find((r) => r.status === 'succeeded'), 'the run to succeed');

    const refused = await h.api('POST', `/api/office/runs/${ended.id}/cancel`, { reason: 'too late' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict' });
    expect(refused.body.error.message).toContain('succeeded');
    expect(await get(`/api/office/runs/${ended.id}`)).toMatchObject({ status: 'succeeded', error: null });
    expect((await getWakeup(woke.wakeup.id)).status).toBe('finished');

    const unknown = await h.api('POST', '/api/office/runs/run_nope/cancel', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found' });
  }, 30_000);
});
