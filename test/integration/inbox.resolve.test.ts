/** A person marks an agent's error in the inbox as dealt with; approvals are decided, not dismissed. */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, listActivity, waitForWakeupEnd } = apiClient(() => h);

describe('resolving inbox items', () => {
  it('resolves an agent error once (then 409), records who did it in the activity feed, and refuses an approval (409 naming the approvals route)', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h, { name: 'Breaker', executor: fixtureAgent('fail.mjs') });
    const wake = await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'try it' }, 202);
    expect((await waitForWakeupEnd(wake.wakeup.id)).status).toBe('failed');
    const [error] = await get(`/api/office/inbox?workspace_id=${workspaceId}`);
    expect(error).toMatchObject({ kind: 'agent.error', status: 'open' });

    expect(await call('POST', `/api/office/inbox/${error.id}/resolve`, undefined, 200)).toMatchObject({ id: error.id, status: 'resolved' });
    expect((await get(`/api/office/inbox?workspace_id=${workspaceId}`))[0].status).toBe('resolved');
    const again = await call('POST', `/api/office/inbox/${error.id}/resolve`, undefined, 409);
    expect(again.error.message).toContain('already resolved');
    const [entry] = await listActivity({ workspace_id: workspaceId, code: 'inbox_item_resolved' });
    expect(entry).toMatchObject({ agent_id: agentId, run_id: error.ref_id, actor_type: 'user', details: { inbox_item_id: error.id } });

    const task = await call('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Ship', assignee_agent_instance_id: agentId, requires_approval: true }, 201);
    await call('POST', `/api/office/tasks/${task.id}/move`, { state: 'DONE' }, 200);
    const approval = (await get(`/api/office/inbox?workspace_id=${workspaceId}`)).find((i: { kind: string }) => i.kind === 'approval');
    const refused = await call('POST', `/api/office/inbox/${approval.id}/resolve`, undefined, 409);
    expect(refused.error.message).toContain(`/api/office/approvals/${approval.ref_id}/resolve`);
    expect((await get(`/api/office/tasks/${task.id}`)).state).toBe('IN_REVIEW');

    expect((await call('POST', '/api/office/inbox/inb_nope/resolve', undefined, 404)).error.code).toBe('not_found');
  });
});
