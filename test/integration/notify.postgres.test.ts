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
import { OUTBOX_CLAIM_MS } from '../../src/events/bus.js';
import { createStore } from '../../src/persistence/createStore.js';
import { signalsApplicationName } from '../../src/persistence/postgres/notify.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { FAST_ENV, fixtureAgent, request, waitFor } from '../helpers/harness.js';
import { freshDatabase } from '../store/postgresFactory.js';
import { readStream } from '../helpers/stream.js';

interface Replica {
  scheduler: Scheduler;
  url: string;
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A long lease: the heartbeat (one statement a third of it) stays out of a test's few seconds. */
const REPLICA_ENV = { OFFICE_LEASE_SEC: '120' };

async function startReplica(databaseUrl: string, id: string): Promise<Replica> {
  const scheduler = await createScheduler({ config: loadConfig({ ...FAST_ENV, ...REPLICA_ENV, OFFICE_DATABASE_URL: databaseUrl, OFFICE_REPLICA_ID: id }) });
  const url = (await scheduler.start()).url!;
  cleanups.push(() => scheduler.stop());
  return { scheduler, url, api: (method, path, body) => request(url, method, path, body) };
}

/** A fresh database with two replicas on it, and a connection of the test's own to the same database. */
async function twoReplicas() {
  const database = await freshDatabase();
  cleanups.push(database.drop);
  const a = await startReplica(database.url, 'replica-a');
  const b = await startReplica(database.url, 'replica-b');
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  cleanups.push(() => sql.end());
  return { a, b, sql, databaseUrl: database.url };
}

/** The replica whose actor runs the agent, and the other one. */
async function holderOf(agentId: string, replicas: Replica[]): Promise<{ holder: Replica; other: Replica }> {
  const holder = await waitFor(() => replicas.find((replica) => replica.scheduler.supervisor.view(agentId) !== null), `the actor of ${agentId}`);
  return { holder, other: replicas.find((replica) => replica !== holder)! };
}

/** Lease heartbeats a replica ran (one statement each): the only SQL an idle replica may run. */
function heartbeats(replica: Replica): number {
  return replica.scheduler.replicas.leaseRenewals;
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

describe('replicas on PostgreSQL signal each other (LISTEN/NOTIFY)', () => {
  it('a task assigned through one replica to an agent another replica holds runs there at once, and the idle replica runs no SQL meanwhile', async () => {
    const { a, b } = await twoReplicas();
    const workspace = await a.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agentId = await createAgent(b, workspace.body.id, 'Worker');
    const { holder, other } = await holderOf(agentId, [a, b]);
    expect(other.scheduler.supervisor.view(agentId)).toBeNull();
    await holder.scheduler.supervisor.flush();
    await holder.scheduler.events.idle();

    // Idle: the holder runs no statement (but its lease heartbeat) while the other replica works on
    // an agent of its own; it hears of it (the other's live feed reaches its own), so time has passed.
    const idleSince = { statements: holder.scheduler.store.statementsExecuted(), heartbeats: heartbeats(holder) };
    const elsewhere = await createAgent(other, workspace.body.id, 'Elsewhere');
    await waitFor(() => holder.scheduler.feed.getSnapshot().context.agents[elsewhere], 'the other replica\'s new agent actor in the holder\'s live feed');
    expect(holder.scheduler.store.statementsExecuted() - idleSince.statements).toBeLessThanOrEqual(heartbeats(holder) - idleSince.heartbeats);

    const task = await other.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: 'Write docs', assignee_agent_instance_id: agentId });
    expect(task.status).toBe(201);
    // The recovery sweep is off: only the signal can bring the wakeup to the holder's actor.
    const run = await succeededRun(other, agentId, task.body.id);
    expect(run.result_json.summary).toBe('handled task_assigned');
    expect(holder.scheduler.store.statementsExecuted()).toBeGreaterThan(idleSince.statements);
    expect(other.scheduler.supervisor.view(agentId)).toBeNull();
  });

  it('a replica alone relays nothing; once another one starts listening, each hears of the other and relays to it', async () => {
    const database = await freshDatabase();
    cleanups.push(database.drop);
    // The test listens on the relay channel too (it never sends, so no replica counts it).
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    cleanups.push(() => listener.end());
    const envelopes: { replica: string; messages: unknown[]; presence?: string }[] = [];
    listener.on('notification', (notification) => { envelopes.push(JSON.parse(notification.payload!)); });
    await listener.query('LISTEN office_relay');

    const a = await startReplica(database.url, 'replica-a');
    const workspace = await a.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agentId = await createAgent(a, workspace.body.id, 'Worker');
    const task = await a.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: 'Alone', assignee_agent_instance_id: agentId });
    await succeededRun(a, agentId, task.body.id);

    await startReplica(database.url, 'replica-b');
    // A answers B's ask; anything A had relayed while alone would have reached the channel before.
    await waitFor(() => envelopes.find((envelope) => envelope.replica === 'replica-a' && envelope.presence === 'here'), 'replica-a answering replica-b');
    const answered = envelopes.findIndex((envelope) => envelope.replica === 'replica-a' && envelope.presence === 'here');
    expect(envelopes.slice(0, answered).filter((envelope) => envelope.replica === 'replica-a' && envelope.messages.length > 0)).toEqual([]);
    expect(envelopes.filter((envelope) => envelope.replica === 'replica-a' && envelope.presence === 'ask')).toHaveLength(1);

    expect((await a.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'now someone listens' })).status).toBe(202);
    await waitFor(() => envelopes.find((envelope) => envelope.replica === 'replica-a' && envelope.messages.length > 0), 'replica-a relaying to replica-b');
  });

  it('a replica relays its live feed, and of its domain events only those another replica acts on (agent changes)', async () => {
    const { a, b, sql } = await twoReplicas();
    const envelopes: { replica: string; messages: { kind: string; type?: string }[] }[] = [];
    sql.on('notification', (notification) => { envelopes.push(JSON.parse(notification.payload!)); });
    await sql.query('LISTEN office_relay');
    const workspace = await a.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agentId = await createAgent(a, workspace.body.id, 'Worker');
    const tasks = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      a.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: `Burst ${i}`, assignee_agent_instance_id: agentId })));
    for (const task of tasks) await succeededRun(a, agentId, task.body.id);
    expect((await b.api('PATCH', `/api/office/agents/${agentId}`, { cooldown_sec: 1 })).status).toBe(200);
    await waitFor(() => envelopes.some((envelope) => envelope.replica === 'replica-b'
      && envelope.messages.some((message) => message.kind === 'event' && message.type === 'agent.updated')), 'the agent change relayed');

    const fromA = envelopes.filter((envelope) => envelope.replica === 'replica-a' && envelope.messages.length > 0);
    const messages = fromA.flatMap((envelope) => envelope.messages);
    // 20 tasks, each queued, claimed, run and ended, with the actor's view at each step: all of it relayed, in batches.
    expect(messages.filter((message) => message.kind === 'run').length).toBeGreaterThanOrEqual(40);
    expect(fromA.length).toBeLessThan(messages.length);
    const relayedEvents = envelopes.flatMap((envelope) => envelope.messages).filter((message) => message.kind === 'event');
    expect(relayedEvents.map((message) => message.type)).toEqual(['agent.updated']);
  });

  it('the event stream of one replica shows a wakeup and a run written through the other', async () => {
    const { a, b } = await twoReplicas();
    const workspace = await b.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agentId = await createAgent(b, workspace.body.id, 'Worker');
    const { holder, other } = await holderOf(agentId, [a, b]);
    await waitFor(() => other.scheduler.feed.getSnapshot().context.agents[agentId], 'the holder\'s agent actor in the other replica\'s live feed');

    const ended = new RegExp(`event: run\ndata: [^\n]*"agent_id":"${agentId}","status":"ended"`);
    const reading = readStream(`${other.url}/api/office/stream`, ended).then((read) => read.text);
    const woken = await holder.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'stream across replicas' });
    expect(woken.status).toBe(202);
    const text = await reading;
    expect(text).toContain('event: hello');
    expect(text).toContain(`"wakeup_id":"${woken.body.wakeup.id}"`);
    expect(text).toMatch(new RegExp(`event: run\ndata: [^\n]*"agent_id":"${agentId}","status":"running"`));
    expect(text).toMatch(ended);
    // Relayed once: the other replica's stream shows each of the holder's entries one time.
    expect(text.match(new RegExp(`"wakeup_id":"${woken.body.wakeup.id}"`, 'g'))).toHaveLength(1);
  });

  it('an agent changed through one replica is changed in the actor of the replica that holds it', async () => {
    const { a, b } = await twoReplicas();
    const workspace = await a.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agentId = await createAgent(a, workspace.body.id, 'Worker');
    const { holder, other } = await holderOf(agentId, [a, b]);
    expect(holder.scheduler.supervisor.view(agentId)).toMatchObject({ max_concurrent_sessions: 1 });

    const patched = await other.api('PATCH', `/api/office/agents/${agentId}`, { max_concurrent_sessions: 3 });
    expect(patched.status).toBe(200);
    await waitFor(() => holder.scheduler.supervisor.view(agentId)?.max_concurrent_sessions === 3, 'the holder\'s actor to take the new limit');

    expect((await other.api('PATCH', `/api/office/agents/${agentId}`, { status: 'paused' })).status).toBe(200);
    await waitFor(() => holder.scheduler.supervisor.view(agentId)?.state.startsWith('paused'), 'the holder\'s actor to pause');
    // And the change of the holder's actor reaches the other replica's feed in turn.
    await waitFor(() => String(other.scheduler.feed.getSnapshot().context.agents[agentId]?.state).startsWith('paused'), 'the paused actor in the other replica\'s feed');
  });

  it('a listener whose connection is terminated reconnects and runs a wakeup whose signal it missed', async () => {
    const { a, b, sql } = await twoReplicas();
    const workspace = await a.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agentId = await createAgent(b, workspace.body.id, 'Worker');
    const { holder, other } = await holderOf(agentId, [a, b]);
    const holderId = (await sql.query('SELECT owner_id FROM agent_leases WHERE agent_id = $1', [agentId])).rows[0].owner_id as string;
    const listenerOfHolder = async () => (await sql.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [signalsApplicationName(holderId)])).rows[0]?.pid;
    const before = await waitFor(listenerOfHolder, 'the holder\'s listening connection');

    // The assignment's signal is lost for sure: it is never sent (as if sent while the holder was not listening).
    await sql.query('ALTER TABLE agent_wakeup_requests DISABLE TRIGGER wakeup_queued_notifies');
    const task = await other.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: 'Missed', assignee_agent_instance_id: agentId });
    expect(task.status).toBe(201);
    await sql.query('ALTER TABLE agent_wakeup_requests ENABLE TRIGGER wakeup_queued_notifies');

    await sql.query('SELECT pg_terminate_backend($1)', [before]);
    await waitFor(async () => {
      const pid = await listenerOfHolder();
      return pid !== undefined && pid !== before;
    }, 'the holder listening again on a new connection');
    await succeededRun(other, agentId, task.body.id);
    expect(holder.scheduler.supervisor.view(agentId)).not.toBeNull();

    // And it hears new signals on the new connection.
    const next = await other.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: 'Heard', assignee_agent_instance_id: agentId });
    await succeededRun(other, agentId, next.body.id);
  });

  it('an outbox event a dead replica never delivered is delivered by a live one once its claim expires', async () => {
    const { a, sql, databaseUrl } = await twoReplicas();
    const workspace = await a.api('POST', '/api/office/workspaces', { name: 'Acme' });
    const agentId = await createAgent(a, workspace.body.id, 'Worker');
    const task = await a.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: 'Review', assignee_agent_instance_id: agentId });
    await succeededRun(a, agentId, task.body.id);

    // A third replica commits a comment's event and dies before delivering it: its outbox row stays,
    // claimed by it until a moment that has passed by the time anyone looks (its clock ran behind).
    const dead = createStore({ dbPath: '', databaseUrl, sqliteSync: 'NORMAL' }, {
      owner: 'replica-dead', now: () => Date.now() - 2 * OUTBOX_CLAIM_MS, publish: () => undefined, outboxClaimMs: OUTBOX_CLAIM_MS,
    });
    await dead.transaction(async (tx) => {
      tx.emit('comment.created', { comment_id: 'cmt_left_by_the_dead', task_id: task.body.id, author_type: 'user', author_id: 'u-alice' });
    });
    await dead.close();

    // A live replica takes it at the claim's deadline and delivers it: the comment wakes the assignee.
    const woken = await waitFor(async () => {
      const wakeups = await a.api('GET', `/api/office/wakeups?agent_id=${agentId}&source=comment`);
      return (wakeups.body as any[]).find((wakeup) => wakeup.payload.comment_id === 'cmt_left_by_the_dead' && wakeup.status === 'finished');
    }, 'the dead replica\'s comment to wake the assignee, and its run to finish');
    expect(woken.task_id).toBe(task.body.id);
    await waitFor(async () => Number((await sql.query('SELECT count(*) AS n FROM event_outbox')).rows[0].n) === 0, 'the delivered event to leave the outbox');
  });
  const startedAfterDeath = [
    { deadId: 'replica-dead', nextId: 'replica-next', name: 'a replica started after another died delivers an event the dead one claimed once the claim expires' },
    { deadId: 'replica-same', nextId: 'replica-same', name: 'a replica restarted under its id delivers an event it claimed before it died once the claim expires' },
  ];
  for (const { deadId, nextId, name } of startedAfterDeath) {
    it(name, async () => {
      const database = await freshDatabase();
      cleanups.push(database.drop);
      const first = await startReplica(database.url, 'replica-first');
      const workspace = await first.api('POST', '/api/office/workspaces', { name: 'Acme' });
      const agentId = await createAgent(first, workspace.body.id, 'Worker');
      const task = await first.api('POST', '/api/office/tasks', { workspace_id: workspace.body.id, title: 'Review', assignee_agent_instance_id: agentId });
      await succeededRun(first, agentId, task.body.id);
      await first.scheduler.stop();

      // A replica commits a comment's event and dies; its claim still runs for a moment, and nobody
      // listening heard it: the replica that starts next reads it when it starts listening.
      const dead = createStore({ dbPath: '', databaseUrl: database.url, sqliteSync: 'NORMAL' }, {
        owner: deadId, now: () => Date.now() - OUTBOX_CLAIM_MS + 1_500, publish: () => undefined, outboxClaimMs: OUTBOX_CLAIM_MS,
      });
      await dead.transaction(async (tx) => {
        tx.emit('comment.created', { comment_id: 'cmt_claimed_before', task_id: task.body.id, author_type: 'user', author_id: 'u-alice' });
      });
      await dead.close();

      const next = await startReplica(database.url, nextId);
      const woken = await waitFor(async () => {
        const wakeups = await next.api('GET', `/api/office/wakeups?agent_id=${agentId}&source=comment`);
        return (wakeups.body as any[]).find((wakeup) => wakeup.payload.comment_id === 'cmt_claimed_before' && wakeup.status === 'finished');
      }, 'the comment claimed before the replica started to wake the assignee, and its run to finish');
      expect(woken.task_id).toBe(task.body.id);
    });
  }
});
