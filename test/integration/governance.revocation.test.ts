/**
 * Revoking a token stops its unattended work (API.md, "Trust boundaries"): the wakeups done on its
 * behalf that have not started end `cancelled` (owner_revoked), their running runs are stopped, and a
 * routine cannot be owned by an unknown or revoked token, on create as on PATCH. Real server, SQLite
 * file, real child processes; the coalescing hold and the retry backoff run on a clock that moves only
 * when the test moves it.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { pidsWhere } from '../helpers/processes.js';

const ADMIN = 'revocation-admin-token';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, post, listActivity, createWorkspace, createAgent, settled } = apiClient(() => h, { headers: () => bearer(ADMIN) });

function stillClock(): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(Date.UTC(2026, 0, 5, 9, 0, 0));
  return clock;
}

const sleeper = (marker: string) => {
  const executor = fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: '600000' });
  return { ...executor, args: [...(executor as { args: string[] }).args, marker] };
};

describe('revoking a token', () => {
  it('cancels the queued and retrying wakeups done on its behalf (owner_revoked) and stops their running run, each with an activity entry; an admin\'s work goes on', async () => {
    const clock = stillClock();
    h = await startHarness({ OFFICE_API_TOKEN: ADMIN }, undefined, clock);
    const marker = `office-revoke-${randomUUID()}`;
    const ws = await createWorkspace();
    const busy = await createAgent(ws, { name: 'Busy', skip_idle_wakeups: false, executor: sleeper(marker) });
    const failing = await createAgent(ws, { name: 'Failing', skip_idle_wakeups: false, executor: fixtureAgent('fail.mjs') });
    const bystander = await createAgent(ws, { name: 'Bystander', skip_idle_wakeups: false, executor: sleeper(`${marker}-admin`) });
    const alice = await post('/api/office/tokens', { name: 'alice', role: 'member' });
    const asAlice = (method: string, path: string, body?: unknown) => h!.api(method, path, body, bearer(alice.token));
    const routine = async (name: string, agent: string) => (await asAlice('POST', '/api/office/routines', {
      workspace_id: ws, name, assignee_agent_instance_id: agent, concurrency_policy: 'always_enqueue', triggers: [{ kind: 'manual' }],
    })).body.id as string;
    const nightly = await routine('Nightly', busy);
    const flaky = await routine('Flaky', failing);
    const fire = async (id: string) => (await asAlice('POST', `/api/office/routines/${id}/fire`, {})).body.routine_run.linked_wakeup_id as string;

    // Alice's work: one run in progress, one wakeup queued behind it, one waiting for its retry.
    const running = await fire(nightly);
    clock.set(clock.now() + 1_000);
    const run = await h.waitFor(async () => {
      const w = await get(`/api/office/wakeups/${running}`);
      const r = w.run_id ? await get(`/api/office/runs/${w.run_id}`) : null;
      return r?.status === 'running' && r.session_pid ? r : null;
    }, "alice's run to be running");
    const queued = await fire(nightly);
    const retrying = await fire(flaky);
    clock.set(clock.now() + 1_000);
    await h.waitFor(async () => (await get(`/api/office/wakeups/${retrying}`)).status === 'scheduled_retry', 'the failed fire to wait for its retry');
    await settled();
    expect((await get(`/api/office/wakeups/${queued}`)).status).toBe('queued');
    // The admin's own work, which the revocation leaves alone.
    const adminWake = (await call('POST', `/api/office/agents/${bystander}/wake`, { reason: 'mine' }, 202)).wakeup.id;
    await h.waitFor(async () => (await get(`/api/office/wakeups/${adminWake}`)).status === 'claimed', "the admin's wakeup to run");

    expect((await h.api('DELETE', `/api/office/tokens/${alice.id}`, undefined, bearer(ADMIN))).status).toBe(204);

    for (const id of [queued, retrying, running]) {
      expect(await get(`/api/office/wakeups/${id}`), id).toMatchObject({ status: 'cancelled', cancel_reason: 'owner_revoked' });
    }
    expect(await get(`/api/office/runs/${run.id}`)).toMatchObject({ status: 'cancelled' });
    await h.waitFor(() => pidsWhere((argv) => argv.includes(marker)).length === 0, "alice's session to be stopped", 10_000);
    const cancelled = await listActivity({ workspace_id: ws, code: 'wakeup_cancelled' });
    expect(cancelled.map((e: any) => e.wakeup_id).sort()).toEqual([queued, retrying].sort());
    for (const entry of cancelled) expect(entry).toMatchObject({ actor_type: 'user', actor_id: 'admin', details: { reason: 'owner_revoked', revoked_token_id: alice.id } });
    const [stopped] = await listActivity({ workspace_id: ws, code: 'run_cancelled' });
    expect(stopped).toMatchObject({ run_id: run.id, actor_type: 'user', actor_id: 'admin', on_behalf_of: alice.id, details: { cancel_reason: 'owner_revoked' } });

    // Nothing of it comes back: the retry's time passes with no second attempt; the admin's session still runs.
    clock.set(clock.now() + 60_000);
    await settled();
    expect(await get(`/api/office/runs?agent_id=${failing}`)).toHaveLength(1);
    expect(await get(`/api/office/runs?agent_id=${busy}`)).toHaveLength(1);
    expect((await get(`/api/office/wakeups/${adminWake}`)).status).toBe('claimed');
    expect(pidsWhere((argv) => argv.includes(`${marker}-admin`))).toHaveLength(1);
  }, 60_000);

  it('a routine\'s owner_id must name a live token or "admin": an unknown or revoked one is a 409 on create, as on PATCH, and nothing is created', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: ADMIN });
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { name: 'Worker' });
    const bob = await post('/api/office/tokens', { name: 'bob', role: 'member' });
    const gone = await post('/api/office/tokens', { name: 'gone', role: 'member' });
    await call('DELETE', `/api/office/tokens/${gone.id}`, undefined, 204);
    const create = (owner: string) => h!.api('POST', '/api/office/routines', {
      workspace_id: ws, name: `Owned by ${owner}`, assignee_agent_instance_id: agent, owner_id: owner, triggers: [{ kind: 'manual' }],
    }, bearer(ADMIN));

    for (const [owner, says] of [['tok_nobody', 'names no API token'], [gone.id, 'is a revoked token']] as const) {
      const refused = await create(owner);
      expect(refused.status, owner).toBe(409);
      expect(refused.body.error.message).toContain(says);
    }
    expect(await get(`/api/office/routines?workspace_id=${ws}`)).toEqual([]);

    const owned = await create(bob.id);
    expect(owned.status).toBe(201);
    expect((await create('admin')).status).toBe(201);
    for (const owner of ['tok_nobody', gone.id]) {
      const patched = await h.api('PATCH', `/api/office/routines/${owned.body.id}`, { owner_id: owner }, bearer(ADMIN));
      expect(patched.status, owner).toBe(409);
    }
    expect((await get(`/api/office/routines/${owned.body.id}`)).owner_id).toBe(bob.id);
  });
});
