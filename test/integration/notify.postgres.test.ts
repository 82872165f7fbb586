/**
 * Two replicas (two schedulers, each with its HTTP server) on one PostgreSQL database: a wakeup
 * written through one reaches the agent actor on the replica that holds the agent through
 * LISTEN/NOTIFY, with no polling; each replica's live stream carries the other's entries; a
 * listener whose connection is killed comes back and catches up with what it missed.
 *
 * Each agent is held by the replica it was created through (the lease its creating transaction
 * takes); the recovery sweep is off, so nothing but a signal can start a run on the other replica.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { signalsApplicationName } from '../../src/persistence/postgres/notify.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { FAST_ENV, fixtureAgent, request, waitFor } from '../helpers/harness.js';
import { freshDatabase } from '../store/postgresFactory.js';

interface Replica {
  scheduler: Scheduler;
  url: string;
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startReplica(databaseUrl: string): Promise<Replica> {
  const scheduler = await createScheduler({ config: loadConfig({ ...FAST_ENV, OFFICE_DATABASE_URL: databaseUrl }) });
  const url = (await scheduler.start()).url!;
  cleanups.push(() => scheduler.stop());
  return { scheduler, url, api: (method, path, body) => request(url, method, path, body) };
}

/** A fresh database with two replicas on it, and a connection of the test's own to the same database. */
async function twoReplicas() {
  const database = await freshDatabase();
  cleanups.push(database.drop);
  const a = await startReplica(database.url);
  const b = await startReplica(database.url);
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  cleanups.push(() => sql.end());
  return { a, b, sql };
}

async function createAgent(through: Replica, workspaceId: string, name: string): Promise<string> {
  const agent = await through.api('POST', '/api/office/agents', {
    workspace_id: workspaceId, name, role: 'worker', executor: fixtureAgent('succeed.mjs'), cooldown_sec: 0,
  });
  expect(agent.status).toBe(201);
  return agent.body.id as string;
}

async function succeededRun(through: Replica, agentId: string, taskId: string) {
  return waitFor(async () => {
    const runs = await through.api('GET', `/api/office/runs?agent_id=${agentId}`);
    return (runs.body as any[]).find((run) => run.task_id === taskId && run.status === 'succeeded');
  }, `a succeeded run of ${agentId} on ${taskId}`, 15_000);
}

/** Reads a replica's event stream until `until` matches what has arrived. */
async function readStream(url: string, until: RegExp) {
  const controller = new AbortController();
  const response = await fetch(`${url}/api/office/stream`, { signal: controller.signal });
  const reader = response.body!.getReader();
  let text = '';
  const deadline = Date.now() + 15_000;
  try {
    while (!until.test(text) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } finally {
    controller.abort();
  }
  return text;
}

describe('replicas on PostgreSQL signal each other (LISTEN/NOTIFY)', () => {
  it('a task assigned through one replica to an agent another replica holds runs there at once, and the idle replica runs no SQL meanwhile', async () => {
    const { a, b } = await twoReplicas();
    const workspace = await a.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const onB = await createAgent(b, workspace.body.id, 'Held by B');
    expect(b.scheduler.supervisor.view(onB)).not.toBeNull();
    expect(a.scheduler.supervisor.view(onB)).toBeNull();
    await b.scheduler.supervisor.flush();
    await b.scheduler.events.idle();

    // Idle: B runs no statement while A works on agents of its own (B hears of it: A's feed reaches B's).
    const idleSince = b.scheduler.store.statementsExecuted();
    const onA = await createAgent(a, workspace.body.id, 'Held by A');
    await waitFor(() => b.scheduler.feed.getSnapshot().context.agents[onA], 'A\'s new agent actor in B\'s live feed');
    expect(b.scheduler.store.statementsExecuted()).toBe(idleSince);

    const task = await a.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: 'Write docs', assignee_agent_instance_id: onB });
    expect(task.status).toBe(201);
    const run = await succeededRun(a, onB, task.body.id);
    expect(run.result_json.summary).toBe('handled task_assigned');
    // B ran it: its actor claimed the wakeup (A holds no actor for the agent).
    expect(b.scheduler.store.statementsExecuted()).toBeGreaterThan(idleSince);
    expect(a.scheduler.supervisor.view(onB)).toBeNull();
  });

  it('the event stream of one replica shows a wakeup and a run written through the other', async () => {
    const { a, b } = await twoReplicas();
    const workspace = await b.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const onB = await createAgent(b, workspace.body.id, 'Held by B');
    await waitFor(() => a.scheduler.feed.getSnapshot().context.agents[onB], 'B\'s agent actor in A\'s live feed');

    const reading = readStream(a.url, new RegExp(`event: run\\ndata: [^\\n]*"agent_id":"${onB}","status":"ended"`));
    const woken = await b.api('POST', `/api/office/agents/${onB}/wake`, { reason: 'stream across replicas' });
    expect(woken.status).toBe(202);
    const text = await reading;
    expect(text).toContain('event: hello');
    expect(text).toContain(`"wakeup_id":"${woken.body.wakeup.id}"`);
    expect(text).toMatch(new RegExp(`event: run\\ndata: [^\\n]*"agent_id":"${onB}","status":"running"`));
    expect(text).toMatch(new RegExp(`event: run\\ndata: [^\\n]*"agent_id":"${onB}","status":"ended"`));
    // Relayed once: A's own feed shows each of B's entries one time.
    expect(text.match(new RegExp(`"wakeup_id":"${woken.body.wakeup.id}"`, 'g'))).toHaveLength(1);
  });

  it('a listener whose connection is terminated reconnects and runs a wakeup whose signal it missed', async () => {
    const { a, b, sql } = await twoReplicas();
    const workspace = await a.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const onB = await createAgent(b, workspace.body.id, 'Held by B');
    const bOwner = (await sql.query('SELECT owner_id FROM agent_leases WHERE agent_id = $1', [onB])).rows[0].owner_id as string;
    const listenerOfB = async () => (await sql.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1', [signalsApplicationName(bOwner)])).rows[0]?.pid;
    const before = await waitFor(listenerOfB, 'B\'s listening connection');

    // The assignment's signal is lost for sure: it is never sent (as if sent while B was not listening).
    await sql.query('ALTER TABLE agent_wakeup_requests DISABLE TRIGGER wakeup_queued_notifies');
    const task = await a.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: 'Missed', assignee_agent_instance_id: onB });
    expect(task.status).toBe(201);
    await sql.query('ALTER TABLE agent_wakeup_requests ENABLE TRIGGER wakeup_queued_notifies');

    await sql.query('SELECT pg_terminate_backend($1)', [before]);
    const after = await waitFor(async () => {
      const pid = await listenerOfB();
      return pid !== undefined && pid !== before ? pid : undefined;
    }, 'B listening again on a new connection');
    expect(after).not.toBe(before);
    await succeededRun(a, onB, task.body.id);

    // And it hears new signals on the new connection.
    const next = await a.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: 'Heard', assignee_agent_instance_id: onB });
    await succeededRun(a, onB, next.body.id);
  });
});
