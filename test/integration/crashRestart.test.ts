/**
 * The real server as a separate process, killed with SIGKILL in the middle of a run: nothing
 * gets a chance to clean up, so what happens next is decided by the rows alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, request, waitFor } from '../helpers/harness.js';
import { killServer, pidsWhere } from '../helpers/processes.js';
import { serverArgs } from '../helpers/serverProcess.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Server {
  proc: ChildProcess;
  url: string;
  exited: Promise<void>;
}

const servers: Server[] = [];
let dir: string | null = null;
let token: string | null = null;

afterEach(async () => {
  for (const server of servers.splice(0)) await killServer(server);
  if (token) killAgentsOf(token);
  token = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** The environment of the parent minus any OFFICE_* / FIXTURE_* settings, which the test sets itself. */
function baseEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(OFFICE_|FIXTURE_)/.test(e[0])),
  );
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const proc = spawn(process.execPath, await serverArgs(), {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let stdout = '';
  let stderr = '';
  proc.stderr!.on('data', (chunk) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stdout}${stderr}`)), 20_000);
    proc.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening: ${stdout}${stderr}`));
    });
  });
  const server = { proc, url, exited };
  servers.push(server);
  await waitFor(async () => (await fetch(`${url}/readyz`).catch(() => null))?.status === 200, '/readyz');
  return server;
}

const api = (server: Server, method: string, path: string, body?: unknown) => request(server.url, method, path, body);

/** Each agent process carries this test's token as an extra argument; find them by it (and only by it). */
function agentPidsOf(marker: string): number[] {
  return pidsWhere((argv) => argv.includes(`--test-token=${marker}`));
}

function killAgentsOf(marker: string): void {
  for (const pid of agentPidsOf(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already exited.
    }
  }
}

describe('crash and restart', () => {
  it('a SIGKILL during a run gives `interrupted` after restart, and the work is not lost', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-crash-'));
    token = randomUUID();
    const started = join(dir, 'started');
    const common = {
      OFFICE_DB: join(dir, 'office.db'),
      OFFICE_PORT: '0',
      OFFICE_LOG_LEVEL: 'silent',
      OFFICE_BACKOFF: '200ms',
      OFFICE_BACKOFF_JITTER: '0',
      OFFICE_RECOVERY_SWEEP_SEC: '0',
      // A session sees only the variables its scheduler is told to pass on.
      OFFICE_AGENT_ENV: 'FIXTURE_SLEEP_MS',
    };

    // The agent's sleep comes from the server's environment (the executor does not set it), so the
    // same stored agent sleeps long under the first server and briefly under the second.
    const first = await startServer({ ...common, FIXTURE_SLEEP_MS: '30000' });
    const ws = await api(first, 'POST', '/api/office/workspaces', { name: 'Acme' });
    const agent = await api(first, 'POST', '/api/office/agents', {
      workspace_id: ws.body.id, name: 'Worker', role: 'worker', cooldown_sec: 0,
      executor: {
        kind: 'command', command: process.execPath, args: [join(FIXTURES, 'sleep.mjs'), `--test-token=${token}`],
        env: { FIXTURE_STARTED_DIR: started },
      },
    });
    expect(agent.status).toBe(201);
    const agentId = agent.body.id;
    const task = await api(first, 'POST', '/api/office/tasks', { workspace_id: ws.body.id, title: 'Migrate the billing DB', assignee_agent_instance_id: agentId });
    expect(task.status).toBe(201);

    const marker = await waitFor(() => (existsSync(started) ? readdirSync(started).find((f) => f.endsWith('.started')) : undefined), 'the agent to start');
    const runId = marker.replace(/\.started$/, '');
    const before = await api(first, 'GET', `/api/office/runs/${runId}`);
    expect(before.body.status).toBe('running');
    const wakeupId = before.body.wakeup_id;

    first.proc.kill('SIGKILL');
    await first.exited;
    expect(first.proc.signalCode).toBe('SIGKILL');
    // The session dies with its server, mid-run (its watchdog kills it): its work is not done.
    if (process.platform === 'linux') await waitFor(() => agentPidsOf(token!).length === 0, 'the session to die with its server', 7_000);
    expect(existsSync(join(started, `${runId}.done`))).toBe(false);

    const second = await startServer({ ...common, FIXTURE_SLEEP_MS: '50' });
    const wakeup = await waitFor(async () => {
      const w = (await api(second, 'GET', `/api/office/wakeups/${wakeupId}`)).body;
      return w.status === 'finished' || w.status === 'failed' ? w : null;
    }, 'the wakeup to end after the restart');
    expect(wakeup).toMatchObject({ status: 'finished', retry_count: 1 });

    const interrupted = (await api(second, 'GET', `/api/office/runs/${runId}`)).body;
    expect(interrupted.status).toBe('interrupted');
    expect(interrupted.error).toMatch(/interrupted/);
    expect(interrupted.finished_at).not.toBeNull();

    const runs = (await api(second, 'GET', `/api/office/runs?agent_id=${agentId}`)).body as any[];
    expect(runs).toHaveLength(2);
    const succeeded = runs.filter((r) => r.wakeup_id === wakeupId && r.status === 'succeeded');
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]).toMatchObject({ id: wakeup.run_id, attempt: 2, task_id: task.body.id });
    expect(existsSync(join(started, `${succeeded[0].id}.done`))).toBe(true);

    // The work is not doubled either: one wakeup for the task, no recovery re-dispatch.
    const forTask = (await api(second, 'GET', `/api/office/wakeups?agent_id=${agentId}`)).body as any[];
    expect(forTask.map((w) => w.id)).toEqual([wakeupId]);
    const retried = (await api(second, 'GET', `/api/office/activity?workspace_id=${ws.body.id}&code=wakeup_retry_scheduled`)).body as any[];
    expect(retried).toHaveLength(1);
    expect(retried[0].message).toMatch(/interrupted/);

    // A clean stop this time.
    second.proc.kill('SIGTERM');
    await second.exited;
    expect(second.proc.exitCode).toBe(0);
    expect(agentPidsOf(token)).toEqual([]);
  });
});
