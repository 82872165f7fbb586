/**
 * A member cancels the runs done on its behalf (API.md, "Trust boundaries"): not only its routine's
 * own run, but the follow-on work of that run (here a subtask its agent made through its run token,
 * run by another agent), which carries the member's token as `on_behalf_of`. Real server, SQLite
 * file, real child processes as agents.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

const ADMIN = 'on-behalf-admin-token';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, post, createWorkspace, createAgent } = apiClient(() => h, { headers: () => bearer(ADMIN) });

async function runningRunOf(query: string, what: string): Promise<any> {
  return h!.waitFor(async () => (await get(`/api/office/runs?${query}`)).find((r: any) => r.status === 'running' && r.session_pid), what);
}

describe('cancelling the runs done on a member\'s behalf', () => {
  it("a member may cancel the follow-on run of its own routine (a subtask's run, on its behalf), but not a run done on no one's behalf", async () => {
    h = await startHarness({ OFFICE_API_TOKEN: ADMIN });
    const ws = await createWorkspace();
    const worker = await createAgent(ws, { name: 'Worker', skip_idle_wakeups: false, max_concurrent_sessions: 2, executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '600000' }) });
    const parent = await post('/api/office/tasks', { workspace_id: ws, title: 'Quarter close' });
    const planner = await createAgent(ws, {
      name: 'Planner', skip_idle_wakeups: false,
      executor: fixtureAgent('api-call.mjs', {
        FIXTURE_PATH: '/api/office/tasks', FIXTURE_BODY: JSON.stringify({ workspace_id: ws, title: 'Reconcile the bank', parent_id: parent.id, assignee_agent_instance_id: worker }),
      }),
    });
    const alice = await post('/api/office/tokens', { name: 'alice', role: 'member' });
    const asAlice = (method: string, path: string, body?: unknown) => h!.api(method, path, body, bearer(alice.token));
    const routine = (await asAlice('POST', '/api/office/routines', { workspace_id: ws, name: 'Plan', assignee_agent_instance_id: planner, triggers: [{ kind: 'manual' }] })).body;
    expect((await asAlice('POST', `/api/office/routines/${routine.id}/fire`, {})).status).toBe(202);

    const followOn = await runningRunOf(`agent_id=${worker}`, "the subtask's run");
    expect(followOn).toMatchObject({ routine_id: null, on_behalf_of: alice.id });
    const admins = (await call('POST', `/api/office/agents/${worker}/wake`, { reason: 'by hand' }, 202)).wakeup.id;
    const notHers = await runningRunOf(`wakeup_id=${admins}`, "the admin's run");

    const refused = await asAlice('POST', `/api/office/runs/${notHers.id}/cancel`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('only an admin may cancel it');
    expect((await get(`/api/office/runs/${notHers.id}`)).status).toBe('running');

    const cancelled = await asAlice('POST', `/api/office/runs/${followOn.id}/cancel`, { reason: 'wrong account' });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ id: followOn.id, status: 'cancelled' });
    expect(await get(`/api/office/wakeups/${followOn.wakeup_id}`)).toMatchObject({ status: 'cancelled', cancel_reason: 'run_cancelled' });
  }, 60_000);
});
