import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../src/domain/executors.js';
import { commandExecutor } from '../../src/executors/command.js';
import { functionExecutor } from '../../src/executors/function.js';
import { httpExecutor } from '../../src/executors/http.js';
import { createExecutors } from '../../src/executors/index.js';
import type { AgentFunction, LaunchRequest } from '../../src/executors/types.js';
import { pidsWhere } from '../helpers/processes.js';

const fixturesDir = fileURLToPath(new URL('../fixtures/', import.meta.url));
const fixture = (name: string) => join(fixturesDir, name);

let runCounter = 0;
function makeRequest(overrides: Partial<LaunchRequest> = {}): LaunchRequest {
  runCounter += 1;
  return {
    runId: `run-${process.pid}-${runCounter}-${Date.now()}`,
    wakeupId: 'wk-1',
    agentId: 'agent-1',
    workspaceId: 'ws-1',
    taskId: 'task-1',
    source: 'timer',
    prompt: 'Do the thing.',
    context: { reason: 'test' },
    apiUrl: 'http://127.0.0.1:9/api',
    runToken: 'tok-secret',
    sessionKey: 'sess-1',
    ...overrides,
  };
}

function commandSpec(
  script: string,
  extra: { env?: Record<string, string>; timeout_sec?: number; args?: string[]; cwd?: string } = {},
): Extract<ExecutorSpec, { kind: 'command' }> {
  return {
    kind: 'command',
    command: process.execPath,
    args: [fixture(script), ...(extra.args ?? [])],
    ...(extra.env ? { env: extra.env } : {}),
    ...(extra.timeout_sec !== undefined ? { timeout_sec: extra.timeout_sec } : {}),
    ...(extra.cwd ? { cwd: extra.cwd } : {}),
  };
}

