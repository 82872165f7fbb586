/**
 * OFFICE_RUN_TIMEOUT_SEC: every run has a timeout, also when its executor sets none. Through the
 * real server, with a real never-exiting child process (and a never-answering HTTP agent).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';
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

const { listWakeups, listRuns, listActivity } = apiClient(() => h);

/** The agent's first wakeup once its first run has failed and it waits for a retry. */
async function firstFailure(agentId: string) {
  const wakeup = await h!.waitFor(async () => {
    const [w] = await listWakeups({ agent_id: agentId });
    return w?.status === 'scheduled_retry' ? w : undefined;
  }, 'the wakeup to fail and wait for its retry', 20_000);
  const [run] = await listRuns({ wakeup_id: wakeup.id });
  return { wakeup, run };
}

describe('the default run timeout (OFFICE_RUN_TIMEOUT_SEC)', () => {
  it('a never-exiting command agent with no timeout_sec fails with `timeout`, its process group is killed, and it is retried', async () => {
    const marker = `office-run-timeout-${randomUUID()}`;
    // The backoff is long enough that the retry does not start while the test looks.
    h = await startHarness({ OFFICE_RUN_TIMEOUT_SEC: '2', OFFICE_BACKOFF: '1m' });
    const executor = fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '3600000' });
    const { workspaceId, agentId } = await seedAgent(h, { executor: { ...executor, args: [...(executor as { args: string[] }).args, marker] } });
    const woke = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'never ends' });
    expect(woke.status).toBeLessThan(300);

    await h.waitFor(() => pidsWhere((argv) => argv.includes(marker)).length > 0, 'the agent to start');
    const { wakeup, run } = await firstFailure(agentId);
    expect(run).toMatchObject({ status: 'failed', error: 'timeout' });
    const ranMs = Date.parse(run.finished_at) - Date.parse(run.started_at ?? run.created_at);
    expect(ranMs).toBeGreaterThanOrEqual(1_900);
    expect(ranMs).toBeLessThan(10_000);
    expect(wakeup).toMatchObject({ retry_count: 1, error: 'timeout' });
    const retries = await listActivity({ workspace_id: workspaceId, code: 'wakeup_retry_scheduled' });
    expect(retries.filter((a) => a.wakeup_id === wakeup.id)).toHaveLength(1);
    expect(pidsWhere((argv) => argv.includes(marker))).toEqual([]);
  }, 60_000);

  it('an HTTP agent that never answers, with no timeout_sec, fails with `timeout`', async () => {
    agentServer = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => agentServer!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}/agent`;
    h = await startHarness({ OFFICE_RUN_TIMEOUT_SEC: '1', OFFICE_BACKOFF: '1m' });
    const { agentId } = await seedAgent(h, { executor: { kind: 'http', url } });
    await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'never answered' });
    const { run } = await firstFailure(agentId);
    expect(run).toMatchObject({ status: 'failed', error: 'timeout' });
  }, 60_000);
});
