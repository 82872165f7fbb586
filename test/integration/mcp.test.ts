/**
 * The agents' MCP server, during real runs: a fixture agent (a child process) connects with the SDK's
 * client and its OFFICE_RUN_TOKEN, over Streamable HTTP at /mcp and over stdio through
 * `office-scheduler mcp`, and the effects are checked through the API.
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

const { call, get, listWakeups, listRuns, createWorkspace, createAgent, createTask, getTask } = apiClient(() => h);

const ms = (iso: string) => new Date(iso).getTime();

const TOOLS = ['comment', 'create_subtask', 'list_open_tasks', 'move_my_task', 'read_my_task', 'self_wake'];

/** A worker whose run uses the MCP tools, with another agent's task in the same workspace to try. */
async function mcpRun(transport: 'http' | 'stdio') {
  h = await startHarness();
  const record = join(h.dir, 'record');
  const ws = await createWorkspace();
  const other = await createAgent(ws, { name: 'Other' });
  const othersTask = await createTask({ workspace_id: ws, title: 'Not yours', assignee_agent_instance_id: other });
  const worker = await createAgent(ws, {
    name: 'Worker',
    executor: fixtureAgent('mcp-agent.mjs', { FIXTURE_MCP: transport, FIXTURE_OTHER_TASK: othersTask.id, FIXTURE_RECORD_DIR: record }, 60),
  });
  const task = await createTask({ workspace_id: ws, title: 'Ship the release', assignee_agent_instance_id: worker });
  const run = await h.waitFor(async () => (await listRuns({ agent_id: worker })).find((r) => r.status !== 'running' && r.status !== 'queued'), 'the worker\'s run', 30_000);
  expect(run.status, JSON.stringify(run)).toBe('succeeded');
  const token: string = JSON.parse(readFileSync(join(record, `${run.id}.json`), 'utf8')).env.OFFICE_RUN_TOKEN;
  return { ws, worker, other, task, othersTask, run, mcp: run.result_json.mcp, token };
}

describe.each(['http', 'stdio'] as const)('MCP tools over %s, during a run', (transport) => {
  it('comment, create a subtask and wake me later act as the agent; another agent\'s task is refused and unchanged', async () => {
    const { worker, task, othersTask, run, mcp } = await mcpRun(transport);
    expect(mcp.tools).toEqual(TOOLS);

    const read = JSON.parse(mcp.task.text);
    expect(read.task).toMatchObject({ id: task.id, title: 'Ship the release' });
    expect(read.blockers).toEqual([]);

    const comments = await get(`/api/office/tasks/${task.id}/comments`);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatchObject({ body: 'Halfway there, through MCP.', author_type: 'agent', author_id: worker });

    const subtasks = (await get(`/api/office/tasks?parent_id=${task.id}`)) as any[];
    expect(subtasks.map((t) => t.title)).toEqual(['Write the migration notes']);
    expect(JSON.parse(mcp.subtask.text).id).toBe(subtasks[0].id);

    const self = (await listWakeups({ agent_id: worker, source: 'self' }))[0];
    expect(self).toMatchObject({ status: 'queued', reason: 'check the CI run' });
    const delay = ms(self.available_at) - ms(self.requested_at);
    expect(Math.abs(delay - 3_600_000)).toBeLessThan(1000);
    expect(ms(self.requested_at)).toBeLessThanOrEqual(ms(run.finished_at));

    const open = JSON.parse(mcp.open.text) as any[];
    expect(open.map((t) => t.id).sort()).toEqual([task.id, othersTask.id, subtasks[0].id].sort());

    expect(mcp.refused.isError).toBe(true);
    expect(mcp.refused.text).toContain('403');
    expect(mcp.refused.text).toContain('an agent may only move its own tasks');
    expect((await getTask(othersTask.id)).state).toBe('TODO');

    // Garbage is refused before anything is written.
    expect(mcp.garbage.isError).toBe(true);
    expect(await get(`/api/office/tasks/${task.id}/comments`)).toHaveLength(1);
  });
});

describe('/mcp credentials', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  const mcpHeaders = { accept: 'application/json, text/event-stream' };

  it('refuses a missing, a wrong and an ended run token with a 401', async () => {
    const { token } = await mcpRun('http');
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer nope' }, { authorization: `Bearer ${token}` }]) {
      const res = await h!.api('POST', '/mcp', initialize, { ...mcpHeaders, ...headers });
      expect(res.status, JSON.stringify(res.body)).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    // Stateless: no server-sent stream to open and no session to end.
    expect((await h!.api('GET', '/mcp', undefined, mcpHeaders)).status).toBe(405);
    expect((await h!.api('DELETE', '/mcp')).status).toBe(405);
  });
});

describe('a wake for later', () => {
  it('takes delay_sec or at; garbage is a 400 that creates no wakeup', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { name: 'Sleeper' });
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    for (const body of [{ delay_sec: -1 }, { delay_sec: 'soon' }, { delay_sec: 31 * 86_400 }, { at: 'tomorrow' },
      { at: new Date(Date.now() + 31 * 86_400_000).toISOString() }, { delay_sec: 10, at: inAnHour }]) {
      const res = await h.api('POST', `/api/office/agents/${agent}/wake`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect(await listWakeups({ agent_id: agent })).toEqual([]);

    const { wakeup } = await call('POST', `/api/office/agents/${agent}/wake`, { reason: 'later', at: inAnHour }, 202);
    expect(wakeup.available_at).toBe(inAnHour);
    expect(wakeup.status).toBe('queued');
  });
});
