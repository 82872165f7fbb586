/**
 * What the dashboard's forms do to the office beyond creating it: deleting a workspace, and changing
 * or deleting a budget (DELETE /workspaces/:id, PATCH and DELETE /budgets/:id), against the real
 * server. Each refusal answers in the error envelope and leaves every row as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

/** Every row of the tables a refused request might touch. */
async function rowsOf(...tables: string[]): Promise<string> {
  return JSON.stringify(await Promise.all(tables.map((table) => h.inspect.rows(table))));
}

async function created(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.api('POST', path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

describe('DELETE /api/office/workspaces/:id', () => {
  it('refuses a workspace that still has agents, naming them, and changes nothing', async () => {
    const ws = await created('/api/office/workspaces', { name: 'Busy' });
    await created('/api/office/agents', { workspace_id: ws, name: 'Ada', role: 'worker' });
    await created('/api/office/agents', { workspace_id: ws, name: 'Bo', role: 'worker' });
    const before = await rowsOf('workspaces', 'agent_instances', 'activity_log');
    const refused = await h.api('DELETE', `/api/office/workspaces/${ws}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({ code: 'conflict', message: "workspace 'Busy' still has 2 agents (Ada, Bo): delete them first" });
    expect(await rowsOf('workspaces', 'agent_instances', 'activity_log')).toBe(before);
    expect((await h.api('GET', '/api/office/workspaces')).body.map((w: { id: string }) => w.id)).toContain(ws);
  });

  it('deletes a workspace once its agents are deleted: it leaves the list, reads as 404 and takes nothing new', async () => {
    const ws = await created('/api/office/workspaces', { name: 'Short-lived', timezone: 'Europe/Paris' });
    const agent = await created('/api/office/agents', { workspace_id: ws, name: 'Temp', role: 'worker' });
    expect((await h.api('DELETE', `/api/office/agents/${agent}`)).status).toBe(204);

    const deleted = await h.api('DELETE', `/api/office/workspaces/${ws}`);
    expect(deleted.status).toBe(204);
    expect((await h.api('GET', '/api/office/workspaces')).body.map((w: { id: string }) => w.id)).not.toContain(ws);
    expect((await h.api('GET', `/api/office/workspaces/${ws}`)).status).toBe(404);
    const activity = (await h.api('GET', `/api/office/activity?workspace_id=${ws}&code=workspace_deleted`)).body;
    expect(activity).toMatchObject([{ code: 'workspace_deleted', message: "workspace 'Short-lived' deleted", actor_type: 'user', actor_id: 'admin' }]);

    const before = await rowsOf('workspaces', 'agent_instances', 'tasks', 'projects', 'budgets');
    const writes: Array<[string, string, Record<string, unknown>]> = [
      ['PATCH', `/api/office/workspaces/${ws}`, { name: 'Back' }],
      ['DELETE', `/api/office/workspaces/${ws}`, {}],
      ['POST', '/api/office/agents', { workspace_id: ws, name: 'Late', role: 'worker' }],
      ['POST', '/api/office/tasks', { workspace_id: ws, title: 'Late task' }],
      ['POST', '/api/office/projects', { workspace_id: ws, name: 'Late project' }],
      ['POST', '/api/office/budgets', { scope: 'workspace', scope_id: ws, limit_usd: 5, period: 'daily', action_on_exceed: 'warn' }],
    ];
    for (const [method, path, body] of writes) {
      const res = await h.api(method, path, method === 'DELETE' ? undefined : body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(await rowsOf('workspaces', 'agent_instances', 'tasks', 'projects', 'budgets')).toBe(before);
  });

  it('answers 404 for a workspace that never existed', async () => {
    const res = await h.api('DELETE', '/api/office/workspaces/ws_nope');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain('ws_nope');
  });
});

describe('PATCH and DELETE /api/office/budgets/:id', () => {
  let ws: string;
  let spender: string;

  beforeAll(async () => {
    ws = await created('/api/office/workspaces', { name: 'Budgeted' });
    spender = await created('/api/office/agents', {
      workspace_id: ws, name: 'Spender', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '3' }),
    });
  });

  it('changes a budget\'s terms, keeps its scope, lists it with its spend and says who changed it', async () => {
    const budget = await created('/api/office/budgets', { scope: 'agent', scope_id: spender, limit_usd: 10, period: 'monthly', action_on_exceed: 'warn' });
    const changed = await h.api('PATCH', `/api/office/budgets/${budget}`, { limit_usd: 25, period: 'daily', action_on_exceed: 'pause_agent', alert_threshold_pct: 60 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: budget, scope: 'agent', scope_id: spender, limit_usd: 25, period: 'daily', action_on_exceed: 'pause_agent', alert_threshold_pct: 60 });
    const listed = (await h.api('GET', `/api/office/budgets?workspace_id=${ws}`)).body.find((b: { id: string }) => b.id === budget);
    expect(listed).toMatchObject({ limit_usd: 25, period: 'daily', spent_usd: 0 });
    const cleared = await h.api('PATCH', `/api/office/budgets/${budget}`, { alert_threshold_pct: null });
    expect(cleared.body.alert_threshold_pct).toBeNull();
    const activity = (await h.api('GET', `/api/office/activity?workspace_id=${ws}&code=budget_changed`)).body;
    expect(activity[activity.length - 1]).toMatchObject({
      agent_id: spender, actor_id: 'admin', message: 'agent budget now $25.00 a day, pausing the agent at the limit',
    });
  });

  it('refuses a bad value or a change of scope with the field named, and an unknown budget with a 404, changing nothing', async () => {
    const budget = await created('/api/office/budgets', { scope: 'workspace', scope_id: ws, limit_usd: 50, period: 'monthly', action_on_exceed: 'warn' });
    const before = await rowsOf('budgets', 'activity_log');
    const negative = await h.api('PATCH', `/api/office/budgets/${budget}`, { limit_usd: -1 });
    expect(negative.status).toBe(400);
    expect(negative.body.error.details).toEqual([expect.objectContaining({ path: 'body.limit_usd' })]);
    const rescoped = await h.api('PATCH', `/api/office/budgets/${budget}`, { scope_id: spender });
    expect(rescoped.status).toBe(400);
    expect(rescoped.body.error.code).toBe('validation_error');
    const period = await h.api('PATCH', `/api/office/budgets/${budget}`, { period: 'weekly' });
    expect(period.status).toBe(400);
    expect(period.body.error.details[0].path).toBe('body.period');
    expect((await h.api('PATCH', '/api/office/budgets/bdg_nope', { limit_usd: 1 })).status).toBe(404);
    expect((await h.api('DELETE', '/api/office/budgets/bdg_nope')).status).toBe(404);
    expect(await rowsOf('budgets', 'activity_log')).toBe(before);
  });

  it('deletes a budget whose alert was already sent, which lifts its limit; a second delete is a 404', async () => {
    const budget = await created('/api/office/budgets', {
      scope: 'agent', scope_id: spender, limit_usd: 4, period: 'total', action_on_exceed: 'warn', alert_threshold_pct: 50,
    });
    const wake = await h.api('POST', `/api/office/agents/${spender}/wake`, { reason: 'spend three dollars' });
    await h.waitFor(async () => (await h.api('GET', `/api/office/activity?workspace_id=${ws}&code=budget_alert`)).body.length > 0, 'the budget alert');
    await h.waitFor(async () => (await h.api('GET', `/api/office/wakeups/${wake.body.wakeup.id}`)).body.status === 'finished', 'the costly run');
    expect(await h.inspect.rows('budget_alerts_sent')).toContainEqual(expect.objectContaining({ budget_id: budget }));

    expect((await h.api('DELETE', `/api/office/budgets/${budget}`)).status).toBe(204);
    expect((await h.api('GET', `/api/office/budgets?workspace_id=${ws}`)).body.map((b: { id: string }) => b.id)).not.toContain(budget);
    expect(await h.inspect.rows('budget_alerts_sent')).not.toContainEqual(expect.objectContaining({ budget_id: budget }));
    expect((await h.api('GET', `/api/office/activity?workspace_id=${ws}&code=budget_deleted`)).body)
      .toMatchObject([{ agent_id: spender, message: 'agent budget of $4.00 in total, warning at the limit deleted' }]);
    expect((await h.api('DELETE', `/api/office/budgets/${budget}`)).status).toBe(404);
  });
});
