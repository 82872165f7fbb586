/**
 * The crash-restart harness: the real server (the compiled dist/main.js) on a temp SQLite file,
 * real child-process agents (test/fixtures), a seeded mix of wakeup requests in flight, and SIGKILL
 * at random moments, restarting on the same database each time. After the last restart it lets the
 * work drain, stops the server cleanly and checks the invariants on the rows.
 *
 * Every agent session records itself (test/fixtures/lib.mjs, FIXTURE_SESSION_DIR) with the generation
 * of the server that started it. After each SIGKILL the harness checks that the killed server's
 * sessions die with it (within OFFICE_SHUTDOWN_GRACE_MS + 5 s, nobody else kills them), and at the end
 * that no session started while a session of an earlier server, or of the same wakeup, was alive.
 *
 * Used by `npm run test:crash` (test/crash/run.ts: 20 kills, 500 wakeups) and by the short version
 * inside `npm test` (test/crash/crash.test.ts: 3 kills).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { liveSessionsOf } from '../fixtures/lib.mjs';
import { checkAccounting, checkInvariants, type InvariantReport, type RowReader } from '../simulation/invariants.js';
import { sqliteFaults } from '../helpers/storage.js';
import { prng, type Prng } from '../simulation/prng.js';
import { killServer } from '../helpers/processes.js';
import { serverArgs } from '../helpers/serverProcess.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test', 'fixtures');

export interface CrashOptions {
  kills: number;
  /** Wakeup requests to put in flight (task assignments, comments, user wakes, routine fires, reassignments). */
  wakeups: number;
  seed: number;
  /** Concurrent HTTP clients. */
  clients?: number;
  /** The drain fails when no run has ended for this long (a stall), or at `drainTimeoutMs` in any case. */
  drainStallMs?: number;
  drainTimeoutMs?: number;
  log?: (line: string) => void;
  /** Keep the temp directory (database and server output) for inspection. */
  keep?: boolean;
}

export interface CrashReport {
  seed: number;
  dir: string;
  violations: string[];
  figures: Record<string, unknown>;
  invariants: InvariantReport['figures'];
}

// Server process ---------------------------------------------------------------------------

interface Server {
  proc: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

function baseEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(OFFICE_|FIXTURE_)/.test(e[0])),
  );
}

/**
 * A scheduler process. The test's FIXTURE_* settings in `env` reach its agents' sessions through
 * OFFICE_AGENT_ENV, as an operator passes a variable on: a session sees no other of its scheduler's.
 */
export async function startServer(env: Record<string, string>, timeoutMs = 30_000, options: { ownProcessGroup?: boolean } = {}): Promise<Server> {
  const fixtureNames = Object.keys(env).filter((name) => name.startsWith('FIXTURE_'));
  const agentEnv = [env.OFFICE_AGENT_ENV, ...fixtureNames].filter(Boolean).join(',');
  const proc = spawn(process.execPath, await serverArgs(), {
    cwd: ROOT, env: { ...baseEnv(), ...env, ...(agentEnv ? { OFFICE_AGENT_ENV: agentEnv } : {}) }, stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as systemd or a terminal gives it: a test may then kill the whole group.
    detached: options.ownProcessGroup ?? false,
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-20_000);
  };
  proc.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms: ${tail}`)), timeoutMs);
    proc.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening: ${tail}`));
    });
  });
  return { proc, url, exited, output: () => tail };
}

// Agent processes --------------------------------------------------------------------------

/**
 * Each agent carries the harness token as an extra argument; they are found by it (and only by it) in
 * /proc. The scheduler kills them itself; the harness only cleans up after a failed run.
 */
export function agentPidsOf(token: string): number[] {
  if (process.platform !== 'linux') return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(`--crash-token=${token}`)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

export function killAgentsOf(token: string): number {
  let killed = 0;
  for (const pid of agentPidsOf(token)) {
    try {
      // Its own group: whatever the agent started goes with it.
      process.kill(-pid, 'SIGKILL');
      killed++;
    } catch {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        // Already exited.
      }
    }
  }
  return killed;
}

// HTTP -------------------------------------------------------------------------------------

type Outcome = { kind: 'ok'; status: number; body: any } | { kind: 'rejected'; status: number; body: any } | { kind: 'unknown'; error: string };

