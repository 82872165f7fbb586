/**
 * What an agent can do from inside its run: follow-up actions in result_json.actions (self_wake,
 * comment, move_task), and API calls with its OFFICE_RUN_TOKEN. Real child-process agents.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const ms = (iso: string) => new Date(iso).getTime();

/** Extra headers on every call the test makes as the user (the API token, when one is set). */
let userHeaders: Record<string, string> = {};

const {
  call, get, listWakeups, listRuns, listActivity, createWorkspace, createAgent, createTask, settled, waitForWakeupEnd,
} = apiClient(() => h, { headers: () => userHeaders });

const agent = (workspaceId: string, name: string, executor: unknown, extra: Record<string, unknown> = {}): Promise<string> =>
  createAgent(workspaceId, { name, executor, ...extra });

/** The agent's first run, once it has ended. */
async function firstRun(agentId: string): Promise<any> {
  return h!.waitFor(async () => {
    const runs = await listRuns({ agent_id: agentId });
    const run = runs[runs.length - 1];
    return run && run.status !== 'running' && run.status !== 'queued' ? run : null;
  }, `the first run of ${agentId}`);
}

function recordOf(dir: string, runId: string): { env: Record<string, string>; prompt: string; started_at: number } {
  return JSON.parse(readFileSync(join(dir, `${runId}.json`), 'utf8'));
}

describe('result_json.actions', () => {
  it('self_wake with delay_sec 1 queues a `self` wakeup available ~1 s after the run finished, and it runs only after that', async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const ws = await createWorkspace();
    const agentId = await agent(ws, 'Poller', fixtureAgent('json-actions.mjs', {
      FIXTURE_RESULT: JSON.stringify({ summary: 'CI still running', actions: [{ type: 'self_wake', reason: 'check later', delay_sec: 1 }] }),
      FIXTURE_RECORD_DIR: record,
    }));
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'watch CI' }, 202);
    const first = await firstRun(agentId);
    expect(first.status).toBe('succeeded');
    // The next run reports back without scheduling yet another wake.
    await call('PATCH', `/api/office/agents/${agentId}`, { executor: fixtureAgent('succeed.mjs', { FIXTURE_RECORD_DIR: record }) }, 200);

    const self = await h.waitFor(async () => (await listWakeups({ agent_id: agentId, source: 'self' }))[0], 'the self wakeup');
    expect(self.payload).toEqual({ reason: 'check later' });
    expect(self.reason).toBe('check later');
    expect(self.idempotency_key).toBe(`self:${first.id}:0`);
    const delay = ms(self.available_at) - ms(first.finished_at);
    expect(delay).toBeGreaterThanOrEqual(1000);
    expect(delay).toBeLessThan(1100);
    if (Date.now() < ms(self.available_at) - 100) {
      expect(self.status).toBe('queued');
      expect(self.explain).toMatch(/held until/);
    }

    const done = await waitForWakeupEnd(self.id, 'the self wakeup to end', 10_000);
    expect(done.status).toBe('finished');
    const second = await get(`/api/office/runs/${done.run_id}`);
    expect(second.status).toBe('succeeded');
    expect(ms(second.started_at)).toBeGreaterThanOrEqual(ms(self.available_at));
    const processStart = recordOf(record, second.id).started_at;
    expect(processStart).toBeGreaterThanOrEqual(ms(self.available_at));
    expect(recordOf(record, second.id).env.OFFICE_WAKE_SOURCE).toBe('self');
    expect(second.assembled_prompt).toContain('check later');
    expect(await listRuns({ agent_id: agentId })).toHaveLength(2);
  });

  it('comment and move_task act as the agent on its own task; moving another agent\'s task, a task of another workspace or an unknown action is rejected with agent_action_rejected', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const otherWs = await createWorkspace('Elsewhere');
    const other = await agent(ws, 'Other', fixtureAgent('succeed.mjs'));
    const foreignAgent = await agent(otherWs, 'Foreign', fixtureAgent('succeed.mjs'));
    const own = await createTask({ workspace_id: ws, title: 'Parse invoices' });
    const theirs = await createTask({ workspace_id: ws, title: 'Their task', assignee_agent_instance_id: other });
    const foreign = await createTask({ workspace_id: otherWs, title: 'Foreign task', assignee_agent_instance_id: foreignAgent });
    const actions = [
      { type: 'comment', task_id: own.id, body: 'Parsed 120 invoices; 3 need a human.' },
      { type: 'move_task', task_id: own.id, state: 'IN_REVIEW' },
      { type: 'move_task', task_id: theirs.id, state: 'DONE' },
      { type: 'comment', task_id: foreign.id, body: 'hello from another workspace' },
      { type: 'launch_rockets' },
    ];
    const agentId = await agent(ws, 'Actor', fixtureAgent('json-actions.mjs', { FIXTURE_RESULT: JSON.stringify({ summary: 'parsed', actions }) }));
    await call('PATCH', `/api/office/tasks/${own.id}`, { assignee_agent_instance_id: agentId }, 200);
    const run = await firstRun(agentId);
    expect(run).toMatchObject({ status: 'succeeded', task_id: own.id });
    await settled();

    const comments = await get(`/api/office/tasks/${own.id}/comments`);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatchObject({ author_type: 'agent', author_id: agentId, body: 'Parsed 120 invoices; 3 need a human.' });
    expect((await get(`/api/office/tasks/${own.id}`)).state).toBe('IN_REVIEW');
    expect((await get(`/api/office/tasks/${theirs.id}`)).state).toBe('TODO');
    expect(await get(`/api/office/tasks/${foreign.id}/comments`)).toEqual([]);
    // Its own comment does not wake it.
    expect(await listWakeups({ agent_id: agentId, source: 'comment' })).toEqual([]);

    const rejected = await listActivity({ agent_id: agentId, code: 'agent_action_rejected' });
    expect(rejected).toHaveLength(3);
    const messages = rejected.map((a) => a.message).join('\n');
    expect(messages).toMatch(/action 2 rejected: an agent may only move its own tasks/);
    expect(messages).toMatch(/action 3 rejected: task '.*' is not in the agent's workspace/);
    expect(messages).toMatch(/action 4 rejected/);
  });
});

