/**
 * The integration harness's contract check (test/helpers/contract.ts) fails a request whose answer
 * the document does not declare. A stand-in server plays a misbehaving office server; the document
 * comes from a real one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOfficeServer } from '../helpers/contract.js';
import { request, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let fake: Server;
let fakeUrl: string;
let answer: { status: number; body: string; type?: string } = { status: 200, body: '{}' };

beforeAll(async () => {
  h = await startHarness();
  // The document is loaded from the first office server that answers.
  expect((await h.api('GET', '/healthz')).status).toBe(200);
  fake = createServer((_req, res) => {
    res.writeHead(answer.status, answer.type ? { 'content-type': answer.type } : {});
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  registerOfficeServer(fakeUrl);
});

afterAll(async () => {
  await new Promise((resolve) => fake?.close(resolve));
  await h?.stop();
});

const workspace = { id: 'ws_1', name: 'Acme', timezone: 'UTC', recovery_lookback_hours: 24, default_executor: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };

describe('the contract check on integration responses', () => {
  it('passes an answer that matches the declared schema', async () => {
    answer = { status: 200, body: JSON.stringify(workspace), type: 'application/json' };
    expect((await request(fakeUrl, 'GET', '/api/office/workspaces/ws_1')).body).toEqual(workspace);
  });

  it('fails an answer with a missing field, a wrong type or a field the document does not declare', async () => {
    const { name: _name, ...nameless } = workspace;
    for (const body of [nameless, { ...workspace, recovery_lookback_hours: '24' }, { ...workspace, secret: 'x' }, { ...workspace, created_at: 'yesterday' }]) {
      answer = { status: 200, body: JSON.stringify(body), type: 'application/json' };
      await expect(request(fakeUrl, 'GET', '/api/office/workspaces/ws_1')).rejects.toThrow(/does not match the document/);
    }
  });

  it('fails a status the operation does not declare', async () => {
    answer = { status: 409, body: JSON.stringify({ error: { code: 'conflict', message: 'a read has no conflicts' } }), type: 'application/json' };
    await expect(request(fakeUrl, 'GET', '/api/office/workspaces/ws_1')).rejects.toThrow(/status 409 is not declared/);
  });

  it('fails an error that is not in the envelope, and a body where the document declares none', async () => {
    answer = { status: 404, body: JSON.stringify({ message: 'no such workspace' }), type: 'application/json' };
    await expect(request(fakeUrl, 'GET', '/api/office/workspaces/ws_1')).rejects.toThrow(/does not match the document/);
    answer = { status: 204, body: '', type: 'application/json' };
    await expect(request(fakeUrl, 'DELETE', '/api/office/agents/ag_1')).resolves.toMatchObject({ status: 204 });
    answer = { status: 200, body: '{}', type: 'application/json' };
    await expect(request(fakeUrl, 'DELETE', '/api/office/agents/ag_1')).rejects.toThrow(/status 200 is not declared/);
  });

  it('checks raw fetches too, not only the harness client', async () => {
    answer = { status: 202, body: JSON.stringify({ routine_run: { id: 'rr_1' } }), type: 'application/json' };
    await expect(fetch(`${fakeUrl}/api/routine-triggers/pub_1/fire`, { method: 'POST', body: 'x' })).rejects.toThrow(/does not match the document/);
  });
});
