/**
 * Integration harness: a real SQLite file in a temp dir, the real HTTP server on a free port,
 * and real child processes as agents (the scripts in test/fixtures).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import type { ExecutorSpec } from '../../src/domain/executors.js';
import type { AgentFunction } from '../../src/executors/types.js';
import type { Clock } from '../../src/domain/clock.js';
import { createInspector } from '../../src/persistence/createStore.js';
import type { Inspector } from '../../src/persistence/inspector.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { installContractCheck, registerOfficeServer } from './contract.js';

// Every response from a server these tests start is checked against /openapi.json (contract.ts).
installContractCheck();

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** A command executor that runs one of the fixture agents with node. */
export function fixtureAgent(name: string, env: Record<string, string> = {}, timeoutSec?: number): ExecutorSpec {
  return {
    kind: 'command',
    command: process.execPath,
    args: [join(FIXTURES, name)],
    env,
    ...(timeoutSec ? { timeout_sec: timeoutSec } : {}),
  };
}

export interface Harness {
  url: string;
  dir: string;
  dbPath: string;
  scheduler: Scheduler;
  /** Read-only look at the committed rows, the same on every backend: what a test checks beyond the API. */
  inspect: Inspector;
  api<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }>;
  /** Polls until the check returns a truthy value (real processes take real time). */
  waitFor<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, what: string, timeoutMs?: number): Promise<T>;
  /** Stops the scheduler and starts another on the same database; `between` runs while none runs (rows as a crash left them). */
  restart(env?: Record<string, string>, between?: () => Promise<void> | void): Promise<void>;
  stop(): Promise<void>;
}

export const FAST_ENV: Record<string, string> = {
  OFFICE_PORT: '0',
  OFFICE_LOG_LEVEL: 'silent',
  OFFICE_COALESCE_WINDOW_MS: '300',
  OFFICE_BACKOFF: '200ms,400ms,600ms,800ms',
  OFFICE_BACKOFF_JITTER: '0',
  OFFICE_RECOVERY_SWEEP_SEC: '0',
  OFFICE_SHUTDOWN_GRACE_MS: '2000',
};

/** `clock` injects time (e.g. XState's SimulatedClock) to drive cron ticks, holds and windows by hand. */
export async function startHarness(env: Record<string, string> = {}, functions?: Map<string, AgentFunction>, clock?: Clock): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'office-it-'));
  const dbPath = join(dir, 'office.db');
  let currentEnv = { ...FAST_ENV, OFFICE_DB: dbPath, ...env };
  let scheduler = await boot(currentEnv, functions, clock);
  let url = (await scheduler.start()).url!;
  registerOfficeServer(url);
  const inspect = createInspector({ dbPath });

  const harness: Harness = {
    get url() { return url; },
    dir,
    dbPath,
    inspect,
    get scheduler() { return scheduler; },
    api(method, path, body, headers = {}) {
      return request(url, method, path, body, headers);
    },
    waitFor,
    async restart(extraEnv = {}, between) {
      await scheduler.stop();
      await between?.();
      currentEnv = { ...currentEnv, ...extraEnv };
      scheduler = await boot(currentEnv, functions, clock);
      url = (await scheduler.start()).url!;
      registerOfficeServer(url);
    },
    async stop() {
      await inspect.close();
      await scheduler.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  } as Harness;
  return harness;
}

/**
 * One call against a server at `baseUrl`: a JSON body (a string is sent as it is), and the answer's
 * status with its body parsed as JSON (the raw text when it is not JSON).
 */
export async function request<T = any>(
  baseUrl: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  registerOfficeServer(baseUrl);
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? safeJson(text) : undefined) as T };
}

/** Polls every 25 ms until the check returns a truthy value, or throws once `timeoutMs` has passed. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false, what: string, timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function boot(env: Record<string, string>, functions?: Map<string, AgentFunction>, clock?: Clock) {
  return createScheduler({ config: loadConfig(env), ...(functions ? { functions } : {}), ...(clock ? { clock } : {}) });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Creates a workspace and an agent with a fixture executor; returns their ids. */
export async function seedAgent(h: Harness, agent: Record<string, unknown> = {}, workspace: Record<string, unknown> = {}) {
  const ws = await h.api('POST', '/api/office/workspaces', { name: 'Acme', ...workspace });
  const ag = await h.api('POST', '/api/office/agents', {
    workspace_id: ws.body.id, name: 'Worker', role: 'worker', executor: fixtureAgent('succeed.mjs'), cooldown_sec: 0, ...agent,
  });
  if (ag.status !== 201) throw new Error(`agent create failed: ${JSON.stringify(ag.body)}`);
  return { workspaceId: ws.body.id as string, agentId: ag.body.id as string, agent: ag.body };
}