describe('the run token (OFFICE_RUN_TOKEN)', () => {
  /** An agent whose run makes one API call with its run token; the call's outcome is its result_json. */
  function apiCall(record: string, path: string, body?: unknown, method = 'POST') {
    return fixtureAgent('api-call.mjs', {
      FIXTURE_PATH: path, FIXTURE_METHOD: method, ...(body !== undefined ? { FIXTURE_BODY: JSON.stringify(body) } : {}), FIXTURE_RECORD_DIR: record,
    });
  }

  /** Wakes the agent (taskless) and returns the API's answer to its call. */
  async function callOnce(agentId: string): Promise<{ status: number; body: any; run: any }> {
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const run = await firstRun(agentId);
    expect(run.status, JSON.stringify(run)).toBe('succeeded');
    return { ...run.result_json, run };
  }

  async function taskBound(agentId: string, workspaceId: string, extra: Record<string, unknown> = {}) {
    const t = await createTask({ workspace_id: workspaceId, title: 'Agent task', assignee_agent_instance_id: agentId, ...extra });
    const run = await firstRun(agentId);
    expect(run.status, JSON.stringify(run)).toBe('succeeded');
    expect(run.task_id).toBe(t.id);
    return { task: t, status: run.result_json.status as number, body: run.result_json.body, run };
  }

  it('during its run an agent may comment as itself, move its own task, create a subtask and wake itself (as `self`)', async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const ws = await createWorkspace();

    const commenter = await agent(ws, 'Commenter', apiCall(record, '/api/office/tasks/{task_id}/comments',
      { body: 'Found the bug in the parser' }));
    const mover = await agent(ws, 'Mover', apiCall(record, '/api/office/tasks/{task_id}/move', { state: 'IN_REVIEW' }));
    const parent = await createTask({ workspace_id: ws, title: 'Migrate billing' });
    const planner = await agent(ws, 'Planner', apiCall(record, '/api/office/tasks',
      { workspace_id: ws, title: 'Write the migration', parent_id: parent.id }));
    // A long cooldown keeps its own wake queued, so it does not call again and again.
    const waker = await agent(ws, 'Waker', apiCall(record, '/api/office/agents/{agent_id}/wake', { reason: 'follow up', context: { pr: 42 } }), { cooldown_sec: 3600 });

    const [commented, moved, subtask, woke] = await Promise.all([
      taskBound(commenter, ws),
      taskBound(mover, ws),
      (async () => {
        await call('PATCH', `/api/office/tasks/${parent.id}`, { assignee_agent_instance_id: planner }, 200);
        const run = await firstRun(planner);
        return { status: run.result_json.status, body: run.result_json.body, run };
      })(),
      callOnce(waker),
    ]);

    // The author is the run token's agent.
    expect(commented.status).toBe(201);
    expect(commented.body).toMatchObject({ task_id: commented.task.id, author_type: 'agent', author_id: commenter });
    const comments = await get(`/api/office/tasks/${commented.task.id}/comments`);
    expect(comments).toEqual([expect.objectContaining({ author_type: 'agent', author_id: commenter, body: 'Found the bug in the parser' })]);

    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: moved.task.id, state: 'IN_REVIEW' });
    expect((await get(`/api/office/tasks/${moved.task.id}`)).state).toBe('IN_REVIEW');

    expect(subtask.status).toBe(201);
    expect(subtask.body).toMatchObject({ parent_id: parent.id, title: 'Write the migration', state: 'TODO', origin: 'agent', origin_id: planner });
    expect((await get(`/api/office/tasks?workspace_id=${ws}&parent_id=${parent.id}`)).map((t: any) => t.id)).toEqual([subtask.body.id]);

    expect(woke.status).toBe(202);
    expect(woke.body.wakeup).toMatchObject({ agent_id: waker, source: 'self', reason: 'follow up', status: 'queued' });
    expect(woke.body.wakeup.payload).toEqual({ reason: 'follow up', payload: { pr: 42 } });
    const selfWakes = await listWakeups({ agent_id: waker, source: 'self' });
    expect(selfWakes).toHaveLength(1);

    await settled();
    // The agent's own comment did not wake it.
    expect(await listWakeups({ agent_id: commenter, source: 'comment' })).toEqual([]);
  });

  it('anything else is a 403 and changes nothing: reading another workspace or another agent\'s run, moving another agent\'s task, a top-level task, waking another agent, resolving an approval, patching a task, a task of another workspace', async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const ws = await createWorkspace();
    const otherWs = await createWorkspace('Elsewhere');
    const owner = await agent(ws, 'Owner', fixtureAgent('succeed.mjs'), { cooldown_sec: 3600 });
    const theirs = await createTask({ workspace_id: ws, title: 'Owner task', assignee_agent_instance_id: owner });
    const foreign = await createTask({ workspace_id: otherWs, title: 'Foreign task' });
    await firstRun(owner);
    const approval = await call('POST', '/api/office/approvals', { requested_by_agent_id: owner, title: 'Deploy?' }, 201);

    const ownerRun = await firstRun(owner);
    const cases: [string, unknown][] = [
      ['GET a task of another workspace', apiCall(record, `/api/office/tasks/${foreign.id}`, undefined, 'GET')],
      ['GET another workspace', apiCall(record, `/api/office/workspaces/${otherWs}`, undefined, 'GET')],
      ["GET another agent's run", apiCall(record, `/api/office/runs/${ownerRun.id}`, undefined, 'GET')],
      ["move another agent's task", apiCall(record, `/api/office/tasks/${theirs.id}/move`, { state: 'DONE' })],
      ['a top-level task', apiCall(record, '/api/office/tasks', { workspace_id: ws, title: 'Rogue task' })],
      ['a subtask in another workspace', apiCall(record, '/api/office/tasks', { workspace_id: otherWs, title: 'Rogue subtask', parent_id: foreign.id })],
      ['wake another agent', apiCall(record, `/api/office/agents/${owner}/wake`, { reason: 'hey' })],
      ['resolve an approval', apiCall(record, `/api/office/approvals/${approval.id}/resolve`, { status: 'approved' })],
      ['patch a task', apiCall(record, `/api/office/tasks/${theirs.id}`, { title: 'Hijacked' }, 'PATCH')],
      ['comment on a task of another workspace', apiCall(record, `/api/office/tasks/${foreign.id}/comments`, { body: 'hi', author_type: 'agent', author_id: 'x' })],
      ['create an agent', apiCall(record, '/api/office/agents', { workspace_id: ws, name: 'Clone', role: 'worker' })],
    ];
    const agents = [];
    for (const [i, [, executor]] of cases.entries()) agents.push(await agent(ws, `Probe ${i}`, executor));
    const answers = await Promise.all(agents.map((id) => callOnce(id)));
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, cases[i]![0]).toBe(403);
      expect(answer.body.error.code, cases[i]![0]).toBe('forbidden');
    }

    // Nothing changed.
    const ownerTask = await get(`/api/office/tasks/${theirs.id}`);
    expect(ownerTask).toMatchObject({ state: 'TODO', title: 'Owner task' });
    const titles = (await get(`/api/office/tasks?workspace_id=${ws}`)).map((t: any) => t.title);
    expect(titles).toEqual(['Owner task']);
    expect(await get(`/api/office/tasks?workspace_id=${otherWs}`)).toHaveLength(1);
    expect(await get(`/api/office/tasks/${foreign.id}/comments`)).toEqual([]);
    expect((await get(`/api/office/approvals/${approval.id}`)).status).toBe('pending');
    expect(await listWakeups({ agent_id: owner, source: 'self' })).toEqual([]);
    expect(await listWakeups({ agent_id: owner, source: 'user' })).toEqual([]);
    expect((await get(`/api/office/agents?workspace_id=${ws}`)).map((a: any) => a.name)).not.toContain('Clone');
  });

  it('during its run an agent may read its own agent and its own task (200), but not another agent\'s run (403)', async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const ws = await createWorkspace();
    const otherWs = await createWorkspace('Elsewhere');
    const other = await agent(ws, 'Other', fixtureAgent('succeed.mjs'), { cooldown_sec: 3600 });
    await createTask({ workspace_id: ws, title: 'Other task', assignee_agent_instance_id: other });
    const otherRun = await firstRun(other);
    const foreignTask = await createTask({ workspace_id: otherWs, title: 'Foreign task' });

    const readsItself = await agent(ws, 'Self reader', apiCall(record, '/api/office/agents/{agent_id}', undefined, 'GET'));
    const readsItsTask = await agent(ws, 'Task reader', apiCall(record, '/api/office/tasks/{task_id}', undefined, 'GET'));
    const readsOtherRun = await agent(ws, 'Run reader', apiCall(record, `/api/office/runs/${otherRun.id}`, undefined, 'GET'));
    const listsTasks = await agent(ws, 'Task lister', apiCall(record, `/api/office/tasks?workspace_id=${otherWs}`, undefined, 'GET'));
    const readsSummaries = await agent(ws, 'Summary reader', apiCall(record, `/api/office/agents/${other}/summaries`, undefined, 'GET'));
    const [self, task, run, foreignList, summaries] = await Promise.all([
      callOnce(readsItself), taskBound(readsItsTask, ws), callOnce(readsOtherRun), callOnce(listsTasks), callOnce(readsSummaries),
    ]);

    expect(self.status, JSON.stringify(self.body)).toBe(200);
    expect(self.body).toMatchObject({ id: readsItself, workspace_id: ws, name: 'Self reader' });
    expect(task.status, JSON.stringify(task.body)).toBe(200);
    expect(task.body).toMatchObject({ id: task.task.id, assignee_agent_instance_id: readsItsTask });
    expect(run.status).toBe(403);
    expect(run.body.error.code).toBe('forbidden');
    expect(JSON.stringify(run.body)).not.toContain(otherRun.wakeup_id);
    // A list of another workspace reveals nothing.
    expect(foreignList.status).toBe(200);
    expect(foreignList.body).toEqual([]);
    expect(foreignTask.workspace_id).toBe(otherWs);
    expect(summaries.status).toBe(200);
  });

  it('a run token used after its run has ended is a 401, on an allowed route too, and writes nothing', async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const ws = await createWorkspace();
    const agentId = await agent(ws, 'Commenter', apiCall(record, '/api/office/tasks/{task_id}/comments', { body: 'during the run' }));
    const { task: t, status, run } = await taskBound(agentId, ws);
    expect(status).toBe(201);
    const token = recordOf(record, run.id).env.OFFICE_RUN_TOKEN!;
    expect(token).toMatch(/\S{16,}/);

    const late = await h.api('POST', `/api/office/tasks/${t.id}/comments`, { body: 'after the run', author_type: 'agent', author_id: agentId }, { authorization: `Bearer ${token}` });
    expect(late.status).toBe(401);
    expect(late.body.error.code).toBe('unauthorized');
    const lateWake = await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'again' }, { authorization: `Bearer ${token}` });
    expect(lateWake.status).toBe(401);
    const lateRead = await h.api('GET', `/api/office/tasks/${t.id}`, undefined, { authorization: `Bearer ${token}` });
    expect(lateRead.status).toBe(401);

    const comments = await get(`/api/office/tasks/${t.id}/comments`);
    expect(comments.map((c: any) => c.body)).toEqual(['during the run']);
    expect(await listWakeups({ agent_id: agentId, source: 'self' })).toEqual([]);
  });

  it('with OFFICE_API_TOKEN set, the run token still works for the allowed routes (and only those), and expires with its run', async () => {
    h = await startHarness({ OFFICE_API_TOKEN: 'user-api-token-123' });
    userHeaders = { authorization: 'Bearer user-api-token-123' };
    try {
      const record = join(h.dir, 'record');
      expect((await h.api('GET', '/api/office/workspaces')).status).toBe(401);
      const ws = await createWorkspace();
      const commenter = await agent(ws, 'Commenter', apiCall(record, '/api/office/tasks/{task_id}/comments', { body: 'with a run token' }));
      const mover = await agent(ws, 'Mover', apiCall(record, '/api/office/tasks/{task_id}/move', { state: 'IN_REVIEW' }));
      const lister = await agent(ws, 'Lister', apiCall(record, '/api/office/agents', undefined, 'GET'));
      const patcher = await agent(ws, 'Patcher', apiCall(record, `/api/office/agents/{agent_id}`, { name: 'Renamed' }, 'PATCH'));
      const otherWs = await createWorkspace('Elsewhere');
      await agent(otherWs, 'Stranger', fixtureAgent('succeed.mjs'));
      const [commented, moved, listed, patched] = await Promise.all([taskBound(commenter, ws), taskBound(mover, ws), callOnce(lister), callOnce(patcher)]);
      expect(commented.status).toBe(201);
      expect(commented.body).toMatchObject({ author_type: 'agent', author_id: commenter });
      expect(moved.status).toBe(200);
      expect(moved.body.state).toBe('IN_REVIEW');
      // A read lists only the token's own workspace.
      expect(listed.status).toBe(200);
      expect(listed.body.map((a: any) => a.name).sort()).toEqual(['Commenter', 'Lister', 'Mover', 'Patcher']);
      expect(patched.status).toBe(403);

      const token = recordOf(record, commented.run.id).env.OFFICE_RUN_TOKEN!;
      const late = await h.api('POST', `/api/office/tasks/${commented.task.id}/comments`, { body: 'late', author_type: 'agent', author_id: commenter }, { authorization: `Bearer ${token}` });
      expect(late.status).toBe(401);
      expect((await get(`/api/office/tasks/${commented.task.id}/comments`)).map((c: any) => c.body)).toEqual(['with a run token']);
    } finally {
      userHeaders = {};
    }
  });
});