/** Pids of live processes whose command line contains `marker` (Linux /proc; empty elsewhere). */
const processesWithMarker = (marker: string) => pidsWhere((argv) => argv.join('\0').includes(marker));

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'office-executors-'));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('command executor', () => {
  it('succeeds with the last JSON line, passes OFFICE_* env and the prompt on stdin', async () => {
    const recordDir = join(tmp, 'records');
    const request = makeRequest({ prompt: 'hello agent' });
    let started = 0;
    const result = await commandExecutor.launch(
      commandSpec('succeed.mjs', { env: { FIXTURE_RECORD_DIR: recordDir, FIXTURE_COST: '0.25' } }),
      { ...request, onStarted: () => (started += 1) },
    );

    expect(result).toMatchObject({ ok: true, error: null, exitCode: 0, timedOut: false });
    expect(result.resultJson).toEqual({ summary: 'handled timer', cost_usd: 0.25, prompt_chars: 'hello agent'.length });
    expect(started).toBe(1);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);

    const record = JSON.parse(readFileSync(join(recordDir, `${request.runId}.json`), 'utf8'));
    expect(record.prompt).toBe('hello agent');
    expect(record.env).toEqual({
      OFFICE_RUN_ID: request.runId,
      OFFICE_WAKEUP_ID: 'wk-1',
      OFFICE_AGENT_ID: 'agent-1',
      OFFICE_WORKSPACE_ID: 'ws-1',
      OFFICE_TASK_ID: 'task-1',
      OFFICE_WAKE_SOURCE: 'timer',
      OFFICE_API_URL: 'http://127.0.0.1:9/api',
      OFFICE_RUN_TOKEN: 'tok-secret',
      OFFICE_SESSION_KEY: 'sess-1',
    });
  });

  it('passes empty OFFICE_TASK_ID / OFFICE_SESSION_KEY when absent, and OFFICE_* beats spec.env', async () => {
    const recordDir = join(tmp, 'records');
    const request = makeRequest({ taskId: null, sessionKey: null });
    const result = await commandExecutor.launch(
      commandSpec('succeed.mjs', { env: { FIXTURE_RECORD_DIR: recordDir, OFFICE_RUN_TOKEN: 'spoofed' } }),
      request,
    );
    expect(result.ok).toBe(true);
    const record = JSON.parse(readFileSync(join(recordDir, `${request.runId}.json`), 'utf8'));
    expect(record.env.OFFICE_TASK_ID).toBe('');
    expect(record.env.OFFICE_SESSION_KEY).toBe('');
    expect(record.env.OFFICE_RUN_TOKEN).toBe('tok-secret');
  });

  it('runs in spec.cwd with spec.env, without a shell', async () => {
    const script = 'process.stdout.write(JSON.stringify({ cwd: process.cwd(), knob: process.env.KNOB, arg: process.argv[1] }) + "\\n")';
    const result = await commandExecutor.launch(
      { kind: 'command', command: process.execPath, args: ['-e', script, '$HOME; echo hi'], cwd: tmp, env: { KNOB: 'on' } },
      makeRequest(),
    );
    expect(result.ok).toBe(true);
    expect(result.resultJson).toEqual({ cwd: tmp, knob: 'on', arg: '$HOME; echo hi' });
  });

  it('fails with the stderr text on a non-zero exit', async () => {
    const result = await commandExecutor.launch(commandSpec('fail.mjs'), makeRequest());
    expect(result).toMatchObject({ ok: false, exitCode: 1, timedOut: false, error: 'connection timed out after 30s' });
  });

  it('surfaces rate-limit text from stderr', async () => {
    const result = await commandExecutor.launch(commandSpec('rate-limit.mjs'), makeRequest());
    expect(result.ok).toBe(false);
    expect(result.error).toContain('Retry-After: 3600');
  });

  it('falls back to "exit code N" when stderr is empty', async () => {
    const result = await commandExecutor.launch(
      { kind: 'command', command: process.execPath, args: ['-e', 'process.exitCode = 3'] },
      makeRequest(),
    );
    expect(result).toMatchObject({ ok: false, exitCode: 3, error: 'exit code 3' });
  });

  it('returns the stdout tail as {result} when no line is a JSON object', async () => {
    const result = await commandExecutor.launch(
      commandSpec('json-actions.mjs', { env: { FIXTURE_RESULT: '[1, 2, 3]' } }),
      makeRequest(),
    );
    expect(result.ok).toBe(true);
    expect(result.resultJson).toEqual({ result: 'json-actions fixture output follows\n[1,2,3]' });
  });

  it('keeps memory bounded on huge output but still finds the final JSON line', async () => {
    const script = [
      'const line = "x".repeat(1023) + "\\n";',
      'for (let i = 0; i < 2048; i++) process.stdout.write(line);',
      'process.stdout.write(JSON.stringify({ done: true }) + "\\n");',
    ].join('\n');
    const ok = await commandExecutor.launch({ kind: 'command', command: process.execPath, args: ['-e', script] }, makeRequest());
    expect(ok.resultJson).toEqual({ done: true });

    const noisy = await commandExecutor.launch(
      { kind: 'command', command: process.execPath, args: ['-e', 'process.stdout.write("y".repeat(3_000_000))'] },
      makeRequest(),
    );
    expect(noisy.ok).toBe(true);
    expect(String(noisy.resultJson.result)).toHaveLength(4000);
  });

  it('kills the process group on timeout', async () => {
    const startedDir = join(tmp, 'started');
    const marker = `office-timeout-${runCounter}-${Date.now()}`;
    const request = makeRequest();
    const t0 = Date.now();
    const result = await commandExecutor.launch(
      commandSpec('sleep.mjs', {
        env: { FIXTURE_SLEEP_MS: '10000', FIXTURE_STARTED_DIR: startedDir },
        timeout_sec: 1,
        args: [marker],
      }),
      request,
    );
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(result).toMatchObject({ ok: false, timedOut: true, exitCode: null });
    expect(result.error).toBe('timeout');
    expect(existsSync(join(startedDir, `${request.runId}.started`))).toBe(true);
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('kills grandchildren too, since the child leads its own process group', async () => {
    const marker = `office-grandchild-${runCounter}-${Date.now()}`;
    const script = [
      'const { spawn } = require("node:child_process");',
      `spawn(process.execPath, ["-e", "setTimeout(() => {}, 10000)", ${JSON.stringify(marker)}], { stdio: "inherit" });`,
      'setTimeout(() => {}, 10000);',
    ].join('\n');
    const result = await commandExecutor.launch(
      { kind: 'command', command: process.execPath, args: ['-e', script], timeout_sec: 1 },
      makeRequest(),
    );
    expect(result.timedOut).toBe(true);
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('a killed sleeper never finishes its work', async () => {
    // Sleep just past the timeout: a surviving child would write .done once its sleep ends.
    const startedDir = join(tmp, 'started');
    const request = makeRequest();
    let pgid = 0;
    const result = await commandExecutor.launch(
      commandSpec('sleep.mjs', { env: { FIXTURE_SLEEP_MS: '1200', FIXTURE_STARTED_DIR: startedDir }, timeout_sec: 1 }),
      { ...request, onSession: (session) => { pgid = session.pgid; } },
    );
    expect(result.timedOut).toBe(true);
    expect(existsSync(join(startedDir, `${request.runId}.started`))).toBe(true);
    // Once the whole group is gone nothing is left that could write .done: no fixed wait needed.
    await waitForGroupGone(pgid);
    expect(existsSync(join(startedDir, `${request.runId}.done`))).toBe(false);
  });

  it('kills the run when the signal aborts', async () => {
    const marker = `office-abort-${runCounter}-${Date.now()}`;
    const controller = new AbortController();
    const t0 = Date.now();
    const result = await commandExecutor.launch(
      commandSpec('sleep.mjs', { env: { FIXTURE_SLEEP_MS: '10000' }, args: [marker] }),
      makeRequest({ signal: controller.signal, onStarted: () => controller.abort() }),
    );
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(result).toMatchObject({ ok: false, timedOut: false, error: 'aborted' });
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('does not spawn when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    let started = false;
    const result = await commandExecutor.launch(
      commandSpec('succeed.mjs'),
      makeRequest({ signal: controller.signal, onStarted: () => (started = true) }),
    );
    expect(result.ok).toBe(false);
    expect(started).toBe(false);
  });

  it('does not spawn when its run may not start (a cancel came first), and says the session never started', async () => {
    const record = join(tmp, 'record');
    let asked = 0;
    const request = makeRequest({ mayStart: async () => { asked++; return false; } });
    const result = await commandExecutor.launch(commandSpec('succeed.mjs', { env: { FIXTURE_RECORD_DIR: record } }), request);
    expect(result).toMatchObject({ ok: false, started: false });
    expect(asked).toBe(1);
    expect(existsSync(join(record, `${request.runId}.json`))).toBe(false);
  });

  it('reports a missing command as a failed result, not a throw', async () => {
    let started = false;
    const result = await commandExecutor.launch(
      { kind: 'command', command: 'office-no-such-agent-cli' },
      makeRequest({ onStarted: () => (started = true) }),
    );
    expect(result.ok).toBe(false);
    expect(result.error).toContain('ENOENT');
    expect(result.error).toContain('office-no-such-agent-cli');
    expect(result.exitCode).toBeNull();
    expect(started).toBe(false);
  });

  it('tolerates a child that never reads stdin', async () => {
    const result = await commandExecutor.launch(
      { kind: 'command', command: process.execPath, args: ['-e', 'console.log("{\\"ok\\":1}")'] },
      makeRequest({ prompt: 'p'.repeat(1_000_000) }),
    );
    expect(result.ok).toBe(true);
    expect(result.resultJson).toEqual({ ok: 1 });
  });
});

describe('http executor', () => {
  type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
  const received: { headers: IncomingMessage['headers']; body: unknown; url: string | undefined }[] = [];
  let handler: Handler = (_req, _body, res) => res.end();
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        received.push({ headers: req.headers, body: JSON.parse(text || 'null'), url: req.url });
        handler(req, text, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    received.length = 0;
  });

  const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(value));
  };

  it('posts the run and returns a 2xx JSON object as the result', async () => {
    handler = (_req, _body, res) => json(res, 200, { summary: 'done', cost_usd: 0.1 });
    let started = 0;
    const request = makeRequest({ taskId: null, onStarted: () => (started += 1) });
    const result = await httpExecutor.launch({ kind: 'http', url: `${baseUrl}/agent`, headers: { 'x-extra': 'yes' } }, request);

    expect(result).toMatchObject({ ok: true, error: null, exitCode: null, timedOut: false });
    expect(result.resultJson).toEqual({ summary: 'done', cost_usd: 0.1 });
    expect(started).toBe(1);
    expect(received).toHaveLength(1);
    const [hit] = received;
    expect(hit?.url).toBe('/agent');
    expect(hit?.headers.authorization).toBe('Bearer tok-secret');
    expect(hit?.headers['content-type']).toBe('application/json');
    expect(hit?.headers['x-extra']).toBe('yes');
    expect(hit?.body).toEqual({
      run_id: request.runId,
      wakeup_id: 'wk-1',
      agent_id: 'agent-1',
      workspace_id: 'ws-1',
      task_id: null,
      source: 'timer',
      prompt: 'Do the thing.',
      context: { reason: 'test' },
    });
  });

  it('lets spec.headers override authorization', async () => {
    handler = (_req, _body, res) => json(res, 200, {});
    const result = await httpExecutor.launch(
      { kind: 'http', url: `${baseUrl}/agent`, headers: { Authorization: 'Basic abc' } },
      makeRequest(),
    );
    expect(result.ok).toBe(true);
    expect(received[0]?.headers.authorization).toBe('Basic abc');
  });

  it('sends the run span as traceparent and tracestate, over any configured ones, and neither without a trace context', async () => {
    handler = (_req, _body, res) => json(res, 200, {});
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const configured = { traceparent: '00-11111111111111111111111111111111-2222222222222222-01', tracestate: 'stale=1' };
    const traced = await httpExecutor.launch({ kind: 'http', url: baseUrl, headers: configured }, makeRequest({ traceContext: { traceparent, tracestate: 'vendor=abc' } }));
    const parentOnly = await httpExecutor.launch({ kind: 'http', url: baseUrl, headers: configured }, makeRequest({ traceContext: { traceparent } }));
    const untraced = await httpExecutor.launch({ kind: 'http', url: baseUrl }, makeRequest({ traceContext: null }));
    expect([traced.ok, parentOnly.ok, untraced.ok]).toEqual([true, true, true]);
    expect(received.map((hit) => [hit.headers.traceparent ?? null, hit.headers.tracestate ?? null])).toEqual([
      [traceparent, 'vendor=abc'],
      [traceparent, null],
      [null, null],
    ]);
  });

  it('wraps non-object or non-JSON 2xx bodies as {result}', async () => {
    handler = (_req, _body, res) => res.end('  plain words  ');
    const text = await httpExecutor.launch({ kind: 'http', url: baseUrl }, makeRequest());
    expect(text).toMatchObject({ ok: true, resultJson: { result: 'plain words' } });

    handler = (_req, _body, res) => json(res, 200, [1, 2]);
    const array = await httpExecutor.launch({ kind: 'http', url: baseUrl }, makeRequest());
    expect(array).toMatchObject({ ok: true, resultJson: { result: '[1,2]' } });
  });

  it('fails a 429 with status line, Retry-After and body', async () => {
    handler = (_req, _body, res) => json(res, 429, { error: 'slow down' }, { 'retry-after': '120' });
    const result = await httpExecutor.launch({ kind: 'http', url: baseUrl }, makeRequest());
    expect(result.ok).toBe(false);
    expect(result.error).toBe('HTTP 429 Too Many Requests\nRetry-After: 120\n{"error":"slow down"}');
  });

  it('fails a 500 without Retry-After', async () => {
    handler = (_req, _body, res) => {
      res.writeHead(500);
      res.end('boom');
    };
    const result = await httpExecutor.launch({ kind: 'http', url: baseUrl }, makeRequest());
    expect(result).toMatchObject({ ok: false, error: 'HTTP 500 Internal Server Error\nboom' });
  });

  it('times out a hanging server', async () => {
    handler = () => {}; // never responds
    const t0 = Date.now();
    const result = await httpExecutor.launch({ kind: 'http', url: baseUrl, timeout_sec: 0.3 }, makeRequest());
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(result).toMatchObject({ ok: false, timedOut: true, error: 'timeout' });
  });

  it('aborts with the request signal', async () => {
    handler = () => {};
    const controller = new AbortController();
    const result = await httpExecutor.launch(
      { kind: 'http', url: baseUrl },
      makeRequest({ signal: controller.signal, onStarted: () => queueMicrotask(() => controller.abort()) }),
    );
    expect(result).toMatchObject({ ok: false, timedOut: false, error: 'aborted' });
  });

  it('fails on a network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const result = await httpExecutor.launch({ kind: 'http', url: `http://127.0.0.1:${port}/` }, makeRequest());
    expect(result.ok).toBe(false);
    expect(result.timedOut).toBe(false);
    expect(result.error).toMatch(/ECONNREFUSED|fetch failed/);
  });
});

