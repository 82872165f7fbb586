/**
 * Client retries of POST /agents/:id/wake: the idempotency key (body `idempotency_key` or the
 * `Idempotency-Key` header) makes a repeat answer 200 with the first wakeup and create nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, listWakeups, createWorkspace, createAgent, createTask, settled } = apiClient(() => h);

/** An agent whose runs last long enough that its wakeups stay open while the test repeats itself. */
async function sleepyAgent(): Promise<string> {
  const ws = await createWorkspace();
  return createAgent(ws, { name: 'Sleepy', executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '200' }) });
}

describe('wake idempotency key', () => {
  it('a repeated idempotency_key in the body answers 200 with the first wakeup and creates no second one', async () => {
    h = await startHarness();
    const agentId = await sleepyAgent();
    const first = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'deploy', idempotency_key: 'retry-1' });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const again = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'deploy', idempotency_key: 'retry-1' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.wakeup.id).toBe(first.body.wakeup.id);
    expect(await listWakeups({ agent_id: agentId, source: 'user' })).toHaveLength(1);
  });

  it('the Idempotency-Key header works like the body field, and a different key is a new wakeup', async () => {
    h = await startHarness();
    const agentId = await sleepyAgent();
    const wake = (key: string) => h!.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'nightly' }, { 'idempotency-key': key });
    const first = await wake('abc');
    expect(first.status).toBe(202);
    const again = await wake('abc');
    expect(again.status).toBe(200);
    expect(again.body.wakeup.id).toBe(first.body.wakeup.id);
    // The same key in the body is the same request.
    const viaBody = await h.api('POST', `/api/office/agents/${agentId}/wake`, { idempotency_key: 'abc' });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.wakeup.id).toBe(first.body.wakeup.id);
    const other = await wake('def');
    expect(other.status).toBe(202);
    expect(other.body.wakeup.id).not.toBe(first.body.wakeup.id);
    expect(await listWakeups({ agent_id: agentId, source: 'user' })).toHaveLength(2);
  });

  it('a key in the body and a different one in the header is a 400 that creates nothing', async () => {
    h = await startHarness();
    const agentId = await sleepyAgent();
    const res = await h.api('POST', `/api/office/agents/${agentId}/wake`, { idempotency_key: 'one' }, { 'idempotency-key': 'two' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toContain('Idempotency-Key');
    expect(await listWakeups({ agent_id: agentId })).toEqual([]);
  });

  it('a user key is namespaced per agent: it never matches an internal key, nor the same key for another agent', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const a = await createAgent(ws, { name: 'A', executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '200' }) });
    const b = await createAgent(ws, { name: 'B', executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '200' }) });
    await createTask({ workspace_id: ws, title: 'Assigned', assignee_agent_instance_id: a });
    await settled();
    const [assigned] = await listWakeups({ agent_id: a, source: 'task_assigned' });
    expect(assigned.idempotency_key).toBeTruthy();

    const spoof = await h.api('POST', `/api/office/agents/${a}/wake`, { idempotency_key: assigned.idempotency_key });
    expect(spoof.status).toBe(202);
    expect(spoof.body.wakeup.id).not.toBe(assigned.id);
    expect(spoof.body.wakeup.source).toBe('user');

    const forA = await call('POST', `/api/office/agents/${a}/wake`, { idempotency_key: 'shared' }, 202);
    const forB = await call('POST', `/api/office/agents/${b}/wake`, { idempotency_key: 'shared' }, 202);
    expect(forB.wakeup.id).not.toBe(forA.wakeup.id);
    expect(forB.wakeup.agent_id).toBe(b);
  });

  it('after the idempotency window the same key wakes the agent again (202, a new wakeup)', async () => {
    // 0.0001 h = 360 ms.
    h = await startHarness({ OFFICE_IDEMPOTENCY_WINDOW_HOURS: '0.0001' });
    const agentId = await sleepyAgent();
    const first = await call('POST', `/api/office/agents/${agentId}/wake`, { idempotency_key: 'k' }, 202);
    const later = await h.waitFor(async () => {
      const res = await h!.api('POST', `/api/office/agents/${agentId}/wake`, { idempotency_key: 'k' });
      return res.status === 202 ? res : null;
    }, 'the key to expire');
    expect(later.body.wakeup.id).not.toBe(first.wakeup.id);
  });
});
