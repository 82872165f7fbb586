/**
 * Each state change a service makes is one guarded statement (DESIGN.md, "The Store is a set of
 * atomic operations"). Every test here races one of them on real PostgreSQL with two connections:
 * a competitor's write, left uncommitted on a connection of its own, holds the rows; the service
 * runs on the replica's pool, reads them as they were committed, and waits on the competitor's row
 * lock; the competitor then commits. A service that decided on its read in JavaScript and wrote by
 * id overwrote the competitor's change; a guard in the statement sees it, and the service says so.
 */
import pg from 'pg';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createAfterRun } from '../../src/dispatch/afterRun.js';
import type { Agent, Run, Task, Wakeup } from '../../src/domain/types.js';
import type { Routine } from '../../src/domain/routines.js';
import { newId } from '../../src/services/ids.js';
import { waitFor } from '../helpers/harness.js';
import { beat, createAgent, replicasPerTest, seedWorkspace, type InProcessReplica } from '../helpers/replicas.js';
import { agentRow, routineRow, runRow, seedAgent, taskRow, wakeupRow } from '../store/rows.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const LOOP_RUNS = 2;

const cluster = replicasPerTest();

const start = () => cluster.start('replica-a', { at: T0, env: { OFFICE_LOOP_DETECTOR_RUNS: String(LOOP_RUNS) } });

/** Statements with PostgreSQL's numbered parameters, as the competitor sends them. */
type Statement = [text: string, params: unknown[]];

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  return client;
}

