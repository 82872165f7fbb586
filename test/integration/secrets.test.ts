/**
 * Secrets are write-only (API.md, "Trust boundaries"): an executor's `env` values and an `http`
 * executor's `headers` are stored and used, and answered as "********" by every response, never
 * written to the activity or the logs. A PATCH replaces the executor whole, except that a value sent
 * back masked keeps the stored one of the same name. Real server, SQLite file, real agents.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger, createScheduler } from '../../src/scheduler.js';
import { apiClient } from '../helpers/client.js';
import { FAST_ENV, fixtureAgent, request, startHarness, waitFor, type Harness } from '../helpers/harness.js';

const MASK = '********';
const KEY = 'sk-live-0123456789abcdef';
const BEARER = 'Bearer hook-secret-9876';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const { call, get, post, patch, listActivity, createWorkspace, waitForWakeupEnd } = apiClient(() => h);

const httpExecutor = { kind: 'http', url: 'http://127.0.0.1:9/agent', headers: { authorization: BEARER, 'x-team': 'billing' } };

describe('secrets in executors are write-only', () => {
  it('every read and write of workspaces, projects, agents and tasks answers env and header values as ********, while the database keeps them and the session gets them', async () => {
    h = await startHarness();
    const answers: { what: string; body: unknown }[] = [];
    const seen = (what: string, body: unknown) => {
      answers.push({ what, body });
      return body as any;
    };
    const workspace = seen('POST workspace', await post('/api/office/workspaces', { name: 'Acme', default_executor: httpExecutor }));
    seen('GET workspace', await get(`/api/office/workspaces/${workspace.id}`));
    seen('GET workspaces', await get('/api/office/workspaces'));
    seen('PATCH workspace', await patch(`/api/office/workspaces/${workspace.id}`, { name: 'Acme Inc' }));
    const project = seen('POST project', await post('/api/office/projects', {
      workspace_id: workspace.id, name: 'Billing', default_executor: fixtureAgent('succeed.mjs', { OFFICE_TEST_PROVIDER_KEY: KEY }),
    }));
    seen('GET project', await get(`/api/office/projects/${project.id}`));
    seen('GET projects', await get(`/api/office/projects?workspace_id=${workspace.id}`));
    seen('PATCH project', await patch(`/api/office/projects/${project.id}`, { name: 'Billing 2' }));
    const agent = seen('POST agent', await post('/api/office/agents', {
      workspace_id: workspace.id, name: 'Worker', role: 'worker', executor: fixtureAgent('succeed.mjs', { OFFICE_TEST_PROVIDER_KEY: KEY }),
    }));
    seen('GET agent', await get(`/api/office/agents/${agent.id}`));
    seen('GET agents', await get(`/api/office/agents?workspace_id=${workspace.id}`));
    seen('PATCH agent', await patch(`/api/office/agents/${agent.id}`, { cooldown_sec: 0 }));
    const task = seen('POST task', await post('/api/office/tasks', { workspace_id: workspace.id, title: 'Invoice run', executor: httpExecutor }));
    seen('GET task', await get(`/api/office/tasks/${task.id}`));
    seen('GET tasks', await get(`/api/office/tasks?workspace_id=${workspace.id}`));
    seen('PATCH task', await patch(`/api/office/tasks/${task.id}`, { title: 'Invoice run 2' }));

    for (const { what, body } of answers) {
      const text = JSON.stringify(body);
      expect(text, what).not.toContain(KEY);
      expect(text, what).not.toContain(BEARER);
      expect(text, what).toContain(MASK);
    }
    expect(workspace.default_executor.headers).toEqual({ authorization: MASK, 'x-team': MASK });
    expect(agent.executor.env).toEqual({ OFFICE_TEST_PROVIDER_KEY: MASK });

    const [stored] = await h.inspect.rows<{ executor: string }>('agent_instances', { id: agent.id });
    expect(JSON.parse(stored!.executor).env).toEqual({ OFFICE_TEST_PROVIDER_KEY: KEY });
    const [storedWs] = await h.inspect.rows<{ default_executor: string }>('workspaces', { id: workspace.id });
    expect(JSON.parse(storedWs!.default_executor).headers.authorization).toBe(BEARER);

    // The session gets the real value; its run and the activity feed do not show it.
    const record = join(h.dir, 'record');
    await patch(`/api/office/agents/${agent.id}`, { executor: fixtureAgent('succeed.mjs', { OFFICE_TEST_PROVIDER_KEY: MASK, FIXTURE_RECORD_DIR: record }) });
    const woke = await call('POST', `/api/office/agents/${agent.id}/wake`, { reason: 'go' }, 202);
    const ended = await waitForWakeupEnd(woke.wakeup.id);
    expect(ended.status).toBe('finished');
    expect(JSON.parse(readFileSync(join(record, `${ended.run_id}.json`), 'utf8')).env.OFFICE_TEST_PROVIDER_KEY).toBe(KEY);
    expect(JSON.stringify(await listActivity({ workspace_id: workspace.id, limit: '1000' }))).not.toContain(KEY);
    expect(JSON.stringify(await get(`/api/office/runs/${ended.run_id}`))).not.toContain(KEY);
  });

  it('a PATCH replaces the executor whole, keeping a value sent back masked for the same name; a masked value with nothing stored under its name is a 400 that changes nothing', async () => {
    h = await startHarness();
    const ws = await createWorkspace();
    const agent = await post('/api/office/agents', {
      workspace_id: ws, name: 'Worker', role: 'worker', executor: { kind: 'command', command: 'old-agent', env: { OFFICE_TEST_PROVIDER_KEY: KEY, REGION: 'eu' } },
    });
    // What a client read, sent back with another command: the key is kept, REGION (left out) is gone, a new value is taken.
    const changed = await patch(`/api/office/agents/${agent.id}`, {
      executor: { kind: 'command', command: 'new-agent', env: { OFFICE_TEST_PROVIDER_KEY: MASK, MODEL: 'large' } },
    });
    expect(changed.executor).toEqual({ kind: 'command', command: 'new-agent', env: { OFFICE_TEST_PROVIDER_KEY: MASK, MODEL: MASK } });
    const stored = async () => JSON.parse((await h!.inspect.rows<{ executor: string }>('agent_instances', { id: agent.id }))[0]!.executor);
    expect(await stored()).toEqual({ kind: 'command', command: 'new-agent', env: { OFFICE_TEST_PROVIDER_KEY: KEY, MODEL: 'large' } });

    const unknown = await h.api('PATCH', `/api/office/agents/${agent.id}`, { executor: { kind: 'command', command: 'x', env: { REGION: MASK } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('executor.env.REGION');
    expect(await stored()).toEqual({ kind: 'command', command: 'new-agent', env: { OFFICE_TEST_PROVIDER_KEY: KEY, MODEL: 'large' } });

    // Headers of an http executor, and a workspace's default, the same way.
    const workspace = await patch(`/api/office/workspaces/${ws}`, { default_executor: httpExecutor });
    await patch(`/api/office/workspaces/${ws}`, { default_executor: { ...httpExecutor, url: 'http://127.0.0.1:9/v2', headers: workspace.default_executor.headers } });
    const [storedWs] = await h.inspect.rows<{ default_executor: string }>('workspaces', { id: ws });
    expect(JSON.parse(storedWs!.default_executor)).toEqual({ ...httpExecutor, url: 'http://127.0.0.1:9/v2' });
  });

  it("the scheduler's log lines never carry a secret: an executor's env and headers are redacted wherever a line logs one", async () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
    const logger = createLogger({ logLevel: 'debug' }, sink);
    logger.info({ executor: { kind: 'command', command: 'agent', env: { OFFICE_TEST_PROVIDER_KEY: KEY } } }, 'an agent');
    logger.info({ agent: { default_executor: httpExecutor }, spec: { kind: 'claude_code', env: { ANTHROPIC_API_KEY: KEY } } }, 'a launch');
    expect(lines.join('')).not.toContain(KEY);
    expect(lines.join('')).not.toContain(BEARER);
    expect(JSON.parse(lines[0]!).executor.env.OFFICE_TEST_PROVIDER_KEY).toBe(MASK);
    expect(JSON.parse(lines[1]!).spec.env.ANTHROPIC_API_KEY).toBe(MASK);

    // And a whole run through a scheduler logging at debug.
    const dir = mkdtempSync(join(tmpdir(), 'office-secrets-'));
    const scheduler = await createScheduler({ config: loadConfig({ ...FAST_ENV, OFFICE_DB: join(dir, 'logged.db'), OFFICE_LOG_LEVEL: 'debug' }), logger });
    const { url } = await scheduler.start();
    try {
      const ws = (await request(url!, 'POST', '/api/office/workspaces', { name: 'Logged', default_executor: httpExecutor })).body.id;
      const agent = (await request(url!, 'POST', '/api/office/agents', {
        workspace_id: ws, name: 'W', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs', { OFFICE_TEST_PROVIDER_KEY: KEY }),
      })).body.id;
      const woke = (await request(url!, 'POST', `/api/office/agents/${agent}/wake`, { reason: 'go' })).body.wakeup.id;
      await waitFor(async () => ['finished', 'failed'].includes((await request(url!, 'GET', `/api/office/wakeups/${woke}`)).body.status), 'the logged run to end');
    } finally {
      await scheduler.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.join('')).not.toContain(KEY);
    expect(lines.join('')).not.toContain(BEARER);
  });
});
