/**
 * People are named in the audit (API.md, "Trust boundaries"): an activity entry written for what a
 * person did carries `actor_type: "user"` and the token's id ("admin" for the bootstrap token and the
 * open mode). Real server, SQLite file, real child processes as agents.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

const ADMIN = 'audit-people-admin-token';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, post, listActivity, createWorkspace, createAgent, waitForWakeupEnd } = apiClient(() => h, { headers: () => bearer(ADMIN) });

async function member(name: string): Promise<{ id: string; token: string; api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }> }> {
  const created = await post('/api/office/tokens', { name, role: 'member' });
  return { id: created.id, token: created.token, api: (method, path, body) => h!.api(method, path, body, bearer(created.token)) };
}

const entries = (workspaceId: string, code: string) => listActivity({ workspace_id: workspaceId, code });

describe('people are named in the audit', () => {
  it('a manual fire, and the cancel of its run, name the member who did each', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: ADMIN });
    const ws = await createWorkspace();
    const sleeper = await createAgent(ws, { name: 'Sleeper', skip_idle_wakeups: false, executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '600000' }) });
    const alice = await member('alice');
    const routine = (await alice.api('POST', '/api/office/routines', { workspace_id: ws, name: 'Digest', assignee_agent_instance_id: sleeper, triggers: [{ kind: 'manual' }] })).body;
    const fired = await alice.api('POST', `/api/office/routines/${routine.id}/fire`, {});
    expect(fired.status).toBe(202);
    const [dispatched] = await entries(ws, 'routine_run_dispatched');
    expect(dispatched).toMatchObject({ routine_id: routine.id, actor_type: 'user', actor_id: alice.id, on_behalf_of: alice.id });

    const run = await h.waitFor(async () => {
      const [r] = await get(`/api/office/runs?wakeup_id=${fired.body.routine_run.linked_wakeup_id}`);
      return r?.status === 'running' ? r : null;
    }, 'the fired run to be running');
    expect((await alice.api('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'wrong day' })).status).toBe(200);
    const [cancelled] = await entries(ws, 'run_cancelled');
    expect(cancelled).toMatchObject({ run_id: run.id, actor_type: 'user', actor_id: alice.id });
  }, 30_000);

  it('an approval decision writes an approval_resolved entry naming the person, and moves its task', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: ADMIN });
    const ws = await createWorkspace();
    const agentId = await createAgent(ws, { name: 'Writer', executor: null });
    const bob = await member('bob');
    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Publish the post', assignee_agent_instance_id: agentId, requires_approval: true });
    await call('POST', `/api/office/tasks/${task.id}/move`, { state: 'DONE' }, 200);
    const [inbox] = await get(`/api/office/inbox?workspace_id=${ws}`);
    const decided = await bob.api('POST', `/api/office/approvals/${inbox.ref_id}/resolve`, { status: 'approved', decision_note: 'go' });
    expect(decided.status).toBe(200);
    const [entry] = await entries(ws, 'approval_resolved');
    expect(entry).toMatchObject({ task_id: task.id, actor_type: 'user', actor_id: bob.id, details: { approval_id: inbox.ref_id, status: 'approved' } });
    expect((await get(`/api/office/tasks/${task.id}`)).state).toBe('DONE');
  });

  it("an inbox resolve names the person; the bootstrap token is 'admin'", async () => {
    h = await startHarness({ OFFICE_API_TOKEN: ADMIN });
    const ws = await createWorkspace();
    const breaker = await createAgent(ws, { name: 'Breaker', executor: fixtureAgent('fail.mjs') });
    const wake = await call('POST', `/api/office/agents/${breaker}/wake`, { reason: 'try it' }, 202);
    expect((await waitForWakeupEnd(wake.wakeup.id)).status).toBe('failed');
    const carol = await member('carol');
    const [error] = await get(`/api/office/inbox?workspace_id=${ws}`);
    expect((await carol.api('POST', `/api/office/inbox/${error.id}/resolve`)).status).toBe(200);
    const [entry] = await entries(ws, 'inbox_item_resolved');
    expect(entry).toMatchObject({ actor_type: 'user', actor_id: carol.id, details: { inbox_item_id: error.id } });
  });

  it("a person's wake records its token id in the wakeup, and an admin's delete names the admin on the tasks it unassigns", async () => {
    h = await startHarness({ OFFICE_API_TOKEN: ADMIN });
    const ws = await createWorkspace();
    const agentId = await createAgent(ws, { name: 'Worker' });
    await call('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' }, 200);
    const dana = await member('dana');
    const woke = await dana.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'look again' });
    expect(woke.status).toBe(202);
    expect(woke.body.wakeup.payload).toMatchObject({ user_id: dana.id });
    expect((await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'and again', idempotency_key: 'k1' }, 202)).wakeup.payload).toMatchObject({ user_id: 'admin' });

    const task = await post('/api/office/tasks', { workspace_id: ws, title: 'Orphaned soon', assignee_agent_instance_id: agentId });
    await call('DELETE', `/api/office/agents/${agentId}`, undefined, 204);
    const [unassigned] = await entries(ws, 'task_unassigned');
    expect(unassigned).toMatchObject({ task_id: task.id, actor_type: 'user', actor_id: 'admin' });
  });

  it('GET /api/office/session says a named token came as a token, in the open mode too', async () => {
    h = await startHarness();
    const created = (await h.api('POST', '/api/office/tokens', { name: 'erin', role: 'member' })).body;
    const open = await h.api('GET', '/api/office/session');
    expect(open.body).toMatchObject({ signed_in: true, token_id: 'admin', via: 'open' });
    const named = await h.api('GET', '/api/office/session', undefined, bearer(created.token));
    expect(named.body).toMatchObject({ signed_in: true, token_id: created.id, role: 'member', via: 'token' });
  });
});
