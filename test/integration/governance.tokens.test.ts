/**
 * Governance through the real HTTP server (API.md, "Governance"): named tokens with a role, routine
 * owners taken from the credential, a member refused on anyone else's routine, and revocation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

const ADMIN = 'governance-admin-token';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let h: Harness;
let workspaceId: string;
let agentId: string;

interface Member { id: string; token: string }

async function createToken(name: string, role: 'admin' | 'member' = 'member', as = ADMIN): Promise<Member> {
  const created = await h.api('POST', '/api/office/tokens', { name, role }, bearer(as));
  expect(created.status).toBe(201);
  return { id: created.body.id, token: created.body.token };
}

async function createRoutine(as: string, extra: Record<string, unknown> = {}) {
  return h.api('POST', '/api/office/routines', {
    workspace_id: workspaceId, name: 'Digest', assignee_agent_instance_id: agentId,
    triggers: [{ kind: 'manual' }, { kind: 'schedule', cron_expression: '0 3 * * *' }], ...extra,
  }, bearer(as));
}

beforeAll(async () => {
  h = await startHarness({ OFFICE_API_TOKEN: ADMIN });
  workspaceId = (await h.api('POST', '/api/office/workspaces', { name: 'Acme' }, bearer(ADMIN))).body.id;
  agentId = (await h.api('POST', '/api/office/agents', {
    workspace_id: workspaceId, name: 'Worker', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs'),
  }, bearer(ADMIN))).body.id;
});

afterAll(async () => {
  await h?.stop();
});

describe('named API tokens', () => {
  it('an admin creates a token whose secret is shown once; the list has no secrets; a member may not create or list tokens', async () => {
    const created = await h.api('POST', '/api/office/tokens', { name: 'ci', role: 'member' }, bearer(ADMIN));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'ci', role: 'member' });
    expect(created.body.token).toMatch(/^ost_[A-Za-z0-9_-]{43}$/);
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'id', 'name', 'role', 'token']);

    const listed = await h.api('GET', '/api/office/tokens', undefined, bearer(ADMIN));
    expect(listed.status).toBe(200);
    const entry = listed.body.find((t: any) => t.id === created.body.id);
    expect(entry).toEqual({ id: created.body.id, name: 'ci', role: 'member', created_at: created.body.created_at, revoked_at: null });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);
    const stored = await h.inspect.rows<{ token_hash: string }>('api_tokens', { id: created.body.id });
    expect(stored[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]!.token_hash).not.toContain(created.body.token);

    const member = bearer(created.body.token);
    const refused = await h.api('POST', '/api/office/tokens', { name: 'escalate', role: 'admin' }, member);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('only an admin');
    expect((await h.api('GET', '/api/office/tokens', undefined, member)).status).toBe(403);
    expect((await h.api('DELETE', `/api/office/tokens/${created.body.id}`, undefined, member)).status).toBe(403);
    // A member reads like anyone with a token.
    expect((await h.api('GET', `/api/office/agents/${agentId}`, undefined, member)).status).toBe(200);
  });

  it('a token created with role admin may do what the bootstrap admin does', async () => {
    const second = await createToken('ops', 'admin');
    const byHim = await h.api('POST', '/api/office/tokens', { name: 'made-by-ops', role: 'member' }, bearer(second.token));
    expect(byHim.status).toBe(201);
  });

  it('a bad body is a 400 naming the field, and an unknown token id a 404', async () => {
    const bad = await h.api('POST', '/api/office/tokens', { name: 'x', role: 'owner' }, bearer(ADMIN));
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('role');
    expect((await h.api('DELETE', '/api/office/tokens/tok_missing', undefined, bearer(ADMIN))).status).toBe(404);
  });
});

describe('routine owners', () => {
  it('a routine is owned by the token that created it, whatever the body says; a member naming another owner gets a 403 and nothing is created', async () => {
    const alice = await createToken('alice');
    const mine = await createRoutine(alice.token);
    expect(mine.status).toBe(201);
    expect(mine.body.owner_id).toBe(alice.id);
    expect((await createRoutine(ADMIN)).body.owner_id).toBe('admin');

    const before = (await h.api('GET', `/api/office/routines?workspace_id=${workspaceId}`, undefined, bearer(ADMIN))).body.length;
    const smuggled = await createRoutine(alice.token, { name: 'Not mine', owner_id: 'admin' });
    expect(smuggled.status).toBe(403);
    expect(smuggled.body.error.message).toContain("owner_id 'admin'");
    expect((await h.api('GET', `/api/office/routines?workspace_id=${workspaceId}`, undefined, bearer(ADMIN))).body).toHaveLength(before);
    // Naming itself is no smuggling.
    expect((await createRoutine(alice.token, { owner_id: alice.id })).status).toBe(201);
    // An admin may name any owner.
    expect((await createRoutine(ADMIN, { owner_id: alice.id })).body.owner_id).toBe(alice.id);
  });

  it('a member cannot pause, fire, change, delete or edit the triggers of another member\'s routine (403 with the reason); the owner and an admin can', async () => {
    const alice = await createToken('alice');
    const bob = await createToken('bob');
    const routine = (await createRoutine(alice.token)).body;
    const schedule = routine.triggers.find((t: any) => t.kind === 'schedule');
    const asBob = bearer(bob.token);

    const attempts: [string, string, unknown][] = [
      ['PATCH', `/api/office/routines/${routine.id}`, { status: 'paused' }],
      ['PATCH', `/api/office/routines/${routine.id}`, { name: 'Renamed by bob' }],
      ['POST', `/api/office/routines/${routine.id}/fire`, {}],
      ['DELETE', `/api/office/routines/${routine.id}`, undefined],
      ['POST', `/api/office/routines/${routine.id}/triggers`, { kind: 'manual' }],
      ['PATCH', `/api/office/routine-triggers/${schedule.id}`, { enabled: false }],
      ['DELETE', `/api/office/routine-triggers/${schedule.id}`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      const refused = await h.api(method, path, body, asBob);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden' });
      expect(refused.body.error.message).toContain(`owned by ${alice.id}`);
    }
    const untouched = (await h.api('GET', `/api/office/routines/${routine.id}`, undefined, asBob)).body;
    expect(untouched).toMatchObject({ status: 'active', name: 'Digest', recent_runs: [] });
    expect(untouched.triggers).toHaveLength(2);
    expect(untouched.triggers.find((t: any) => t.id === schedule.id).enabled).toBe(true);

    // The owner may, and may not hand it to someone else.
    const asAlice = bearer(alice.token);
    expect((await h.api('PATCH', `/api/office/routines/${routine.id}`, { status: 'paused' }, asAlice)).body.status).toBe('paused');
    const handOff = await h.api('PATCH', `/api/office/routines/${routine.id}`, { owner_id: bob.id }, asAlice);
    expect(handOff.status).toBe(403);
    expect(handOff.body.error.message).toContain('only an admin');
    expect((await h.api('PATCH', `/api/office/routines/${routine.id}`, { status: 'active' }, asAlice)).body.status).toBe('active');

    // An admin may do all of it.
    const asAdmin = bearer(ADMIN);
    expect((await h.api('PATCH', `/api/office/routines/${routine.id}`, { status: 'paused' }, asAdmin)).body.status).toBe('paused');
    expect((await h.api('PATCH', `/api/office/routines/${routine.id}`, { status: 'active', name: 'Renamed by admin' }, asAdmin)).body.name).toBe('Renamed by admin');
    expect((await h.api('POST', `/api/office/routines/${routine.id}/fire`, {}, asAdmin)).status).toBe(202);
    expect((await h.api('POST', `/api/office/routines/${routine.id}/triggers`, { kind: 'webhook', signing_mode: 'none' }, asAdmin)).status).toBe(201);
    expect((await h.api('PATCH', `/api/office/routine-triggers/${schedule.id}`, { enabled: false }, asAdmin)).status).toBe(200);
    expect((await h.api('DELETE', `/api/office/routine-triggers/${schedule.id}`, undefined, asAdmin)).status).toBe(204);
    expect((await h.api('PATCH', `/api/office/routines/${routine.id}`, { owner_id: bob.id }, asAdmin)).body.owner_id).toBe(bob.id);
    expect((await h.api('DELETE', `/api/office/routines/${routine.id}`, undefined, asAdmin)).status).toBe(204);
  });
});

describe('a coordinator\'s heartbeat', () => {
  it('is owned by the token that created the coordinator (creating agents is an admin\'s), which may pause it; a member may not', async () => {
    const erin = await createToken('erin', 'admin');
    const coordinator = await h.api('POST', '/api/office/agents', { workspace_id: workspaceId, name: 'Coordinator', role: 'coordinator' }, bearer(erin.token));
    expect(coordinator.status).toBe(201);
    const routines = (await h.api('GET', `/api/office/routines?workspace_id=${workspaceId}`, undefined, bearer(ADMIN))).body;
    const heartbeat = routines.find((r: any) => r.assignee_agent_instance_id === coordinator.body.id);
    expect(heartbeat).toMatchObject({ name: 'Coordinator heartbeat', owner_id: erin.id });
    const frank = await createToken('frank');
    expect((await h.api('PATCH', `/api/office/routines/${heartbeat.id}`, { status: 'paused' }, bearer(frank.token))).status).toBe(403);
    expect((await h.api('PATCH', `/api/office/routines/${heartbeat.id}`, { status: 'paused' }, bearer(erin.token))).body.status).toBe('paused');
  });
});

describe('revoking a token', () => {
  it('a revoked token is a 401, and its active routines pause with the reason until an admin gives them a new owner, which resumes them', async () => {
    const carol = await createToken('carol');
    const asCarol = bearer(carol.token);
    const active = (await createRoutine(carol.token, { name: 'Carol active' })).body;
    const pausedByHand = (await createRoutine(carol.token, { name: 'Carol paused', status: 'paused' })).body;
    const others = (await createRoutine(ADMIN, { name: 'Admin routine' })).body;
    expect((await h.api('GET', `/api/office/routines/${active.id}`, undefined, asCarol)).status).toBe(200);

    expect((await h.api('DELETE', `/api/office/tokens/${carol.id}`, undefined, bearer(ADMIN))).status).toBe(204);

    const denied = await h.api('GET', `/api/office/routines/${active.id}`, undefined, asCarol);
    expect(denied.status).toBe(401);
    expect(denied.body.error.message).toContain('revoked');
    expect((await h.api('POST', `/api/office/routines/${active.id}/fire`, {}, asCarol)).status).toBe(401);
    const listed = (await h.api('GET', '/api/office/tokens', undefined, bearer(ADMIN))).body.find((t: any) => t.id === carol.id);
    expect(listed.revoked_at).toEqual(expect.any(String));

    const get = async (id: string) => (await h.api('GET', `/api/office/routines/${id}`, undefined, bearer(ADMIN))).body;
    expect(await get(active.id)).toMatchObject({ status: 'paused', paused_reason: "owner's token was revoked", owner_id: carol.id });
    expect(await get(pausedByHand.id)).toMatchObject({ status: 'paused', paused_reason: null });
    expect(await get(others.id)).toMatchObject({ status: 'active' });
    const decisions = (await h.api('GET', `/api/office/activity?workspace_id=${workspaceId}&code=routine_paused`, undefined, bearer(ADMIN))).body;
    expect(decisions.filter((e: any) => e.routine_id === active.id)).toEqual([
      expect.objectContaining({ actor_type: 'user', actor_id: 'admin', message: expect.stringContaining(`its owner's token ${carol.id} ('carol') was revoked`) }),
    ]);
    expect(decisions.filter((e: any) => e.routine_id === pausedByHand.id)).toEqual([]);

    // Revoking again changes nothing.
    expect((await h.api('DELETE', `/api/office/tokens/${carol.id}`, undefined, bearer(ADMIN))).status).toBe(204);

    // Active again only with a new owner.
    const stillRevoked = await h.api('PATCH', `/api/office/routines/${active.id}`, { status: 'active' }, bearer(ADMIN));
    expect(stillRevoked.status).toBe(409);
    expect(stillRevoked.body.error.message).toContain('giving it a new owner');
    expect((await h.api('PATCH', `/api/office/routines/${others.id}`, { owner_id: carol.id }, bearer(ADMIN))).status).toBe(409);
    const dave = await createToken('dave');
    const handed = await h.api('PATCH', `/api/office/routines/${active.id}`, { owner_id: dave.id }, bearer(ADMIN));
    expect(handed.status).toBe(200);
    expect(handed.body).toMatchObject({ owner_id: dave.id, status: 'active', paused_reason: null });
    // A routine its owner had paused by hand stays paused when it changes hands.
    expect((await h.api('PATCH', `/api/office/routines/${pausedByHand.id}`, { owner_id: dave.id }, bearer(ADMIN))).body.status).toBe('paused');
    const changed = (await h.api('GET', `/api/office/activity?workspace_id=${workspaceId}&code=routine_owner_changed`, undefined, bearer(ADMIN))).body;
    expect(changed.find((e: any) => e.routine_id === active.id).message).toContain('it resumes');
    // The new owner manages it.
    expect((await h.api('POST', `/api/office/routines/${active.id}/fire`, {}, bearer(dave.token))).status).toBe(202);
  });
});

describe('with no OFFICE_API_TOKEN', () => {
  it('the local caller is the admin and owns what it creates as "admin"; a named member token still acts as that member', async () => {
    const local = await startHarness();
    try {
      const ws = (await local.api('POST', '/api/office/workspaces', { name: 'Local' })).body.id;
      const agent = (await local.api('POST', '/api/office/agents', { workspace_id: ws, name: 'W', role: 'worker', executor: fixtureAgent('succeed.mjs') })).body.id;
      const routine = (await local.api('POST', '/api/office/routines', { workspace_id: ws, name: 'R', assignee_agent_instance_id: agent, triggers: [{ kind: 'manual' }] })).body;
      expect(routine.owner_id).toBe('admin');
      const member = (await local.api('POST', '/api/office/tokens', { name: 'member', role: 'member' })).body;
      const refused = await local.api('POST', `/api/office/routines/${routine.id}/fire`, {}, bearer(member.token));
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toContain('owned by admin');
      expect((await local.api('DELETE', `/api/office/tokens/${member.id}`)).status).toBe(204);
      expect((await local.api('GET', '/api/office/tokens', undefined, bearer(member.token))).status).toBe(401);
    } finally {
      await local.stop();
    }
  });
});
