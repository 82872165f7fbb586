/**
 * Sessions never outlive their scheduler (API.md "Running in production"): the real server as a
 * separate process, killed with SIGKILL while a real agent process runs, then restarted on the
 * same database. The agents record their sessions (test/fixtures/lib.mjs, FIXTURE_SESSION_DIR).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../crash/harness.js';
import { WATCHDOG_NAME } from '../../src/executors/process.js';
import { FIXTURES, request, waitFor } from '../helpers/harness.js';
import { killServer, pidsWhere } from '../helpers/processes.js';

const GRACE_MS = 2000;

type Server = Awaited<ReturnType<typeof startServer>>;
const servers: Server[] = [];
let dir: string | null = null;
let token: string | null = null;

afterEach(async () => {
  for (const server of servers.splice(0)) await killServer(server);
  if (token) for (const pid of pidsWhere((argv) => argv.includes(`--test-token=${token}`))) kill(pid, 'SIGKILL');
  token = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function kill(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

interface SessionRecord {
  pid: number;
  run_id: string;
  wakeup_id: string;
  started_at: number;
  others_alive: { pid: number; wakeup_id: string | null }[];
}

function sessions(sessionDir: string): SessionRecord[] {
  if (!existsSync(sessionDir)) return [];
  return readdirSync(sessionDir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(sessionDir, f), 'utf8')));
}

/** Fields 3 (state) and 4 (ppid) of /proc/<pid>/stat; null once the process is gone. */
function procStat(pid: number): { state: string; ppid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: state!, ppid: Number(ppid) };
  } catch {
    return null;
  }
}

/** Runs nothing any more: gone, or dead and not yet reaped by whoever inherited it. */
const gone = (pid: number) => {
  const stat = procStat(pid);
  return stat === null || stat.state === 'Z' || stat.state === 'X';
};

async function boot(env: Record<string, string>, options: { ownProcessGroup?: boolean } = {}): Promise<Server> {
  const server = await startServer(env, 30_000, options);
  servers.push(server);
  await waitFor(async () => (await fetch(`${server.url}/readyz`).catch(() => null))?.status === 200, '/readyz');
  return server;
}

/** A server, a worker on stubborn.mjs (slow to wind down after SIGTERM) and a wakeup whose session is running. */
async function sessionRunning(options: { ownProcessGroup?: boolean } = {}) {
  dir = mkdtempSync(join(tmpdir(), 'office-sessions-'));
  token = randomUUID();
  const sessionDir = join(dir, 'sessions');
  const env = {
    OFFICE_DB: join(dir, 'office.db'), OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'warn', OFFICE_BACKOFF: '200ms',
    OFFICE_BACKOFF_JITTER: '0', OFFICE_RECOVERY_SWEEP_SEC: '0', OFFICE_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    FIXTURE_SESSION_DIR: sessionDir,
  };
  // The agent's sleep comes from the server's environment: long under the first server, short after.
  const first = await boot({ ...env, FIXTURE_SLEEP_MS: '60000' }, options);
  const api = (server: Server, method: string, path: string, body?: unknown) => request(server.url, method, path, body);
  const ws = await api(first, 'POST', '/api/office/workspaces', { name: 'Acme' });
  const agent = await api(first, 'POST', '/api/office/agents', {
    workspace_id: ws.body.id, name: 'Worker', role: 'worker', cooldown_sec: 0,
    executor: {
      kind: 'command', command: process.execPath, args: [join(FIXTURES, 'stubborn.mjs'), `--test-token=${token}`],
      env: { FIXTURE_TERM_DELAY_MS: '10000' },
    },
  });
  expect(agent.status).toBe(201);
  const woke = await api(first, 'POST', `/api/office/agents/${agent.body.id}/wake`, { reason: 'long job' });
  expect(woke.status).toBeLessThan(300);
  const [session] = await waitFor(() => {
    const all = sessions(sessionDir);
    return all.length > 0 ? all : null;
  }, 'the session to start');
  // The run records who its session is, as a process.
  const run = await waitFor(async () => {
    const r = (await api(first, 'GET', `/api/office/runs/${session!.run_id}`)).body;
    return r.session_pid ? r : null;
  }, 'the session to be recorded on its run');
  expect(run).toMatchObject({ status: 'running', session_pid: session!.pid, session_pgid: session!.pid });
  expect(run.session_start_time).toMatch(/^[0-9a-f-]+:\d+$/);
  return { env, first, api, sessionDir, session: session!, agentId: agent.body.id as string };
}

