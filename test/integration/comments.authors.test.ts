/**
 * A comment's author comes from the credential (API.md, "Trust boundaries"): a member writes as its
 * token, a run token as its agent, and only the bootstrap admin (the open mode's local caller) may
 * name another author. Real server, SQLite file, real child processes as agents.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/client.js';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, post, listWakeups, listRuns, createWorkspace, createAgent, createTask, createTaskId, settled, quiet } = apiClient(() => h);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function memberToken(name: string): Promise<{ id: string; token: string }> {
  return post('/api/office/tokens', { name, role: 'member' });
}

/** An agent whose run posts `body` as a comment on its task with its run token. */
function commentingAgent(record: string, body: Record<string, unknown>) {
  return fixtureAgent('api-call.mjs', { FIXTURE_PATH: '/api/office/tasks/{task_id}/comments', FIXTURE_BODY: JSON.stringify(body), FIXTURE_RECORD_DIR: record });
}

async function endedRunOf(agentId: string): Promise<any> {
  return h!.waitFor(async () => (await listRuns({ agent_id: agentId })).find((r) => r.status !== 'running' && r.status !== 'queued'), `a run of ${agentId} to end`);
}

describe('authors come from the credential', () => {
  it("a member's comment is its token's, whether or not the body names it; naming another person or an agent is a 403 that stores nothing", async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const agentId = await createAgent(ws, { name: 'Worker' });
    const taskId = await createTaskId(ws, 'Reconcile', null);
    const alice = await memberToken('alice');
    const asAlice = (body: unknown) => h!.api('POST', `/api/office/tasks/${taskId}/comments`, body, bearer(alice.token));

    const plain = await asAlice({ body: 'Checked the totals' });
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    expect(plain.body).toMatchObject({ author_type: 'user', author_id: alice.id });
    expect((await asAlice({ body: 'Signed', author_type: 'user', author_id: alice.id })).body).toMatchObject({ author_type: 'user', author_id: alice.id });

    for (const named of [{ author_type: 'agent', author_id: agentId }, { author_type: 'user', author_id: 'admin' }, { author_id: 'bob' }, { author_type: 'agent' }]) {
      const refused = await asAlice({ body: 'Not me', ...named });
      expect(refused.status, JSON.stringify(named)).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden' });
      expect(refused.body.error.message).toContain(alice.id);
    }
    expect((await get(`/api/office/tasks/${taskId}/comments`)).map((c: any) => c.body)).toEqual(['Checked the totals', 'Signed']);
  });

  it('the bootstrap admin (here the open mode\'s local caller) may name any author, and is user "admin" when it names none', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const agentId = await createAgent(ws, { name: 'Worker', executor: null });
    const taskId = await createTaskId(ws, 'Import the old tracker', null);
    const comment = (body: unknown) => call('POST', `/api/office/tasks/${taskId}/comments`, body, 201);
    expect(await comment({ body: 'From the admin' })).toMatchObject({ author_type: 'user', author_id: 'admin' });
    expect(await comment({ body: 'Imported', author_type: 'user', author_id: 'u-carol' })).toMatchObject({ author_type: 'user', author_id: 'u-carol' });
    expect(await comment({ body: 'Imported too', author_type: 'agent', author_id: agentId })).toMatchObject({ author_type: 'agent', author_id: agentId });
    const nameless = await h.api('POST', `/api/office/tasks/${taskId}/comments`, { body: 'Whose?', author_type: 'agent' });
    expect(nameless.status).toBe(400);
    expect(nameless.body.error.message).toContain('author_id');
  });

  it("a run token's comment is its agent's, and does not wake it; a body that names another author is a 403 and stores nothing", async () => {
    h = await startHarness();
    const record = join(h.dir, 'record');
    const ws = await createWorkspace();
    const own = await createAgent(ws, { name: 'Own words', executor: commentingAgent(record, { body: 'Done, see the PR' }) });
    const impostor = await createAgent(ws, { name: 'Impostor', executor: commentingAgent(record, { body: 'Ship it', author_type: 'user', author_id: 'admin' }) });
    const ownTask = (await createTask({ workspace_id: ws, title: 'Fix the parser', assignee_agent_instance_id: own })).id;
    const impostorTask = (await createTask({ workspace_id: ws, title: 'Approve the release', assignee_agent_instance_id: impostor })).id;

    const [ownRun, impostorRun] = [await endedRunOf(own), await endedRunOf(impostor)];
    expect(ownRun.result_json).toMatchObject({ status: 201, body: { author_type: 'agent', author_id: own } });
    expect(impostorRun.result_json).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    expect(impostorRun.result_json.body.error.message).toContain(`its agent's (${impostor})`);
    expect(await get(`/api/office/tasks/${impostorTask}/comments`)).toEqual([]);
    await quiet(own);
    expect(await get(`/api/office/tasks/${ownTask}/comments`)).toEqual([expect.objectContaining({ author_type: 'agent', author_id: own })]);
    expect(await listWakeups({ agent_id: own, source: 'comment' })).toEqual([]);
  });

  it("a member's comment wakes the assignee: written in the assignee's name, to pass for its own comment, it is a 403 instead", async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const assignee = await createAgent(ws, { name: 'Assignee', skip_idle_wakeups: false });
    const taskId = await createTaskId(ws, 'Write the changelog', assignee);
    await quiet(assignee);
    const dana = await memberToken('dana');

    const posing = await h.api('POST', `/api/office/tasks/${taskId}/comments`, { body: 'Never mind', author_type: 'agent', author_id: assignee }, bearer(dana.token));
    expect(posing.status).toBe(403);
    const comment = await h.api('POST', `/api/office/tasks/${taskId}/comments`, { body: 'Also mention the fix' }, bearer(dana.token));
    expect(comment.status).toBe(201);
    await settled();
    const woken = await listWakeups({ agent_id: assignee, source: 'comment' });
    expect(woken.map((w: any) => w.payload.comment_id)).toEqual([comment.body.id]);
    expect((await get(`/api/office/tasks/${taskId}/comments`)).map((c: any) => [c.author_type, c.author_id])).toEqual([['user', dana.id]]);
  });
});
