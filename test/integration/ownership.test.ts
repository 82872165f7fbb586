/**
 * Ownership through the real server: a server is killed with SIGKILL in the middle of a run, and the
 * next one takes its agents over at a higher epoch (fencing the dead one out) before it recovers
 * the run it left, exactly as before leases existed.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { newTask } from '../../src/domain/tasks.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { agentPidsOf, killAgentsOf, startServer } from '../crash/harness.js';
import { FAST_ENV, FIXTURES, request, seedAgent, startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { capturingLogger } from '../helpers/logs.js';
import { killServer } from '../helpers/processes.js';

type Server = Awaited<ReturnType<typeof startServer>>;

let dir: string | null = null;
let token: string | null = null;
let first: Server | null = null;
let second: Harness | null = null;

afterEach(async () => {
  if (first) await killServer(first);
  first = null;
  await second?.stop();
  second = null;
  if (token) killAgentsOf(token);
  token = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** The owner a server logged when it took `agentId`'s lease (its pino lines are JSON on stdout). */
function ownerThatTook(output: string, agentId: string): { owner: string; epoch: number } | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes(agentId) || !line.includes('took the lease of a new agent')) continue;
    const entry = JSON.parse(line) as { owner: string; epoch: number };
    return { owner: entry.owner, epoch: entry.epoch };
  }
  return undefined;
}

describe('agent ownership across a restart', () => {
  it('GIVEN a server killed mid-run WHEN the next one starts THEN it takes the agent over at a higher epoch, the dead owner holds nothing, and the run is interrupted and retried as before', async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-owners-'));
    token = randomUUID();
    const started = join(dir, 'started');
    const dbPath = join(dir, 'office.db');
    first = await startServer({
      OFFICE_DB: dbPath, OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'info', OFFICE_BACKOFF: '200ms', OFFICE_BACKOFF_JITTER: '0',
      OFFICE_RECOVERY_SWEEP_SEC: '0', FIXTURE_SLEEP_MS: '30000',
    });
    const api = (method: string, path: string, body?: unknown) => request(first!.url, method, path, body);
    const ws = await api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agent = await api('POST', '/api/office/agents', {
      workspace_id: ws.body.id, name: 'Worker', role: 'worker', cooldown_sec: 0,
      executor: {
        kind: 'command', command: process.execPath, args: [join(FIXTURES, 'sleep.mjs'), `--crash-token=${token}`],
        env: { FIXTURE_STARTED_DIR: started },
      },
    });
    expect(agent.status).toBe(201);
    const agentId: string = agent.body.id;
    const task = await api('POST', '/api/office/tasks', { workspace_id: ws.body.id, title: 'Migrate the billing DB', assignee_agent_instance_id: agentId });
    expect(task.status).toBe(201);

    const marker = await waitFor(() => (existsSync(started) ? readdirSync(started).find((f) => f.endsWith('.started')) : undefined), 'the agent to start');
    const runId = marker.replace(/\.started$/, '');
    const wakeupId: string = (await api('GET', `/api/office/runs/${runId}`)).body.wakeup_id;
    const dead = await waitFor(() => ownerThatTook(first!.output(), agentId), 'the first server to log the new agent\'s lease');
    expect(dead.epoch).toBe(1);

    first.proc.kill('SIGKILL');
    await first.exited;
    first = null;
    if (process.platform === 'linux') await waitFor(() => agentPidsOf(token!).length === 0, 'the session to die with its server', 7_000);

    second = await startHarness({ OFFICE_DB: dbPath, OFFICE_BACKOFF: '200ms' });
    const { store } = second.scheduler;
    const lease = await store.read((tx) => tx.leases.leaseOf(agentId));
    expect(lease).toMatchObject({ agent_id: agentId, epoch: 2, expires_at: null });
    expect(lease!.owner_id).not.toBe(dead.owner);
    expect(lease!.owner_id).toMatch(new RegExp(`_${process.pid}$`));
    expect(await store.read((tx) => tx.leases.held(dead.owner))).toEqual([]);

    const wakeup = await second.waitFor(async () => {
      const w = (await second!.api('GET', `/api/office/wakeups/${wakeupId}`)).body;
      return w.status === 'finished' || w.status === 'failed' ? w : null;
    }, 'the wakeup to end after the restart');
    expect(wakeup).toMatchObject({ status: 'finished', retry_count: 1 });
    expect((await second.api('GET', `/api/office/runs/${runId}`)).body).toMatchObject({ status: 'interrupted', error: expect.stringMatching(/interrupted/) });
    const runs = (await second.api('GET', `/api/office/runs?agent_id=${agentId}`)).body as { id: string; status: string; attempt: number }[];
    expect(runs.map((r) => [r.status, r.attempt]).sort()).toEqual([['interrupted', 1], ['succeeded', 2]]);
  });
});

