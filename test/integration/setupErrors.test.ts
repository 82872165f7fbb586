/**
 * Nothing stops silently (issue: the first hour): a setup error fails at once with an inbox item and
 * no retry; a budget pause puts an item in the inbox (a routine that paused itself: routines.fire.test.ts). Real
 * SQLite, real HTTP server, real child processes.
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

const { call, get, post, listRuns, createWorkspace, createAgent, waitForWakeupEnd } = apiClient(() => h);

const openInbox = async (ws: string) => (await get(`/api/office/inbox?workspace_id=${ws}&status=open`)) as any[];

describe('a setup error fails at once', () => {
  it('GIVEN a claude_code agent whose program is not on PATH WHEN it is woken THEN the run fails at once, with no retry, and the inbox says what is missing and where it was looked for', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const agentId = await createAgent(ws, { name: 'Claude', executor: { kind: 'claude_code', env: { PATH: '/nonexistent/bin' } } });
    const { wakeup } = await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    const ended = await waitForWakeupEnd(wakeup.id);
    expect(ended).toMatchObject({ status: 'failed', retry_count: 0, scheduled_retry_at: null });
    expect(ended.explain).toContain("the program 'claude' was not found");
    expect(await listRuns({ agent_id: agentId })).toHaveLength(1);
    const [item] = await openInbox(ws);
    expect(item).toMatchObject({ kind: 'agent.setup_error', agent_id: agentId, title: expect.stringContaining("Claude cannot start: the program 'claude' was not found") });
    expect(item.body).toContain('/nonexistent/bin');
  });

  it('GIVEN a command agent whose cwd does not exist WHEN it is woken THEN the run fails at once with an inbox item naming the directory', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const cwd = join(h.dir, 'no-such-dir');
    const agentId = await createAgent(ws, { name: 'Worker', executor: { ...fixtureAgent('succeed.mjs'), cwd } });
    const { wakeup } = await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'go' }, 202);
    expect(await waitForWakeupEnd(wakeup.id)).toMatchObject({ status: 'failed', retry_count: 0 });
    const [item] = await openInbox(ws);
    expect(item.body).toContain(`the working directory '${cwd}' does not exist`);
  });
});

describe('pauses put an item in the inbox', () => {
  it('GIVEN a pause_agent budget already spent WHEN its agent is woken THEN the agent is paused and the inbox says so, and the navigation count (open items) counts it', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const agentId = await createAgent(ws, { name: 'Spender', executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '2' }) });
    const budget = await post('/api/office/budgets', { scope: 'agent', scope_id: agentId, limit_usd: 1, period: 'daily', action_on_exceed: 'pause_agent' });
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'spend' }, 202);
    await h.waitFor(async () => (await listRuns({ agent_id: agentId })).some((r) => r.status === 'succeeded'), 'the first run');
    await call('POST', `/api/office/agents/${agentId}/wake`, { reason: 'again' }, 202);
    const [item] = await h.waitFor(async () => {
      const items = await openInbox(ws);
      return items.length > 0 ? items : null;
    }, 'the budget pause in the inbox');
    expect(item).toMatchObject({ kind: 'agent.paused', agent_id: agentId, ref_id: budget.id, title: 'Spender was paused by its budget' });
  });
});
