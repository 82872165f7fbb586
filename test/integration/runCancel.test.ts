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