describe('function executor', () => {
  const registry = new Map<string, AgentFunction>([
    ['echo', (req) => ({ summary: `handled ${req.source}`, prompt: req.prompt })],
    ['async', async () => ({ later: true })],
    ['void', () => {}],
    ['throws', () => {
      throw new Error('agent exploded');
    }],
    ['rejects', async () => {
      throw new Error('async explosion');
    }],
    ['hangs', () => new Promise<void>(() => {})],
  ]);
  const exec = functionExecutor(registry);

  it('returns the registered function result', async () => {
    let started = 0;
    const result = await exec.launch({ kind: 'function', name: 'echo' }, makeRequest({ onStarted: () => (started += 1) }));
    expect(result).toMatchObject({ ok: true, error: null, timedOut: false, resultJson: { summary: 'handled timer', prompt: 'Do the thing.' } });
    expect(started).toBe(1);
    expect(await exec.launch({ kind: 'function', name: 'async' }, makeRequest())).toMatchObject({ ok: true, resultJson: { later: true } });
    expect(await exec.launch({ kind: 'function', name: 'void' }, makeRequest())).toMatchObject({ ok: true, resultJson: {} });
  });

  it('turns a throw or rejection into a failure', async () => {
    expect(await exec.launch({ kind: 'function', name: 'throws' }, makeRequest())).toMatchObject({ ok: false, error: 'agent exploded' });
    expect(await exec.launch({ kind: 'function', name: 'rejects' }, makeRequest())).toMatchObject({ ok: false, error: 'async explosion' });
  });

  it('fails an unknown name', async () => {
    const result = await exec.launch({ kind: 'function', name: 'nope' }, makeRequest());
    expect(result).toMatchObject({ ok: false, error: "no function registered as 'nope'" });
  });

  it('honours timeout_sec', async () => {
    const result = await exec.launch({ kind: 'function', name: 'hangs', timeout_sec: 0.1 }, makeRequest());
    expect(result).toMatchObject({ ok: false, timedOut: true, error: 'timeout' });
  });

  it('honours the abort signal', async () => {
    const controller = new AbortController();
    const result = await exec.launch(
      { kind: 'function', name: 'hangs' },
      makeRequest({ signal: controller.signal, onStarted: () => queueMicrotask(() => controller.abort()) }),
    );
    expect(result).toMatchObject({ ok: false, error: 'aborted' });
  });
});