/** How many backends of the test's database wait for a lock now. */
async function lockWaits(): Promise<number> {
  const client = await connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Runs `subject` while the competitor's `statements` are written and not committed; commits them
 * once the subject waits on one of their row locks (or has finished without waiting), and returns
 * how the subject ended.
 */
async function raced<T>(statements: Statement[], subject: () => Promise<T>): Promise<Outcome<T>> {
  const competitor = await connect();
  await competitor.query('BEGIN');
  for (const [text, params] of statements) await competitor.query(text, params);
  let settled = false;
  const outcome = subject().then((value): Outcome<T> => ({ ok: true, value }), (error: unknown): Outcome<T> => ({ ok: false, error }))
    .finally(() => { settled = true; });
  try {
    const deadline = Date.now() + 10_000;
    while (!settled && (await lockWaits()) === 0) {
      if (Date.now() > deadline) throw new Error('the subject neither waited on the competitor\'s lock nor finished');
      // A poll, not a window: the loop ends as soon as pg_locks shows the subject waiting.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await competitor.query('COMMIT');
    await competitor.end();
  }
  return outcome;
}

function refusedWith(outcome: Outcome<unknown>, code: string) {
  expect(outcome.ok).toBe(false);
  expect((outcome as { error: { code?: string } }).error.code).toBe(code);
}

async function seed(replica: InProcessReplica, patch: Partial<Agent> = {}) {
  return replica.scheduler.store.transaction((tx) => seedAgent(tx, T0, patch));
}

async function insert(replica: InProcessReplica, rows: { agents?: Agent[]; tasks?: Task[]; wakeups?: Wakeup[]; runs?: Run[]; routines?: Routine[] }) {
  await replica.scheduler.store.transaction(async (tx) => {
    for (const agent of rows.agents ?? []) await tx.agents.insert(agent);
    for (const task of rows.tasks ?? []) await tx.tasks.insert(task);
    for (const routine of rows.routines ?? []) await tx.routines.insert(routine);
    for (const wakeup of rows.wakeups ?? []) await tx.wakeups.insert(wakeup);
    for (const run of rows.runs ?? []) await tx.runs.insert(run, null);
  });
}

const read = <T>(replica: InProcessReplica, work: Parameters<InProcessReplica['scheduler']['store']['read']>[0]) =>
  replica.scheduler.store.read(work) as Promise<T>;

describe.runIf(process.platform === 'linux')('a state change races another connection\'s write of the same row', () => {
  it('tasks: a reassignment decided on an assignee that changed meanwhile is refused (409)', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const [b, c] = [agentRow(agent.workspace_id, T0), agentRow(agent.workspace_id, T0)];
    const task = taskRow(agent.workspace_id, T0, { assignee_agent_instance_id: agent.id, assigned_at: T0 });
    await insert(a, { agents: [b, c], tasks: [task] });

    const outcome = await raced([['UPDATE tasks SET assignee_agent_instance_id = $1, assigned_at = $2 WHERE id = $3', [c.id, T0 + 1, task.id]]],
      () => a.scheduler.services.tasks.updateTask(task.id, { assignee_agent_instance_id: b.id }));

    refusedWith(outcome, 'conflict');
    expect((await read<Task>(a, (tx) => tx.tasks.get(task.id)))).toMatchObject({ assignee_agent_instance_id: c.id });
  });

  it('tasks: a reassignment does not cancel the previous assignee\'s retry that was claimed meanwhile', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const other = agentRow(agent.workspace_id, T0);
    const task = taskRow(agent.workspace_id, T0, { assignee_agent_instance_id: agent.id, assigned_at: T0 });
    const retry = wakeupRow(agent, T0, { task_id: task.id, status: 'scheduled_retry', retry_count: 1, scheduled_retry_at: T0 + 60_000, available_at: T0 + 60_000 });
    await insert(a, { agents: [other], tasks: [task], wakeups: [retry] });

    const outcome = await raced([["UPDATE agent_wakeup_requests SET status = 'claimed', claimed_at = $1 WHERE id = $2", [T0 + 1, retry.id]]],
      () => a.scheduler.services.tasks.updateTask(task.id, { assignee_agent_instance_id: other.id }));

    expect(outcome).toMatchObject({ ok: true, value: { assignee_agent_instance_id: other.id } });
    expect(await read<Wakeup>(a, (tx) => tx.wakeups.get(retry.id))).toMatchObject({ status: 'claimed', cancel_reason: null });
  });

  it('tasks: a move decided on a state the task left meanwhile is refused (409)', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const task = taskRow(agent.workspace_id, T0);
    await insert(a, { tasks: [task] });

    const outcome = await raced([["UPDATE tasks SET state = 'IN_PROGRESS', updated_at = $1 WHERE id = $2", [T0 + 1, task.id]]],
      () => a.scheduler.services.tasks.moveTask(task.id, 'DONE', { type: 'user', id: null }));

    refusedWith(outcome, 'conflict');
    expect(await read<Task>(a, (tx) => tx.tasks.get(task.id))).toMatchObject({ state: 'IN_PROGRESS', completed_at: null });
  });

  it('wakeups: deleting an agent does not cancel its wakeup claimed meanwhile', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const queued = wakeupRow(agent, T0, { available_at: T0 + 3_600_000 });
    await insert(a, { wakeups: [queued] });

    const outcome = await raced([["UPDATE agent_wakeup_requests SET status = 'claimed', claimed_at = $1 WHERE id = $2", [T0 + 1, queued.id]]],
      () => a.scheduler.services.org.deleteAgent(agent.id));

    expect(outcome.ok).toBe(true);
    expect(await read<Wakeup>(a, (tx) => tx.wakeups.get(queued.id))).toMatchObject({ status: 'claimed', cancel_reason: null });
  });

  it('runs: a person\'s cancel leaves alone a wakeup that left its claim meanwhile (its retry stands)', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const wakeup = wakeupRow(agent, T0, { status: 'claimed', claimed_at: T0 });
    const run = runRow(wakeup, T0, { status: 'running', started_at: T0 });
    await insert(a, { wakeups: [wakeup], runs: [run] });
    await a.scheduler.store.transaction((tx) => tx.leases.take(agent.id, 'replica-elsewhere', null));

    const outcome = await raced(
      [["UPDATE agent_wakeup_requests SET status = 'scheduled_retry', retry_count = 1, scheduled_retry_at = $1, available_at = $1 WHERE id = $2", [T0 + 60_000, wakeup.id]]],
      () => a.api('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'stop it' }));

    expect(outcome).toMatchObject({ ok: true, value: { status: 200 } });
    expect(await read<Wakeup>(a, (tx) => tx.wakeups.get(wakeup.id))).toMatchObject({ status: 'scheduled_retry', cancel_reason: null });
  });

  it('agents: a resume asked while a pause commits resumes the paused agent and clears its reason', async () => {
    const a = await start();
    const { agent } = await seed(a);

    const outcome = await raced([["UPDATE agent_instances SET status = 'paused', paused_reason = 'budget exceeded' WHERE id = $1", [agent.id]]],
      () => a.scheduler.services.org.updateAgent(agent.id, { status: 'idle' }));

    expect(outcome).toMatchObject({ ok: true, value: { status: 'idle', paused_reason: null } });
    expect(await read<Agent>(a, (tx) => tx.agents.get(agent.id))).toMatchObject({ status: 'idle', paused_reason: null });
  });

  it('agents: of two deletes at once, the second finds no live agent (404) and cancels nothing twice', async () => {
    const a = await start();
    const { agent } = await seed(a);

    const outcome = await raced([["UPDATE agent_instances SET deleted_at = $1, status = 'stopped' WHERE id = $2", [T0 + 1, agent.id]]],
      () => a.scheduler.services.org.deleteAgent(agent.id));

    refusedWith(outcome, 'not_found');
    expect(await read<Agent>(a, (tx) => tx.agents.get(agent.id))).toMatchObject({ deleted_at: T0 + 1 });
  });

  it('routines: an edit of a routine archived meanwhile is refused (409), and archived stays terminal', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const routine = routineRow(agent, T0, { owner_id: 'admin' });
    await insert(a, { routines: [routine] });

    const outcome = await raced([["UPDATE office_routines SET status = 'archived' WHERE id = $1", [routine.id]]],
      () => a.scheduler.services.routines.catalogue.update(routine.id, { status: 'paused' }));

    refusedWith(outcome, 'conflict');
    expect(await read<Routine>(a, (tx) => tx.routines.get(routine.id))).toMatchObject({ status: 'archived' });
  });

  it('routines: deleting their assignee pauses only the routines still active, never one archived meanwhile', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const [archivedMeanwhile, active] = [routineRow(agent, T0), routineRow(agent, T0)];
    await insert(a, { routines: [archivedMeanwhile, active] });

    const outcome = await raced([["UPDATE office_routines SET status = 'archived' WHERE id = $1", [archivedMeanwhile.id]]],
      () => a.scheduler.services.org.deleteAgent(agent.id));

    expect(outcome.ok).toBe(true);
    expect(await read<Routine>(a, (tx) => tx.routines.get(archivedMeanwhile.id))).toMatchObject({ status: 'archived', paused_reason: null });
    expect(await read<Routine>(a, (tx) => tx.routines.get(active.id))).toMatchObject({ status: 'paused' });
  });

  it('recovery: a run left queued whose session started meanwhile is not cancelled under it', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const wakeup = wakeupRow(agent, T0, { status: 'claimed', claimed_at: T0 });
    const run = runRow(wakeup, T0);
    await insert(a, { wakeups: [wakeup], runs: [run] });
    // A replica that died holding the agent: this one takes it over at its next heartbeat, and recovers its work.
    await a.scheduler.store.transaction((tx) => tx.leases.take(agent.id, 'replica-dead', T0 - 1));

    const outcome = await raced([["UPDATE runs SET status = 'running', started_at = $1 WHERE id = $2", [T0 + 1, run.id]]], () => beat(a));

    expect(outcome.ok).toBe(true);
    expect(await read<Run>(a, (tx) => tx.runs.get(run.id))).toMatchObject({ status: 'running', error: null });
  });

  it('finish: a failed run\'s wakeup that a person cancelled meanwhile is not scheduled for a retry', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const wakeup = wakeupRow(agent, T0, { status: 'claimed', claimed_at: T0 });
    const run = runRow(wakeup, T0, { status: 'running', started_at: T0 });
    await insert(a, { wakeups: [wakeup], runs: [run] });
    await a.scheduler.store.transaction((tx) => tx.leases.take(agent.id, 'replica-dead', T0 - 1));

    // The dead replica's session is interrupted: one failed attempt, which the new owner's recovery handles.
    const outcome = await raced(
      [["UPDATE agent_wakeup_requests SET status = 'cancelled', cancel_reason = 'run_cancelled', finished_at = $1 WHERE id = $2", [T0 + 1, wakeup.id]]],
      () => beat(a));

    expect(outcome.ok).toBe(true);
    expect(await read<Run>(a, (tx) => tx.runs.get(run.id))).toMatchObject({ status: 'interrupted' });
    expect(await read<Wakeup>(a, (tx) => tx.wakeups.get(wakeup.id))).toMatchObject({ status: 'cancelled', cancel_reason: 'run_cancelled', scheduled_retry_at: null });
  });

  it('daily caps: a dispatch one below the cap while another dispatch\'s run is being written waits for it, and is deferred: never a run past the cap', async () => {
    const a = await cluster.start('replica-a', { at: T0, functions: new Map([['quick', async () => ({})]]) });
    const workspaceId = await seedWorkspace(a);
    const agentId = await createAgent(a, workspaceId, { daily_run_cap: 2 });
    const wake = async (reason: string) => (await a.api<{ wakeup: Wakeup }>('POST', `/api/office/agents/${agentId}/wake`, { reason })).body.wakeup;
    const decided = (id: string) => waitFor(async () => {
      const wakeup = (await a.api<Wakeup>('GET', `/api/office/wakeups/${id}`)).body;
      return wakeup.run_id !== null || wakeup.skip_reason !== null ? wakeup : null;
    }, `wakeup ${id} to be run or deferred`);
    // Today's first run: one below the cap.
    const first = await wake('the first run of the day');
    await waitFor(async () => (await a.api<Wakeup>('GET', `/api/office/wakeups/${first.id}`)).body.status === 'finished', 'the first run to finish');
    // Another dispatch of the agent (another replica, or another slot) has claimed its wakeup and writes its run.
    const other = wakeupRow({ id: agentId, workspace_id: workspaceId }, T0, { status: 'claimed', claimed_at: T0 });
    await insert(a, { wakeups: [other] });

    const outcome = await raced(
      [["INSERT INTO runs (id, wakeup_id, workspace_id, agent_id, attempt, status, created_at, started_at) VALUES ($1, $2, $3, $4, 1, 'running', $5, $5)",
        [newId('run'), other.id, workspaceId, agentId, T0]]],
      async () => decided((await wake('one below the cap')).id));

    expect(outcome).toMatchObject({ ok: true, value: { status: 'queued', skip_reason: 'daily_run_cap', run_id: null } });
    expect(await read<Run[]>(a, (tx) => tx.runs.list({ agent_id: agentId }))).toHaveLength(2);
  });

  it('loop detector: an agent a person paused meanwhile keeps that pause and its reason', async () => {
    const a = await start();
    const { agent } = await seed(a);
    const task = taskRow(agent.workspace_id, T0, { assignee_agent_instance_id: agent.id });
    const wakeup = wakeupRow(agent, T0, { task_id: task.id, status: 'finished', finished_at: T0 + LOOP_RUNS });
    const runs = Array.from({ length: LOOP_RUNS }, (_, i) => runRow(wakeup, T0 + i, {
      status: 'succeeded', started_at: T0 + i, finished_at: T0 + i + 1, made_progress: false, attempt: i + 1,
    }));
    await insert(a, { tasks: [task], wakeups: [wakeup], runs });
    const afterRun = createAfterRun({ config: a.scheduler.config, log: pino({ level: 'silent' }), wakeups: a.scheduler.services.wakeups, tasks: a.scheduler.services.tasks, agentChanged: () => undefined });
    const last = runs.at(-1)!;

    const outcome = await raced([["UPDATE agent_instances SET status = 'paused', paused_reason = 'paused by a person' WHERE id = $1", [agent.id]]],
      () => a.scheduler.store.transaction((tx) => afterRun(tx, {
        wakeup, run: last, runId: last.id, agentId: agent.id, taskId: task.id, ok: true, resultJson: {}, error: null, madeProgress: false,
      }, T0 + 10)));

    expect(outcome.ok).toBe(true);
    expect(await read<Agent>(a, (tx) => tx.agents.get(agent.id))).toMatchObject({ status: 'paused', paused_reason: 'paused by a person' });
    expect(await a.scheduler.store.query((reads) => reads.inbox.list(agent.workspace_id))).toEqual([]);
  });
});