describe.runIf(process.platform === 'linux')('sessions never outlive their scheduler', () => {
  it(`after a SIGKILL of the scheduler the session's pid is gone within OFFICE_SHUTDOWN_GRACE_MS + 5 s, and no two sessions of the wakeup overlap`, async () => {
    const { env, first, api, sessionDir, session } = await sessionRunning();

    first.proc.kill('SIGKILL');
    const killedAt = Date.now();
    await first.exited;
    // The agent ignores SIGTERM for 10 s: only the watchdog's SIGKILL after its grace stops it in time.
    await waitFor(() => gone(session.pid), 'the session to die with its scheduler', GRACE_MS + 5000);
    expect(Date.now() - killedAt).toBeLessThan(GRACE_MS + 5000);

    const second = await boot({ ...env, FIXTURE_SLEEP_MS: '50' });
    const wakeup = await waitFor(async () => {
      const w = (await api(second, 'GET', `/api/office/wakeups/${session.wakeup_id}`)).body;
      return w.status === 'finished' || w.status === 'failed' ? w : null;
    }, 'the wakeup to run again and end');
    expect(wakeup).toMatchObject({ status: 'finished', retry_count: 1 });
    expect((await api(second, 'GET', `/api/office/runs/${session.run_id}`)).body.status).toBe('interrupted');
    const ofWakeup = sessions(sessionDir).filter((s) => s.wakeup_id === session.wakeup_id);
    expect(ofWakeup).toHaveLength(2);
    for (const s of ofWakeup) expect(s.others_alive.filter((o) => o.wakeup_id === session.wakeup_id)).toEqual([]);
  }, 90_000);

  it('after a SIGKILL of the scheduler\'s whole process group (systemd, a container stop, Ctrl-C) the session is gone within OFFICE_SHUTDOWN_GRACE_MS + 5 s: its watchdog leads a group of its own', async () => {
    const { first, session } = await sessionRunning({ ownProcessGroup: true });
    const watchdogs = pidsWhere((argv) => argv.includes(WATCHDOG_NAME) && argv.includes(String(session.pid)));
    expect(watchdogs).toHaveLength(1);
    process.kill(-first.proc.pid!, 'SIGKILL');
    const killedAt = Date.now();
    await first.exited;
    await waitFor(() => gone(session.pid), 'the session to die with its scheduler\'s group', GRACE_MS + 5000);
    expect(Date.now() - killedAt).toBeLessThan(GRACE_MS + 5000);
    await waitFor(() => gone(watchdogs[0]!), 'the watchdog to end once it has stopped the session');
  }, 90_000);

  it('a restart stops a session left running (its watchdog killed too) before its wakeup runs again', async () => {
    const { env, first, api, sessionDir, session } = await sessionRunning();
    // As when the whole process group of the scheduler is SIGKILLed: the watchdog cannot act.
    const watchdogs = pidsWhere((argv) => argv.includes(WATCHDOG_NAME) && argv.includes(String(session.pid)));
    expect(watchdogs).toHaveLength(1);
    expect(procStat(watchdogs[0]!)!.ppid).toBe(first.proc.pid);
    kill(watchdogs[0]!, 'SIGKILL');
    first.proc.kill('SIGKILL');
    await first.exited;
    await waitFor(() => gone(watchdogs[0]!), 'the watchdog to die');
    expect(gone(session.pid)).toBe(false);

    const restartedAt = Date.now();
    const second = await boot({ ...env, FIXTURE_SLEEP_MS: '50' });
    // The boot found the orphan by its pid, group and start time, and stopped it (SIGTERM, then SIGKILL).
    await waitFor(() => gone(session.pid), 'the orphaned session to be stopped by the restart', 10_000);
    const wakeup = await waitFor(async () => {
      const w = (await api(second, 'GET', `/api/office/wakeups/${session.wakeup_id}`)).body;
      return w.status === 'finished' || w.status === 'failed' ? w : null;
    }, 'the wakeup to run again and end');
    expect(wakeup).toMatchObject({ status: 'finished', retry_count: 1 });
    const retry = sessions(sessionDir).find((s) => s.wakeup_id === session.wakeup_id && s.pid !== session.pid);
    expect(retry).toBeDefined();
    expect(retry!.started_at).toBeGreaterThan(restartedAt);
    expect(retry!.others_alive.map((o) => o.pid)).not.toContain(session.pid);
    expect(second.output()).toMatch(/a session of the stopped scheduler still runs/);
  }, 90_000);
});