async function call(url: string, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Outcome> {
  try {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body !== undefined ? { 'content-type': 'application/json' } : {},
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    return response.ok ? { kind: 'ok', status: response.status, body: parsed } : { kind: 'rejected', status: response.status, body: parsed };
  } catch (error) {
    // The server died with the request in flight: it may or may not have committed.
    return { kind: 'unknown', error: (error as Error).message };
  }
}

async function must(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const outcome = await call(url, method, path, body);
  if (outcome.kind !== 'ok') throw new Error(`${method} ${path} failed during setup: ${JSON.stringify(outcome)}`);
  return outcome.body;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The run ----------------------------------------------------------------------------------

type Kind = 'task' | 'comment' | 'wake' | 'fire' | 'reassign';

interface Sent {
  kind: Kind;
  outcome: Outcome['kind'];
  status?: number;
  /** What the harness later looks for in the rows. */
  ref: Record<string, string>;
}

function pickKind(rand: Prng): Kind {
  const x = rand();
  return x < 0.45 ? 'task' : x < 0.65 ? 'comment' : x < 0.85 ? 'wake' : x < 0.95 ? 'fire' : 'reassign';
}

export async function runCrashHarness(options: CrashOptions): Promise<CrashReport> {
  const log = options.log ?? (() => {});
  const rand = prng(options.seed);
  const clients = options.clients ?? 6;
  const dir = mkdtempSync(join(tmpdir(), 'office-crash-'));
  const token = randomUUID();
  const dbPath = join(dir, 'office.db');
  const sessionDir = join(dir, 'sessions');
  const env: Record<string, string> = {
    OFFICE_DB: dbPath,
    OFFICE_PORT: '0',
    OFFICE_LOG_LEVEL: 'error',
    OFFICE_COALESCE_WINDOW_MS: '150',
    OFFICE_BACKOFF: '150ms,300ms,450ms,600ms',
    OFFICE_BACKOFF_JITTER: '0.3',
    OFFICE_RATE_LIMIT_BUFFER_SEC: '0',
    OFFICE_RECOVERY_SWEEP_SEC: '3',
    OFFICE_SHUTDOWN_GRACE_MS: '3000',
    OFFICE_LOOP_DETECTOR_RUNS: '0',
    FIXTURE_SESSION_DIR: sessionDir,
  };
  // Each server start is a generation; its agents inherit the number and record it.
  let generation = 0;
  const nextGeneration = () => ({ ...env, FIXTURE_GENERATION: String(++generation) });
  const sessionDeaths: Promise<string | null>[] = [];
  const began = Date.now();
  let server: Server | null = null;
  const outputs: string[] = [];
  let interruptedBoots = 0;

  try {
    server = await startServer(nextGeneration());
    const url0 = server.url;
    const agent = (name: string, fixture: string, extra: Record<string, unknown> = {}, fixtureEnv: Record<string, string> = {}) =>
      must(url0, 'POST', '/api/office/agents', {
        workspace_id: ws.id, name, role: 'worker', cooldown_sec: 0, max_concurrent_sessions: 2,
        executor: { kind: 'command', command: process.execPath, args: [join(FIXTURES, fixture), `--crash-token=${token}`], env: fixtureEnv },
        ...extra,
      });
    const ws = await must(url0, 'POST', '/api/office/workspaces', { name: 'Crash harness' });
    const coordinator = await must(url0, 'POST', '/api/office/agents', {
      workspace_id: ws.id, name: 'Coordinator', role: 'coordinator', cooldown_sec: 0, max_concurrent_sessions: 2,
      executor: { kind: 'command', command: process.execPath, args: [join(FIXTURES, 'succeed.mjs'), `--crash-token=${token}`] },
    });
    const workers = [
      await agent('Succeeder', 'succeed.mjs', { max_concurrent_sessions: 3 }),
      await agent('Failer', 'fail.mjs'),
      await agent('Sleeper', 'sleep.mjs', { max_concurrent_sessions: 3 }, { FIXTURE_SLEEP_MS: '400' }),
      await agent('Slowpoke', 'sleep.mjs', {}, { FIXTURE_SLEEP_MS: '1500' }),
      await agent('Rate limited', 'rate-limit.mjs', {}, { FIXTURE_ERROR: 'rate_limit_error: Retry-After: 1' }),
      await agent('Flaky', 'flaky.mjs', {}, { FIXTURE_COUNTER_FILE: join(dir, 'flaky.count'), FIXTURE_FAIL_TIMES: '25' }),
    ];
    const runner = await agent('Routine runner', 'sleep.mjs', { skip_idle_wakeups: false, max_concurrent_sessions: 2 }, { FIXTURE_SLEEP_MS: '200' });
    const tick = await must(url0, 'POST', '/api/office/routines', {
      workspace_id: ws.id, name: 'Every two seconds', assignee_agent_instance_id: runner.id, concurrency_policy: 'always_enqueue',
      catch_up_policy: 'enqueue_missed_with_cap', catch_up_max: 3,
      triggers: [{ kind: 'schedule', cron_expression: '*/2 * * * * *' }],
    });
    const light = await must(url0, 'POST', '/api/office/routines', {
      workspace_id: ws.id, name: 'Run now (light)', assignee_agent_instance_id: runner.id, concurrency_policy: 'always_enqueue',
      triggers: [{ kind: 'manual' }],
    });
    const heavy = await must(url0, 'POST', '/api/office/routines', {
      workspace_id: ws.id, name: 'Run now (heavy)', assignee_agent_instance_id: workers[0].id, concurrency_policy: 'always_enqueue',
      task_template: { title: 'Heavy routine job' }, triggers: [{ kind: 'manual' }],
    });
    const workerIds: string[] = workers.map((w) => w.id);
    void coordinator;
    void tick;

    // The request generator: `clients` loops drawing from one seeded plan, each waiting while the
    // server is down. A request the SIGKILL cut off is `unknown`: it may or may not have committed.
    const sent: Sent[] = [];
    const ackedTasks: { id: string; agent: string }[] = [];
    let issued = 0;
    let cycleBudget = 0;
    let current: Server | null = server;
    let up: Promise<void> = Promise.resolve();
    let markUp: () => void = () => {};
    const budgetWaiters: (() => void)[] = [];
    const perCycle = Math.ceil(options.wakeups / (options.kills + 1));

    const nextRequest = (i: number): { kind: Kind; ref: Record<string, string>; method: string; path: string; body: unknown } => {
      let kind = pickKind(rand);
      if ((kind === 'comment' || kind === 'reassign') && ackedTasks.length === 0) kind = 'task';
      switch (kind) {
        case 'task': {
          const agentId = rand.pick(workerIds);
          const title = `crash-task-${i}`;
          return { kind, ref: { title, agent: agentId }, method: 'POST', path: '/api/office/tasks',
            body: { workspace_id: ws.id, title, assignee_agent_instance_id: agentId } };
        }
        case 'comment': {
          const task = rand.pick(ackedTasks);
          const text = `crash-comment-${i}`;
          return { kind, ref: { task: task.id, body: text }, method: 'POST', path: `/api/office/tasks/${task.id}/comments`,
            body: { body: text, author_type: 'user', author_id: 'crash-harness' } };
        }
        case 'wake': {
          const agentId = rand.pick([...workerIds, runner.id]);
          const reason = `crash-wake-${i}`;
          return { kind, ref: { agent: agentId, reason }, method: 'POST', path: `/api/office/agents/${agentId}/wake`, body: { reason } };
        }
        case 'fire': {
          const routine = rand.chance(0.5) ? light : heavy;
          return { kind, ref: { routine: routine.id }, method: 'POST', path: `/api/office/routines/${routine.id}/fire`, body: {} };
        }
        case 'reassign': {
          const task = rand.pick(ackedTasks);
          const agentId = rand.pick(workerIds.filter((id) => id !== task.agent));
          return { kind, ref: { task: task.id, agent: agentId }, method: 'PATCH', path: `/api/office/tasks/${task.id}`,
            body: { assignee_agent_instance_id: agentId } };
        }
      }
    };

    const client = async () => {
      for (;;) {
        if (issued >= options.wakeups) return;
        while (cycleBudget <= 0 && issued < options.wakeups) await new Promise<void>((resolve) => budgetWaiters.push(resolve));
        await up;
        if (issued >= options.wakeups) return;
        cycleBudget--;
        const i = issued++;
        const request = nextRequest(i);
        const target = current!;
        const outcome = await call(target.url, request.method, request.path, request.body);
        const record: Sent = { kind: request.kind, outcome: outcome.kind, ref: { ...request.ref } };
        if (outcome.kind !== 'unknown') record.status = outcome.status;
        if (outcome.kind === 'ok') {
          if (request.kind === 'task') {
            record.ref.id = outcome.body.id;
            ackedTasks.push({ id: outcome.body.id, agent: request.ref.agent! });
          }
          if (request.kind === 'comment') record.ref.id = outcome.body.id;
          if (request.kind === 'wake') record.ref.id = outcome.body.wakeup.id;
          if (request.kind === 'fire') record.ref.id = outcome.body.routine_run.id;
          if (request.kind === 'reassign') {
            const task = ackedTasks.find((t) => t.id === request.ref.task);
            if (task) task.agent = request.ref.agent!;
          }
        }
        sent.push(record);
        await sleep(rand.int(0, 30));
      }
    };
    const refill = (n: number) => {
      cycleBudget += n;
      for (const resolve of budgetWaiters.splice(0)) resolve();
    };

    refill(perCycle);
    const clientsDone = Promise.all(Array.from({ length: clients }, () => client()));
    let agentsKilled = 0;
    for (let k = 1; k <= options.kills; k++) {
      // A kill lands at a random moment: right after boot (recovery and re-dispatch in progress),
      // mid-burst, or once this cycle's requests are out and only runs are going on.
      const mode = rand();
      const startedCycle = Date.now();
      if (mode < 0.2) await sleep(rand.int(0, 150));
      else {
        const deadline = startedCycle + rand.int(300, 2500);
        while (Date.now() < deadline && !(mode > 0.6 && cycleBudget <= 0)) await sleep(10);
        if (mode > 0.6) await sleep(rand.int(0, 600));
      }
      const victim = current!;
      up = new Promise<void>((resolve) => (markUp = resolve));
      await killServer(victim);
      outputs.push(victim.output());
      sessionDeaths.push(sessionsGone(sessionDir, String(generation), Number(env.OFFICE_SHUTDOWN_GRACE_MS) + 5_000));
      log(`kill ${k}/${options.kills} after ${Date.now() - startedCycle} ms (${issued}/${options.wakeups} requests issued)`);
      // Some restarts are killed again before they are ready, while they restore and recover.
      if (rand.chance(0.15)) {
        const early = spawn(process.execPath, await serverArgs(), { cwd: ROOT, env: { ...baseEnv(), ...nextGeneration() }, stdio: 'ignore' });
        await sleep(rand.int(300, 1200));
        early.kill('SIGKILL');
        await new Promise((resolve) => early.once('exit', resolve));
        sessionDeaths.push(sessionsGone(sessionDir, String(generation), Number(env.OFFICE_SHUTDOWN_GRACE_MS) + 5_000));
        interruptedBoots++;
      }
      current = await startServer(nextGeneration());
      markUp();
      refill(perCycle);
    }
    refill(options.wakeups);
    await clientsDone;
    server = current!;
    const url = server.url;

    // Drain: no new fires, then wait until nothing is open or running.
    for (const routine of (await must(url, 'GET', `/api/office/routines?workspace_id=${ws.id}`)) as { id: string }[]) {
      await call(url, 'PATCH', `/api/office/routines/${routine.id}`, { status: 'paused' });
    }
    // A slow machine drains slowly; a stall is when no run ends at all for a while.
    const drainStarted = Date.now();
    const drainTimeout = options.drainTimeoutMs ?? 600_000;
    const drainStall = options.drainStallMs ?? 60_000;
    let drained = false;
    let stalled = false;
    let stable = 0;
    let runsEnded = -1;
    let lastRunEndedAt = Date.now();
    while (Date.now() - drainStarted < drainTimeout) {
      const metrics = await fetch(`${url}/metrics`).then((r) => r.text());
      const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
      const open = value('office_wakeups{status="queued"}') + value('office_wakeups{status="claimed"}')
        + value('office_wakeups{status="scheduled_retry"}') + value('office_runs{status="running"}') + value('office_runs_in_flight');
      const ended = ['succeeded', 'failed', 'interrupted', 'cancelled'].reduce((sum, status) => sum + value(`office_runs{status="${status}"}`), 0);
      if (ended !== runsEnded) {
        runsEnded = ended;
        lastRunEndedAt = Date.now();
      } else if (open > 0 && Date.now() - lastRunEndedAt > drainStall) {
        stalled = true;
        break;
      }
      stable = open === 0 ? stable + 1 : 0;
      if (stable >= 3) {
        drained = true;
        break;
      }
      await sleep(200);
    }
    const drainMs = Date.now() - drainStarted;

    server.proc.kill('SIGTERM');
    const exit = await server.exited;
    outputs.push(server.output());
    server = null;
    // A clean stop stops its sessions: anything found now was left behind (and is cleaned up here).
    const leftover = agentPidsOf(token);
    agentsKilled += killAgentsOf(token);

    // The rows decide.
    const db = sqliteFaults(dbPath);
    let report: InvariantReport;
    const violations: string[] = [];
    try {
      report = checkInvariants(db);
      violations.push(...report.violations, ...checkAccounting(db));
      violations.push(...checkSent(db, sent));
    } finally {
      db.close();
    }
    if (stalled) violations.push(`the drain stalled: no run ended for ${drainStall} ms with work still open`);
    else if (!drained) violations.push(`did not drain within ${drainTimeout} ms`);
    if (exit.code !== 0) violations.push(`clean stop exited with ${exit.code ?? exit.signal}`);
    if (leftover.length > 0) violations.push(`agent processes left behind: ${leftover.join(', ')}`);
    for (const late of await Promise.all(sessionDeaths)) if (late) violations.push(late);
    const sessions = sessionRecords(sessionDir);
    violations.push(...checkSessionOverlaps(sessions));
    // Decisions are logged at error level too (an escalation); a real error carries `err` or is not a log line.
    const crashedOutput = outputs.join('\n').split('\n')
      .filter((line) => (/"level":(50|60)/.test(line) && /"err":/.test(line)) || (!line.startsWith('{') && /Error/.test(line)));

    const byKind = (kind: Kind) => {
      const of = sent.filter((s) => s.kind === kind);
      return `${of.length} (${of.filter((s) => s.outcome === 'ok').length} ok, ${of.filter((s) => s.outcome === 'rejected').length} rejected, ${of.filter((s) => s.outcome === 'unknown').length} cut off)`;
    };
    return {
      seed: options.seed,
      dir,
      violations,
      invariants: report.figures,
      figures: {
        kills: options.kills,
        boots_killed_before_ready: interruptedBoots,
        requests: sent.length,
        requests_acknowledged: sent.filter((s) => s.outcome === 'ok').length,
        requests_rejected: sent.filter((s) => s.outcome === 'rejected').length,
        requests_cut_off_by_kill: sent.filter((s) => s.outcome === 'unknown').length,
        task_assignments: byKind('task'),
        comments: byKind('comment'),
        user_wakes: byKind('wake'),
        manual_fires: byKind('fire'),
        reassignments: byKind('reassign'),
        agent_processes_killed_by_harness: agentsKilled,
        sessions: sessions.length,
        server_generations: generation,
        drain_ms: drainMs,
        elapsed_ms: Date.now() - began,
        server_error_lines: crashedOutput.length,
        ...(crashedOutput.length ? { first_server_errors: crashedOutput.slice(0, 3).map((l) => l.slice(0, 400)) } : {}),
      },
    };
  } finally {
    if (server) await killServer(server);
    killAgentsOf(token);
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** Every acknowledged request is accounted for by its row, and by a wakeup row where it wakes someone. */
function checkSent(db: RowReader, sent: Sent[]): string[] {
  const violations: string[] = [];
  const lost = (what: string, ref: unknown) => violations.push(`lost ${what}: ${JSON.stringify(ref)}`);
  const get = (sql: string, ...params: unknown[]) => db.get<any>(sql, ...params);
  for (const s of sent) {
    if (s.outcome === 'ok') {
      if (s.kind === 'task') {
        if (!get('SELECT 1 FROM tasks WHERE id = ?', s.ref.id)) lost('acknowledged task', s.ref);
        else if (!get("SELECT 1 FROM agent_wakeup_requests WHERE task_id = ? AND source = 'task_assigned'", s.ref.id)) lost('task assignment wakeup', s.ref);
      }
      if (s.kind === 'comment' && !get("SELECT 1 FROM agent_wakeup_requests WHERE idempotency_key = 'comment:' || ?", s.ref.id)) lost('comment wakeup', s.ref);
      if (s.kind === 'wake' && !get('SELECT 1 FROM agent_wakeup_requests WHERE id = ?', s.ref.id)) lost('user wake', s.ref);
      if (s.kind === 'reassign'
        && !get("SELECT 1 FROM agent_wakeup_requests WHERE task_id = ? AND agent_id = ? AND source = 'task_assigned'", s.ref.task, s.ref.agent)) {
        lost('reassignment wakeup', s.ref);
      }
      if (s.kind === 'fire') {
        const run = get('SELECT * FROM office_routine_runs WHERE id = ?', s.ref.id);
        if (!run) lost('routine run', s.ref);
        else if (run.status === 'dispatched' && !get('SELECT 1 FROM agent_wakeup_requests WHERE id = ?', run.linked_wakeup_id)) lost('routine wakeup', s.ref);
        else if (run.status === 'task_created' && !get('SELECT 1 FROM agent_wakeup_requests WHERE task_id = ?', run.linked_task_id)) lost('routine task wakeup', s.ref);
        else if (!['dispatched', 'task_created', 'coalesced', 'skipped'].includes(run.status)) lost(`routine run left ${run.status}`, s.ref);
      }
    }
    // A cut-off request either never committed or is accounted for like an acknowledged one.
    if (s.outcome === 'unknown') {
      if (s.kind === 'task') {
        const task = get('SELECT id FROM tasks WHERE title = ?', s.ref.title);
        if (task && !get("SELECT 1 FROM agent_wakeup_requests WHERE task_id = ? AND source = 'task_assigned'", task.id)) lost('task assignment wakeup (cut-off request)', s.ref);
      }
      if (s.kind === 'wake') {
        // A committed user wake is its own wakeup row; nothing else to find.
      }
    }
    if (s.outcome === 'rejected' && s.status !== undefined && s.status >= 500) violations.push(`server error ${s.status} for ${s.kind}: ${JSON.stringify(s.ref)}`);
  }
  return violations;
}

// Sessions ---------------------------------------------------------------------------------

interface SessionRecord {
  pid: number;
  run_id: string | null;
  wakeup_id: string | null;
  generation: string | null;
  started_at: number;
  others_alive: { pid: number; run_id: string | null; wakeup_id: string | null; generation: string | null }[];
}

function sessionRecords(sessionDir: string): SessionRecord[] {
  if (!existsSync(sessionDir)) return [];
  return readdirSync(sessionDir).filter((f) => f.endsWith('.json')).flatMap((f) => {
    try {
      return [JSON.parse(readFileSync(join(sessionDir, f), 'utf8')) as SessionRecord];
    } catch {
      return []; // written by a session killed mid-write
    }
  });
}

/**
 * Polls until no session of the killed server's `generation` is alive; the violation text if one
 * still is after `withinMs` (API.md: sessions are stopped within OFFICE_SHUTDOWN_GRACE_MS + 5 s).
 */
async function sessionsGone(sessionDir: string, generation: string, withinMs: number): Promise<string | null> {
  const killedAt = Date.now();
  for (;;) {
    const alive = liveSessionsOf(sessionDir).filter((s) => s.generation === generation);
    if (alive.length === 0) return null;
    if (Date.now() - killedAt > withinMs) {
      return `sessions of killed server ${generation} still alive ${withinMs} ms after the SIGKILL: ${alive.map((s) => `pid ${s.pid} (run ${s.run_id})`).join(', ')}`;
    }
    await sleep(100);
  }
}

/** No session starts while a session of an earlier server, or another session of its wakeup, is alive. */
function checkSessionOverlaps(sessions: SessionRecord[]): string[] {
  const violations: string[] = [];
  for (const s of sessions) {
    for (const other of s.others_alive) {
      if (other.generation !== s.generation) {
        violations.push(`run ${s.run_id} (server ${s.generation}) started while pid ${other.pid} (run ${other.run_id}) of killed server ${other.generation} was alive`);
      } else if (other.wakeup_id === s.wakeup_id) {
        violations.push(`two sessions of wakeup ${s.wakeup_id} overlapped: run ${s.run_id} started while run ${other.run_id} was alive`);
      }
    }
  }
  return violations;
}