describe('createExecutors', () => {
  it('gives every run without its own timeout_sec the run timeout (OFFICE_RUN_TIMEOUT_SEC); its own wins', async () => {
    const executors = createExecutors(new Map([['hangs', () => new Promise<void>(() => {})]]), { runTimeoutSec: 0.2 });
    const t0 = Date.now();
    expect(await executors.launch({ kind: 'function', name: 'hangs' }, makeRequest())).toMatchObject({ ok: false, timedOut: true, error: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(2000);
    const own = await executors.launch(
      { kind: 'command', command: process.execPath, args: ['-e', 'setTimeout(() => console.log("{\\"late\\":1}"), 500)'], timeout_sec: 5 },
      makeRequest(),
    );
    expect(own).toMatchObject({ ok: true, resultJson: { late: 1 } });
  });

  it('a timed-out command fails with `timeout`, followed by its stderr tail', async () => {
    const result = await createExecutors(new Map(), { runTimeoutSec: 1 }).launch(
      { kind: 'command', command: process.execPath, args: ['-e', 'console.error("rate_limit_error: Retry-After: 60"); setTimeout(() => {}, 10000)'] },
      makeRequest(),
    );
    expect(result).toMatchObject({ ok: false, timedOut: true, error: 'timeout\nrate_limit_error: Retry-After: 60' });
  });

  it('dispatches on spec.kind', async () => {
    const executors = createExecutors(new Map([['fn', () => ({ via: 'function' })]]), { runTimeoutSec: 60 });
    expect(await executors.launch({ kind: 'function', name: 'fn' }, makeRequest())).toMatchObject({ ok: true, resultJson: { via: 'function' } });
    expect(await executors.launch(commandSpec('succeed.mjs'), makeRequest({ source: 'manual' }))).toMatchObject({
      ok: true,
      resultJson: { summary: 'handled manual' },
    });
    expect(await executors.launch({ kind: 'http', url: 'http://127.0.0.1:1/' }, makeRequest())).toMatchObject({ ok: false });
  });
});

/** Resolves once no process of the group is left; fails the test if one outlives 5 s. */
async function waitForGroupGone(pgid: number): Promise<void> {
  expect(pgid).toBeGreaterThan(0);
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`process group ${pgid} is still alive 5 s after the timeout`);
    await delay(20);
  }
}