describe('a claim by a process that no longer holds the agent', () => {
  let scheduler: Scheduler | null = null;
  let tmp: string | null = null;
  afterEach(async () => {
    await scheduler?.stop();
    scheduler = null;
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    tmp = null;
  });

  it('GIVEN another owner took the agent at a higher epoch WHEN a wakeup is offered here THEN the claim is refused and logged, nothing runs, the wakeup stays queued for its owner, and this process lets the agent go', async () => {
    tmp = mkdtempSync(join(tmpdir(), 'office-fenced-'));
    const { log, lines } = capturingLogger();
    let calls = 0;
    scheduler = await createScheduler({
      config: loadConfig({ ...FAST_ENV, OFFICE_DB: join(tmp, 'office.db') }),
      logger: log,
      functions: new Map([['work', async () => { calls++; return { ok: true, resultJson: {} }; }]]),
    });
    const { url } = await scheduler.start();
    const boot = lines.find((line) => line.msg === 'no agents yet: this process owns every agent it creates')!;
    expect(boot).toMatchObject({ agents: 0, epoch_min: null, epoch_max: null });
    const owner = boot.owner as string;

    const ws = await request(url!, 'POST', '/api/office/workspaces', { name: 'Acme' });
    const agent = await request(url!, 'POST', '/api/office/agents', {
      workspace_id: ws.body.id, name: 'Worker', role: 'worker', cooldown_sec: 0, executor: { kind: 'function', name: 'work' },
    });
    const agentId: string = agent.body.id;
    expect(lines.find((line) => line.msg === 'took the lease of a new agent' && line.agent_id === agentId)).toMatchObject({ owner, epoch: 1 });
    const taken = await scheduler.store.transaction((tx) => tx.leases.take(agentId, 'own_other', null));
    expect(taken.epoch).toBe(2);

    const wake = await request(url!, 'POST', `/api/office/agents/${agentId}/wake`, { reason: 'check the queue' });
    expect(wake.status).toBe(202);
    const wakeupId: string = wake.body.wakeup.id;
    const refused = await waitFor(() => lines.find((line) => line.msg?.toString().startsWith('claim fenced out') && line.wakeup_id === wakeupId), 'the refused claim to be logged');
    expect(refused).toMatchObject({ owner, epoch: 1, agent_id: agentId, holder: 'own_other', holder_epoch: 2 });
    expect((await request(url!, 'GET', `/api/office/wakeups/${wakeupId}`)).body).toMatchObject({ status: 'queued', run_id: null, claimed_at: null });
    expect(calls).toBe(0);
    await waitFor(() => scheduler!.supervisor.view(agentId) === null, 'the actor of the lost agent to stop');
    expect(scheduler.supervisor.size).toBe(0);
  });
});

describe('the recovery sweep of an owner', () => {
  let h: Harness | null = null;
  afterEach(async () => {
    await h?.stop();
    h = null;
  });

  it('GIVEN two agents with a never-started task each, one of them lost to another owner (a refused claim told this process) WHEN the sweep runs THEN only the task of the agent this process holds is dispatched', async () => {
    h = await startHarness();
    const mine = await seedAgent(h, { executor: null });
    const theirs = await seedAgent(h, { executor: null });
    const { store } = h.scheduler;
    await store.transaction((tx) => tx.leases.take(theirs.agentId, 'own_other', null));
    expect((await h.api('POST', `/api/office/agents/${theirs.agentId}/wake`, {})).status).toBe(202);
    await waitFor(() => h!.scheduler.supervisor.view(theirs.agentId) === null, 'this process to let the lost agent go');
    const now = Date.now();
    const tasks = [mine, theirs].map(({ workspaceId, agentId }, i) =>
      newTask({ id: `tsk_owned_${process.pid}_${i}_${now}`, workspace_id: workspaceId, title: `Unstarted ${i}` }, now, { assignee_agent_instance_id: agentId }));
    await store.transaction(async (tx) => { for (const task of tasks) await tx.tasks.insert(task); });

    expect(await h.scheduler.recovery.sweep()).toBe(1);
    const wakeupsOf = async (taskId: string) => (await h!.api('GET', `/api/office/wakeups?task_id=${taskId}`)).body as unknown[];
    expect(await wakeupsOf(tasks[0]!.id)).toHaveLength(1);
    expect(await wakeupsOf(tasks[1]!.id)).toEqual([]);
  });
});

