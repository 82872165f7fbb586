/**
 * Every agent used to inherit the scheduler's secrets (API.md, "Trust boundaries": an agent's
 * environment is an allow-list): a real scheduler process with an admin token and settings of its
 * own in its environment, and a real session that records what it was given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../crash/harness.js';
import { invocationsOf, programExecutor } from '../helpers/agentPrograms.js';
import { request, waitFor } from '../helpers/harness.js';
import { killServer } from '../helpers/processes.js';

type Server = Awaited<ReturnType<typeof startServer>>;
let server: Server | null = null;
let dir: string | null = null;
afterEach(async () => {
  if (server) await killServer(server);
  if (dir) rmSync(dir, { recursive: true, force: true });
  server = null;
  dir = null;
});

describe('an agent\'s environment', () => {
  it('GIVEN a scheduler whose environment holds its admin token, its database and another secret WHEN a session starts THEN it sees none of them, only the allow-list, OFFICE_AGENT_ENV\'s names, its executor\'s env and its run variables', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-agent-env-'));
    const token = 'the-bootstrap-admin-token';
    server = await startServer({
      OFFICE_DB: join(dir, 'office.db'), OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'warn', OFFICE_API_TOKEN: token,
      OFFICE_AGENT_ENV: 'PASSED_ON', PASSED_ON: 'for the agent', NOT_PASSED: 'the scheduler\'s own', ANTHROPIC_API_KEY: 'sk-ant-host',
    });
    const api = (method: string, path: string, body?: unknown) => request(server!.url, method, path, body, { authorization: `Bearer ${token}` });
    const record = join(dir, 'record');
    const ws = (await api('POST', '/api/office/workspaces', { name: 'Acme' })).body.id;
    const agent = (await api('POST', '/api/office/agents', {
      workspace_id: ws, name: 'Claude', role: 'worker', cooldown_sec: 0, executor: programExecutor('claude_code', { record, executor: { env: { FROM_EXECUTOR: 'yes' } } }),
    })).body.id;
    await api('POST', `/api/office/agents/${agent}/wake`, { reason: 'look' });
    const run = await waitFor(async () => ((await api('GET', `/api/office/runs?agent_id=${agent}`)).body as any[]).find((r) => r.status === 'succeeded'), 'the run');
    const { env } = invocationsOf(record, run.id)[0]!;
    expect(env).toMatchObject({ PASSED_ON: 'for the agent', FROM_EXECUTOR: 'yes', ANTHROPIC_API_KEY: 'sk-ant-host', OFFICE_RUN_ID: run.id });
    expect(env.PATH).toBeTruthy();
    expect(env.OFFICE_RUN_TOKEN).toBeTruthy();
    expect(env).not.toHaveProperty('OFFICE_API_TOKEN');
    expect(env).not.toHaveProperty('OFFICE_DB');
    expect(env).not.toHaveProperty('OFFICE_AGENT_ENV');
    expect(env).not.toHaveProperty('NOT_PASSED');
    expect(Object.values(env)).not.toContain(token);
  });
});
