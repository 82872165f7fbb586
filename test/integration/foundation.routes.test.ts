import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
type Res = { status: number; body: any };

function expect201(res: Res) {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(typeof res.body.id).toBe('string');
  expect(res.body.id.length).toBeGreaterThan(0);
}

/** The API.md error envelope: exactly {error:{code,message,details?}}. */
function expectEnvelope(res: Res, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(res.body.error)) expect(['code', 'message', 'details']).toContain(key);
}

/**
 * The error names the field: one of its details has the field as a path segment (e.g. `body.blocked_by.1`
 * names `blocked_by.1`), or, with no such detail, the message names it.
 */
function expectNamesField(res: Res, field: string) {
  const details: { path: string; message: string }[] = res.body.error.details ?? [];
  const inDetails = details.some((d) => `.${d.path}.`.includes(`.${field}.`));
  const inMessage = new RegExp(`(^|[^a-z_])${field.replace(/\./g, '\\.')}([^a-z_]|$)`).test(res.body.error.message);
  expect(inDetails || inMessage, `${JSON.stringify(res.body.error)} should name ${field}`).toBe(true);
}

// ---------------------------------------------------------------------------------------------
// Successful creates, on a harness of their own (their events wake agents in the background).
// ---------------------------------------------------------------------------------------------
describe('create routes answer 201 with the API.md fields', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => h?.stop());

  it('POST /api/office/workspaces creates a workspace with timezone UTC and recovery_lookback_hours 24 by default', async () => {
    const res = await h.api('POST', '/api/office/workspaces', { name: 'Acme' });
    expect201(res);
    expect(res.body).toMatchObject({ name: 'Acme', timezone: 'UTC', recovery_lookback_hours: 24 });
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.updated_at).toMatch(ISO);
    const got = await h.api('GET', `/api/office/workspaces/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('POST /api/office/workspaces keeps a valid IANA timezone and default_executor', async () => {
    const executor = fixtureAgent('succeed.mjs');
    const res = await h.api('POST', '/api/office/workspaces', { name: 'NY', timezone: 'America/New_York', default_executor: executor });
    expect201(res);
    expect(res.body).toMatchObject({ timezone: 'America/New_York', default_executor: executor });
  });

  it('recovery_lookback_hours is clamped to 1..720 on create (0 -> 1, 5000 -> 720)', async () => {
    const low = await h.api('POST', '/api/office/workspaces', { name: 'Low', recovery_lookback_hours: 0 });
    const high = await h.api('POST', '/api/office/workspaces', { name: 'High', recovery_lookback_hours: 5000 });
    const mid = await h.api('POST', '/api/office/workspaces', { name: 'Mid', recovery_lookback_hours: 48 });
    expect([low.status, high.status, mid.status]).toEqual([201, 201, 201]);
    expect(low.body.recovery_lookback_hours).toBe(1);
    expect(high.body.recovery_lookback_hours).toBe(720);
    expect(mid.body.recovery_lookback_hours).toBe(48);
    expect((await h.api('GET', `/api/office/workspaces/${high.body.id}`)).body.recovery_lookback_hours).toBe(720);
  });

  it('recovery_lookback_hours is clamped to 1..720 on PATCH (0 -> 1, 5000 -> 720)', async () => {
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Patchable' });
    const low = await h.api('PATCH', `/api/office/workspaces/${ws.body.id}`, { recovery_lookback_hours: 0 });
    expect(low.status).toBe(200);
    expect(low.body.recovery_lookback_hours).toBe(1);
    expect((await h.api('GET', `/api/office/workspaces/${ws.body.id}`)).body.recovery_lookback_hours).toBe(1);
    const high = await h.api('PATCH', `/api/office/workspaces/${ws.body.id}`, { recovery_lookback_hours: 5000 });
    expect(high.status).toBe(200);
    expect(high.body.recovery_lookback_hours).toBe(720);
    expect((await h.api('GET', `/api/office/workspaces/${ws.body.id}`)).body.recovery_lookback_hours).toBe(720);
  });

  it('POST /api/office/projects creates a project listed under its workspace', async () => {
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'P' });
    const res = await h.api('POST', '/api/office/projects', { workspace_id: ws.body.id, name: 'Site' });
    expect201(res);
    expect(res.body).toMatchObject({ workspace_id: ws.body.id, name: 'Site', default_executor: null });
    const list = await h.api('GET', `/api/office/projects?workspace_id=${ws.body.id}`);
    expect(list.body.map((p: any) => p.id)).toEqual([res.body.id]);
    expect((await h.api('GET', `/api/office/projects/${res.body.id}`)).body).toEqual(res.body);
  });

  it('POST /api/office/agents creates an idle agent with the role defaults and a live actor view', async () => {
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'A' });
    const res = await h.api('POST', '/api/office/agents', { workspace_id: ws.body.id, name: 'Worker', role: 'worker' });
    expect201(res);
    expect(res.body).toMatchObject({
      workspace_id: ws.body.id, name: 'Worker', role: 'worker', status: 'idle',
      skip_idle_wakeups: true, max_concurrent_sessions: 1, cooldown_sec: 10, executor: null,
    });
    expect(res.body.actor).toMatchObject({ state: expect.any(String), queued: 0, running: 0 });
    expect(res.body.actor).toHaveProperty('cooldown_until');
    const got = await h.api('GET', `/api/office/agents/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(res.body.id);
    expect(got.body.actor).toMatchObject({ queued: 0, running: 0 });
  });

  it('POST /api/office/agents keeps the given executor, concurrency and cooldown, and a coordinator does not skip idle wakeups', async () => {
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'B' });
    const executor = { kind: 'http', url: 'http://127.0.0.1:9/agent', timeout_sec: 5 };
    const res = await h.api('POST', '/api/office/agents', {
      workspace_id: ws.body.id, name: 'Boss', role: 'coordinator', executor, max_concurrent_sessions: 3, cooldown_sec: 0,
    });
    expect201(res);
    expect(res.body).toMatchObject({ role: 'coordinator', skip_idle_wakeups: false, executor, max_concurrent_sessions: 3, cooldown_sec: 0 });
  });

  it('POST /api/office/tasks creates a TODO task with its links, and /move changes its state', async () => {
    const ws = (await h.api('POST', '/api/office/workspaces', { name: 'T' })).body.id;
    const project = (await h.api('POST', '/api/office/projects', { workspace_id: ws, name: 'Proj' })).body.id;
    const agent = (await h.api('POST', '/api/office/agents', { workspace_id: ws, name: 'W', role: 'worker' })).body.id;
    const reviewer = (await h.api('POST', '/api/office/agents', { workspace_id: ws, name: 'R', role: 'specialist' })).body.id;
    const parent = (await h.api('POST', '/api/office/tasks', { workspace_id: ws, title: 'Parent' })).body.id;
    const blocker = (await h.api('POST', '/api/office/tasks', { workspace_id: ws, title: 'Blocker' })).body.id;
    const executor = fixtureAgent('succeed.mjs');

    const res = await h.api('POST', '/api/office/tasks', {
      workspace_id: ws, title: 'Ship it', description: 'all of it', assignee_agent_instance_id: agent, parent_id: parent,
      blocked_by: [blocker], requires_approval: true, reviewers: [reviewer], project_id: project, executor,
    });
    expect201(res);
    expect(res.body).toMatchObject({
      workspace_id: ws, title: 'Ship it', description: 'all of it', state: 'TODO', assignee_agent_instance_id: agent,
      parent_id: parent, blocked_by: [blocker], requires_approval: true, reviewers: [reviewer], project_id: project, executor,
    });
    expect(res.body.created_at).toMatch(ISO);
    const got = await h.api('GET', `/api/office/tasks/${res.body.id}`);
    expect(got.body).toMatchObject({ id: res.body.id, blocked_by: [blocker], reviewers: [reviewer], parent_id: parent });
    const listed = await h.api('GET', `/api/office/tasks?workspace_id=${ws}&assignee=${agent}`);
    expect(listed.body.map((t: any) => t.id)).toEqual([res.body.id]);

    const moved = await h.api('POST', `/api/office/tasks/${parent}/move`, { state: 'IN_PROGRESS' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: parent, state: 'IN_PROGRESS' });
    expect((await h.api('GET', `/api/office/tasks/${parent}`)).body.state).toBe('IN_PROGRESS');
    const cancelled = await h.api('POST', `/api/office/tasks/${blocker}/move`, { state: 'CANCELLED' });
    expect(cancelled.body).toMatchObject({ state: 'CANCELLED', completed_at: expect.stringMatching(ISO) });
  });

  it('POST /api/office/tasks/:id/comments creates a comment listed on the task', async () => {
    const ws = (await h.api('POST', '/api/office/workspaces', { name: 'C' })).body.id;
    const agent = (await h.api('POST', '/api/office/agents', { workspace_id: ws, name: 'W', role: 'worker' })).body.id;
    const task = (await h.api('POST', '/api/office/tasks', { workspace_id: ws, title: 'Discuss' })).body.id;
    const byUser = await h.api('POST', `/api/office/tasks/${task}/comments`, { body: 'Looks good', author_type: 'user', author_id: 'u_1' });
    expect201(byUser);
    expect(byUser.body).toMatchObject({ task_id: task, body: 'Looks good', author_type: 'user', author_id: 'u_1' });
    expect(byUser.body.created_at).toMatch(ISO);
    const byAgent = await h.api('POST', `/api/office/tasks/${task}/comments`, { body: 'On it', author_type: 'agent', author_id: agent });
    expect201(byAgent);
    const list = await h.api('GET', `/api/office/tasks/${task}/comments`);
    expect(list.body.map((c: any) => c.id)).toEqual([byUser.body.id, byAgent.body.id]);
  });

  it('POST /api/office/approvals creates a pending approval with an inbox item; resolve approves it once (a second resolve is a 409)', async () => {
    const ws = (await h.api('POST', '/api/office/workspaces', { name: 'Ap' })).body.id;
    const agent = (await h.api('POST', '/api/office/agents', { workspace_id: ws, name: 'W', role: 'worker' })).body.id;
    const task = (await h.api('POST', '/api/office/tasks', { workspace_id: ws, title: 'Spend money' })).body.id;
    const res = await h.api('POST', '/api/office/approvals', { task_id: task, requested_by_agent_id: agent, title: 'May I?' });
    expect201(res);
    expect(res.body).toMatchObject({ task_id: task, requested_by_agent_id: agent, title: 'May I?', status: 'pending' });
    const inbox = await h.api('GET', `/api/office/inbox?workspace_id=${ws}`);
    expect(inbox.body.some((item: any) => item.ref_id === res.body.id)).toBe(true);

    const resolved = await h.api('POST', `/api/office/approvals/${res.body.id}/resolve`, { status: 'approved', decision_note: 'go' });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ id: res.body.id, status: 'approved', decision_note: 'go' });
    expect(resolved.body.resolved_at).toMatch(ISO);
    const again = await h.api('POST', `/api/office/approvals/${res.body.id}/resolve`, { status: 'rejected' });
    expectEnvelope(again, 409, 'conflict');
    expect((await h.api('GET', `/api/office/approvals/${res.body.id}`)).body.status).toBe('approved');

    const taskless = await h.api('POST', '/api/office/approvals', { requested_by_agent_id: agent, title: 'No task' });
    expect201(taskless);
    expect(taskless.body.task_id).toBeNull();
  });

  it('POST /api/office/budgets creates budgets for each scope, each owned by the scope\'s workspace', async () => {
    const ws = (await h.api('POST', '/api/office/workspaces', { name: 'Bu' })).body.id;
    const project = (await h.api('POST', '/api/office/projects', { workspace_id: ws, name: 'P' })).body.id;
    const agent = (await h.api('POST', '/api/office/agents', { workspace_id: ws, name: 'W', role: 'worker' })).body.id;
    const base = { limit_usd: 12.5, period: 'monthly', action_on_exceed: 'pause_agent' };
    const forAgent = await h.api('POST', '/api/office/budgets', { ...base, scope: 'agent', scope_id: agent, alert_threshold_pct: 80 });
    expect201(forAgent);
    expect(forAgent.body).toMatchObject({
      scope: 'agent', scope_id: agent, limit_usd: 12.5, period: 'monthly', action_on_exceed: 'pause_agent', alert_threshold_pct: 80, workspace_id: ws,
    });
    const forProject = await h.api('POST', '/api/office/budgets', { ...base, scope: 'project', scope_id: project, period: 'daily', action_on_exceed: 'warn' });
    expect201(forProject);
    expect(forProject.body).toMatchObject({ scope: 'project', scope_id: project, workspace_id: ws, period: 'daily', action_on_exceed: 'warn' });
    const forWorkspace = await h.api('POST', '/api/office/budgets', { ...base, scope: 'workspace', scope_id: ws, period: 'total' });
    expect201(forWorkspace);
    expect(forWorkspace.body).toMatchObject({ scope: 'workspace', scope_id: ws, workspace_id: ws, period: 'total' });
    const list = await h.api('GET', `/api/office/budgets?workspace_id=${ws}`);
    expect(list.body).toHaveLength(3);
  });
});

