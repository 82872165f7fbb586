import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';

const TOKEN = 'test-api-token-5f1c';
const AUTH = { authorization: `Bearer ${TOKEN}` };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
});
afterAll(async () => h?.stop());

function expectUnauthorized(res: { status: number; body: any }) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  expect(res.body.error.message.length).toBeGreaterThan(0);
}

function workspaceCount(): Promise<number> {
  return h.inspect.count('workspaces');
}

describe('with OFFICE_API_TOKEN set, /api/office/* requires Authorization: Bearer <token>', () => {
  it('answers 401 in the error envelope when no token is sent', async () => {
    expectUnauthorized(await h.api('GET', '/api/office/workspaces'));
  });

  it('answers 401 to a wrong token', async () => {
    expectUnauthorized(await h.api('GET', '/api/office/workspaces', undefined, { authorization: 'Bearer not-the-token' }));
  });

  it('answers 401 to a token that is only a prefix or an extension of the right one', async () => {
    expectUnauthorized(await h.api('GET', '/api/office/workspaces', undefined, { authorization: `Bearer ${TOKEN.slice(0, -1)}` }));
    expectUnauthorized(await h.api('GET', '/api/office/workspaces', undefined, { authorization: `Bearer ${TOKEN}x` }));
  });

  it('answers 401 to the right token under another scheme (not Bearer)', async () => {
    expectUnauthorized(await h.api('GET', '/api/office/workspaces', undefined, { authorization: `Basic ${TOKEN}` }));
    expectUnauthorized(await h.api('GET', '/api/office/workspaces', undefined, { authorization: TOKEN }));
  });

  it('answers 200 to the right token', async () => {
    const res = await h.api('GET', '/api/office/workspaces', undefined, AUTH);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
  });

  it('refuses an unauthenticated create with 401 before validating it, and writes nothing', async () => {
    const before = await workspaceCount();
    expectUnauthorized(await h.api('POST', '/api/office/workspaces', { name: 'Sneaky' }));
    // An invalid body without a token is still a 401: authentication comes first.
    expectUnauthorized(await h.api('POST', '/api/office/workspaces', { name: 42 }));
    expect(await workspaceCount()).toBe(before);

    const ok = await h.api('POST', '/api/office/workspaces', { name: 'Allowed' }, AUTH);
    expect(ok.status).toBe(201);
    expect(await workspaceCount()).toBe(before + 1);
  });

  it('gates unknown /api/office/* paths too (401, not a 404 that reveals the route table)', async () => {
    expectUnauthorized(await h.api('GET', '/api/office/no-such-thing'));
  });
});

describe('with OFFICE_API_TOKEN set, the open endpoints need no token', () => {
  it('/healthz answers 200 without a token', async () => {
    expect((await h.api('GET', '/healthz')).status).toBe(200);
  });

  it('/readyz answers 200 without a token', async () => {
    const res = await h.api('GET', '/readyz');
    expect(res.status).toBe(200);
  });

  it('a webhook route is not gated by the API token: an unknown public id is a 404, not a 401', async () => {
    const res = await h.api('POST', '/api/routine-triggers/x/fire', {});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('a webhook trigger with signing_mode none fires without the API token', async () => {
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Hooks' }, AUTH);
    const agent = await h.api('POST', '/api/office/agents', { workspace_id: ws.body.id, name: 'W', role: 'worker' }, AUTH);
    expect(agent.status).toBe(201);
    const routine = await h.api('POST', '/api/office/routines', {
      workspace_id: ws.body.id, name: 'On push', assignee_agent_instance_id: agent.body.id,
      triggers: [{ kind: 'webhook', signing_mode: 'none' }],
    }, AUTH);
    expect(routine.status).toBe(201);
    const publicId = routine.body.triggers[0].public_id as string;
    expect(publicId).toBeTruthy();

    const fired = await h.api('POST', `/api/routine-triggers/${publicId}/fire`, { ref: 'main' });
    expect(fired.status).toBe(202);
    expect(fired.body.routine_run).toMatchObject({ source: 'webhook' });
  });
});