// ---------------------------------------------------------------------------------------------
// Rejected requests: a quiet harness (nothing assigned, nothing running), so any row that
// appears after a rejected request was written by that request.
// ---------------------------------------------------------------------------------------------
const TABLES = [
  'workspaces', 'projects', 'agent_instances', 'tasks', 'task_blockers', 'task_reviewers', 'comments', 'approvals',
  'inbox_items', 'budgets', 'office_routines', 'office_routine_triggers', 'agent_wakeup_requests', 'runs',
  'activity_log', 'event_outbox',
];

describe('rejected requests answer 400/404/413/415 in the error envelope and write nothing', () => {
  let h: Harness;
  const A = { ws: '', project: '', agent: '', agent2: '', task: '', approval: '' };
  const B = { ws: '', project: '', agent: '', task: '' };

  const counts = async (): Promise<Record<string, number>> =>
    Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await h.inspect.count(t)])));
  /** Sends the request and asserts that no table gained or lost a row. */
  async function unchanged(send: () => Promise<Res>): Promise<Res> {
    const before = await counts();
    const res = await send();
    expect(await counts(), 'row counts after a rejected request').toEqual(before);
    return res;
  }
  const post = (path: string, body: unknown, headers?: Record<string, string>) => unchanged(() => h.api('POST', path, body, headers));
  const patch = (path: string, body: unknown) => unchanged(() => h.api('PATCH', path, body));

  async function created(path: string, body: unknown): Promise<string> {
    const res = await h.api('POST', path, body);
    if (res.status !== 201) throw new Error(`seed ${path} failed: ${JSON.stringify(res.body)}`);
    return res.body.id;
  }

  beforeAll(async () => {
    h = await startHarness({ OFFICE_BODY_LIMIT_BYTES: '2048' });
    for (const [side, name] of [[A, 'Alpha'], [B, 'Beta']] as const) {
      side.ws = await created('/api/office/workspaces', { name });
      side.project = await created('/api/office/projects', { workspace_id: side.ws, name: `${name} project` });
      side.agent = await created('/api/office/agents', { workspace_id: side.ws, name: `${name} worker`, role: 'worker' });
      side.task = await created('/api/office/tasks', { workspace_id: side.ws, title: `${name} task` });
    }
    A.agent2 = await created('/api/office/agents', { workspace_id: A.ws, name: 'Alpha second', role: 'worker' });
    A.approval = await created('/api/office/approvals', { requested_by_agent_id: A.agent, title: 'Pending' });
    // Let the seed's events be delivered and their outbox rows cleared before anything is counted.
    await h.scheduler.events.idle();
    await h.waitFor(async () => (await counts()).event_outbox === 0, 'the seed events to be acknowledged');
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('the row counter sees the server\'s commits (so "unchanged" below means nothing was written)', async () => {
    const before = await counts();
    expect(before.workspaces).toBe(2);
    expect(before.tasks).toBe(2);
    const res = await h.api('POST', '/api/office/workspaces', { name: 'Counted' });
    expect(res.status).toBe(201);
    expect(await counts()).toEqual({ ...before, workspaces: before.workspaces! + 1 });
  });

  describe('POST /api/office/workspaces', () => {
    it('400 naming name when it is missing', async () => {
      const res = await post('/api/office/workspaces', {});
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'name');
    });

    it('400 naming name when it is not a string', async () => {
      const res = await post('/api/office/workspaces', { name: 5 });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'name');
    });

    it('400 naming recovery_lookback_hours when it is not a number', async () => {
      const res = await post('/api/office/workspaces', { name: 'X', recovery_lookback_hours: '24' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'recovery_lookback_hours');
    });

    it('400 naming timezone when it is not an IANA time zone', async () => {
      const res = await post('/api/office/workspaces', { name: 'X', timezone: 'Mars/Olympus_Mons' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'timezone');
    });

    it('400 naming an unknown field', async () => {
      const res = await post('/api/office/workspaces', { name: 'X', colour: 'blue' });
      expectEnvelope(res, 400, 'validation_error');
      expect(res.body.error.message).toContain('colour');
    });

    it('PATCH with an invalid timezone is a 400 and leaves the workspace as it was', async () => {
      const before = (await h.api('GET', `/api/office/workspaces/${A.ws}`)).body;
      const res = await patch(`/api/office/workspaces/${A.ws}`, { timezone: 'Not/AZone', name: 'Renamed' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'timezone');
      expect((await h.api('GET', `/api/office/workspaces/${A.ws}`)).body).toEqual(before);
    });

    it('PATCH of an unknown workspace is a 404', async () => {
      expectEnvelope(await patch('/api/office/workspaces/ws_missing', { name: 'X' }), 404, 'not_found');
    });
  });

  describe('POST /api/office/projects', () => {
    it('400 naming workspace_id when it is missing', async () => {
      const res = await post('/api/office/projects', { name: 'P' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'workspace_id');
    });

    it('400 naming name when it is not a string', async () => {
      const res = await post('/api/office/projects', { workspace_id: A.ws, name: ['P'] });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'name');
    });

    it('404 naming workspace_id when the workspace does not exist', async () => {
      const res = await post('/api/office/projects', { workspace_id: 'ws_missing', name: 'P' });
      expectEnvelope(res, 404, 'not_found');
      expectNamesField(res, 'workspace_id');
    });
  });

  describe('POST /api/office/agents', () => {
    it('400 naming role when it is missing', async () => {
      const res = await post('/api/office/agents', { workspace_id: A.ws, name: 'W' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'role');
    });

    it('400 naming role when it is not one of the roles', async () => {
      const res = await post('/api/office/agents', { workspace_id: A.ws, name: 'W', role: 'intern' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'role');
    });

    it('400 naming max_concurrent_sessions when it is a string', async () => {
      const res = await post('/api/office/agents', { workspace_id: A.ws, name: 'W', role: 'worker', max_concurrent_sessions: '2' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'max_concurrent_sessions');
    });

    it('400 naming cooldown_sec when it is negative', async () => {
      const res = await post('/api/office/agents', { workspace_id: A.ws, name: 'W', role: 'worker', cooldown_sec: -1 });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'cooldown_sec');
    });

    it('400 naming executor.command when a command executor has no command', async () => {
      const res = await post('/api/office/agents', { workspace_id: A.ws, name: 'W', role: 'worker', executor: { kind: 'command' } });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'executor.command');
    });

    it('404 naming workspace_id when the workspace does not exist (and no heartbeat routine is installed)', async () => {
      const res = await post('/api/office/agents', { workspace_id: 'ws_missing', name: 'Boss', role: 'coordinator' });
      expectEnvelope(res, 404, 'not_found');
      expectNamesField(res, 'workspace_id');
    });
  });

  describe('POST /api/office/tasks', () => {
    it('400 naming title when it is missing', async () => {
      const res = await post('/api/office/tasks', { workspace_id: A.ws });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'title');
    });

    it('400 naming blocked_by when it is not an array', async () => {
      const res = await post('/api/office/tasks', { workspace_id: A.ws, title: 'T', blocked_by: A.task });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'blocked_by');
    });

    it('400 naming requires_approval when it is not a boolean', async () => {
      const res = await post('/api/office/tasks', { workspace_id: A.ws, title: 'T', requires_approval: 'yes' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'requires_approval');
    });

    it('404 naming workspace_id when the workspace does not exist', async () => {
      const res = await post('/api/office/tasks', { workspace_id: 'ws_missing', title: 'T' });
      expectEnvelope(res, 404, 'not_found');
      expectNamesField(res, 'workspace_id');
    });

    const unknownRefs: [string, Record<string, unknown>, string][] = [
      ['assignee_agent_instance_id', { assignee_agent_instance_id: 'agt_missing' }, 'assignee_agent_instance_id'],
      ['parent_id', { parent_id: 'tsk_missing' }, 'parent_id'],
      ['blocked_by', { blocked_by: ['tsk_missing'] }, 'blocked_by.0'],
      ['reviewers', { reviewers: ['agt_missing'] }, 'reviewers.0'],
      ['project_id', { project_id: 'prj_missing' }, 'project_id'],
    ];
    for (const [name, extra, field] of unknownRefs) {
      it(`404 naming ${field} when ${name} refers to nothing`, async () => {
        const res = await post('/api/office/tasks', { workspace_id: A.ws, title: 'T', ...extra });
        expectEnvelope(res, 404, 'not_found');
        expectNamesField(res, field);
      });
    }

    it('a later unknown blocker is named by its index and the valid ones before it are not written', async () => {
      const res = await post('/api/office/tasks', { workspace_id: A.ws, title: 'T', blocked_by: [A.task, 'tsk_missing'] });
      expectEnvelope(res, 404, 'not_found');
      expectNamesField(res, 'blocked_by.1');
    });
  });

  describe('cross-workspace references are a 400 that writes nothing', () => {
    const crossRefs: [string, () => Record<string, unknown>, string][] = [
      ['assigned to another workspace\'s agent', () => ({ assignee_agent_instance_id: B.agent }), 'assignee_agent_instance_id'],
      ['blocked by a task in another workspace', () => ({ blocked_by: [A.task, B.task] }), 'blocked_by.1'],
      ['whose parent is in another workspace', () => ({ parent_id: B.task }), 'parent_id'],
      ['reviewed by an agent of another workspace', () => ({ reviewers: [A.agent2, B.agent] }), 'reviewers.1'],
      ['in a project of another workspace', () => ({ project_id: B.project }), 'project_id'],
    ];
    for (const [what, extra, field] of crossRefs) {
      it(`a task ${what} (naming ${field})`, async () => {
        const res = await post('/api/office/tasks', { workspace_id: A.ws, title: 'Cross', ...extra() });
        expectEnvelope(res, 400, 'validation_error');
        expectNamesField(res, field);
        expect(res.body.error.message).toMatch(/another workspace/);
      });
    }

    const crossPatches: [string, () => Record<string, unknown>, string][] = [
      ['reassigning it to another workspace\'s agent', () => ({ assignee_agent_instance_id: B.agent }), 'assignee_agent_instance_id'],
      ['blocking it on a task of another workspace', () => ({ blocked_by: [B.task] }), 'blocked_by.0'],
      ['adding a reviewer of another workspace', () => ({ reviewers: [B.agent] }), 'reviewers.0'],
    ];
    for (const [what, body, field] of crossPatches) {
      it(`PATCH a task ${what} (naming ${field}) leaves the task as it was`, async () => {
        const before = (await h.api('GET', `/api/office/tasks/${A.task}`)).body;
        const res = await patch(`/api/office/tasks/${A.task}`, { title: 'Renamed', ...body() });
        expectEnvelope(res, 400, 'validation_error');
        expectNamesField(res, field);
        expect((await h.api('GET', `/api/office/tasks/${A.task}`)).body).toEqual(before);
      });
    }

    it('a comment by an agent of another workspace (naming author_id)', async () => {
      const res = await post(`/api/office/tasks/${A.task}/comments`, { body: 'hi', author_type: 'agent', author_id: B.agent });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'author_id');
    });

    it('an approval for a task in another workspace than the requesting agent (naming task_id)', async () => {
      const res = await post('/api/office/approvals', { task_id: B.task, requested_by_agent_id: A.agent, title: 'Cross' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'task_id');
    });
  });

  describe('POST /api/office/tasks/:id/move', () => {
    it('400 naming state when it is missing', async () => {
      const res = await post(`/api/office/tasks/${A.task}/move`, {});
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'state');
    });

    it('400 naming state when it is not a kanban state, and the task keeps its state', async () => {
      const res = await post(`/api/office/tasks/${A.task}/move`, { state: 'DOING' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'state');
      expect((await h.api('GET', `/api/office/tasks/${A.task}`)).body.state).toBe('TODO');
    });

    it('400 naming state when it is not a string', async () => {
      const res = await post(`/api/office/tasks/${A.task}/move`, { state: 3 });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'state');
    });

    it('404 for an unknown task', async () => {
      const res = await post('/api/office/tasks/tsk_missing/move', { state: 'DONE' });
      expectEnvelope(res, 404, 'not_found');
      expect(res.body.error.message).toContain('tsk_missing');
    });
  });

  describe('POST /api/office/tasks/:id/comments', () => {
    it('400 naming body when it is missing', async () => {
      const res = await post(`/api/office/tasks/${A.task}/comments`, { author_type: 'user', author_id: 'u' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'body');
    });

    it('400 naming author_type when it is neither user nor agent', async () => {
      const res = await post(`/api/office/tasks/${A.task}/comments`, { body: 'hi', author_type: 'robot', author_id: 'u' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'author_type');
    });

    it('400 naming author_id when it is not a string', async () => {
      const res = await post(`/api/office/tasks/${A.task}/comments`, { body: 'hi', author_type: 'user', author_id: 7 });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'author_id');
    });

    it('404 naming the task when the task does not exist', async () => {
      const res = await post('/api/office/tasks/tsk_missing/comments', { body: 'hi', author_type: 'user', author_id: 'u' });
      expectEnvelope(res, 404, 'not_found');
      expect(res.body.error.message).toContain('tsk_missing');
    });

    it('404 naming author_id when the authoring agent does not exist', async () => {
      const res = await post(`/api/office/tasks/${A.task}/comments`, { body: 'hi', author_type: 'agent', author_id: 'agt_missing' });
      expectEnvelope(res, 404, 'not_found');
      expectNamesField(res, 'author_id');
    });
  });

  describe('POST /api/office/approvals and /resolve', () => {
    it('400 naming requested_by_agent_id when it is missing', async () => {
      const res = await post('/api/office/approvals', { title: 'T' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'requested_by_agent_id');
    });

    it('400 naming title when it is not a string', async () => {
      const res = await post('/api/office/approvals', { requested_by_agent_id: A.agent, title: { text: 'T' } });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'title');
    });

    it('404 naming requested_by_agent_id when the agent does not exist', async () => {
      const res = await post('/api/office/approvals', { requested_by_agent_id: 'agt_missing', title: 'T' });
      expectEnvelope(res, 404, 'not_found');
      expectNamesField(res, 'requested_by_agent_id');
    });

    it('404 naming task_id when the task does not exist', async () => {
      const res = await post('/api/office/approvals', { task_id: 'tsk_missing', requested_by_agent_id: A.agent, title: 'T' });
      expectEnvelope(res, 404, 'not_found');
      expectNamesField(res, 'task_id');
    });

    it('resolve: 400 naming status when it is missing or not approved/rejected, and the approval stays pending', async () => {
      const missing = await post(`/api/office/approvals/${A.approval}/resolve`, {});
      expectEnvelope(missing, 400, 'validation_error');
      expectNamesField(missing, 'status');
      const wrong = await post(`/api/office/approvals/${A.approval}/resolve`, { status: 'maybe' });
      expectEnvelope(wrong, 400, 'validation_error');
      expectNamesField(wrong, 'status');
      const wrongType = await post(`/api/office/approvals/${A.approval}/resolve`, { status: true });
      expectEnvelope(wrongType, 400, 'validation_error');
      expectNamesField(wrongType, 'status');
      expect((await h.api('GET', `/api/office/approvals/${A.approval}`)).body.status).toBe('pending');
    });

    it('resolve: 404 for an unknown approval', async () => {
      const res = await post('/api/office/approvals/apr_missing/resolve', { status: 'approved' });
      expectEnvelope(res, 404, 'not_found');
      expect(res.body.error.message).toContain('apr_missing');
    });
  });

  describe('POST /api/office/budgets', () => {
    const valid = () => ({ scope: 'agent', scope_id: A.agent, limit_usd: 10, period: 'daily', action_on_exceed: 'warn' });

    it('400 naming scope when it is missing', async () => {
      const { scope: _scope, ...body } = valid();
      const res = await post('/api/office/budgets', body);
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'scope');
    });

    it('400 naming limit_usd when it is a string', async () => {
      const res = await post('/api/office/budgets', { ...valid(), limit_usd: '10' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'limit_usd');
    });

    it('400 naming limit_usd when it is negative', async () => {
      const res = await post('/api/office/budgets', { ...valid(), limit_usd: -1 });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'limit_usd');
    });

    it('400 naming period when it is not daily, monthly or total', async () => {
      const res = await post('/api/office/budgets', { ...valid(), period: 'weekly' });
      expectEnvelope(res, 400, 'validation_error');
      expectNamesField(res, 'period');
    });

    it('404 naming scope_id when the scoped agent does not exist', async () => {
      const res = await post('/api/office/budgets', { ...valid(), scope_id: 'agt_missing' });
      expectEnvelope(res, 404, 'not_found');
      expectNamesField(res, 'scope_id');
    });

    it('404 naming scope_id when the id is of another kind than the scope (an agent id as a project)', async () => {
      const res = await post('/api/office/budgets', { ...valid(), scope: 'project', scope_id: A.agent });
      expectEnvelope(res, 404, 'not_found');
      expectNamesField(res, 'scope_id');
    });
  });

  describe('request hygiene', () => {
    it('a body over OFFICE_BODY_LIMIT_BYTES is a 413 in the envelope', async () => {
      const res = await post('/api/office/workspaces', { name: 'x'.repeat(4000) });
      expectEnvelope(res, 413, 'payload_too_large');
    });

    it('malformed JSON is a 400 in the envelope', async () => {
      const res = await post('/api/office/workspaces', '{"name": "unterminated');
      expectEnvelope(res, 400, 'validation_error');
      expect(res.body.error.message).toMatch(/JSON/);
    });

    it('a text/plain body on a JSON route is a 415 in the envelope', async () => {
      const res = await post('/api/office/workspaces', 'name=Plain', { 'content-type': 'text/plain' });
      expectEnvelope(res, 415, 'unsupported_media_type');
    });

    it('a form-encoded body on a JSON route is a 415 in the envelope', async () => {
      const res = await post('/api/office/workspaces', 'name=Form', { 'content-type': 'application/x-www-form-urlencoded' });
      expectEnvelope(res, 415, 'unsupported_media_type');
    });

    it('JSON nested 100 levels deep is a 400 in the envelope (objects and arrays)', async () => {
      let nested: unknown = 'bottom';
      for (let i = 0; i < 100; i++) nested = { a: nested };
      const objects = await post('/api/office/workspaces', { name: 'Deep', extra: nested });
      expectEnvelope(objects, 400, 'validation_error');
      expect(objects.body.error.message).toMatch(/nested|deep/i);
      const arrays = await post('/api/office/tasks', `{"workspace_id":"${A.ws}","title":"Deep","blocked_by":${'['.repeat(100)}${']'.repeat(100)}}`);
      expectEnvelope(arrays, 400, 'validation_error');
    });

    it('brackets inside JSON strings do not count as nesting', async () => {
      // A valid body whose strings hold many brackets is judged on its content: here an unknown key.
      const res = await post('/api/office/workspaces', { name: '['.repeat(200), bogus: '{'.repeat(200) });
      expectEnvelope(res, 400, 'validation_error');
      expect(res.body.error.message).toContain('bogus');
    });

    it('an unknown route is a 404 in the envelope', async () => {
      expectEnvelope(await post('/api/office/nothing-here', { a: 1 }), 404, 'not_found');
      expectEnvelope(await h.api('GET', '/api/office/nothing-here'), 404, 'not_found');
      expectEnvelope(await h.api('DELETE', '/api/office/workspaces'), 404, 'not_found');
      expectEnvelope(await post('/no-such-route', { a: 1 }), 404, 'not_found');
    });

    it('GET of an unknown id is a 404 in the envelope', async () => {
      for (const path of ['workspaces/ws_x', 'projects/prj_x', 'agents/agt_x', 'tasks/tsk_x', 'approvals/apr_x']) {
        const res = await h.api('GET', `/api/office/${path}`);
        expectEnvelope(res, 404, 'not_found');
      }
    });
  });

  describe('system endpoints', () => {
    it('/openapi.json is valid JSON with an openapi version and the office paths', async () => {
      const response = await fetch(`${h.url}/openapi.json`);
      expect(response.status).toBe(200);
      const doc = JSON.parse(await response.text());
      expect(doc.openapi).toMatch(/^3\./);
      for (const path of ['/api/office/tasks', '/api/office/workspaces', '/api/office/agents', '/api/office/approvals', '/api/office/budgets']) {
        expect(Object.keys(doc.paths)).toContain(path);
      }
      // Generated from the zod schema that validates the request.
      const schema = doc.paths['/api/office/workspaces'].post.requestBody.content['application/json'].schema;
      expect(schema.required).toContain('name');
      expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['name', 'timezone', 'recovery_lookback_hours']));
    });

    it('/healthz answers 200 and /readyz answers 200 once started', async () => {
      expect((await h.api('GET', '/healthz')).status).toBe(200);
      expect((await h.api('GET', '/readyz')).status).toBe(200);
    });

    it('/metrics serves Prometheus text with office_sql_statements_total', async () => {
      const response = await fetch(`${h.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await response.text()).toMatch(/^office_sql_statements_total \d+$/m);
    });
  });
});
