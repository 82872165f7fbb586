import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Workspace } from '../../src/domain/types.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { createInspector, createStore } from '../../src/persistence/createStore.js';
import type { Inspector } from '../../src/persistence/inspector.js';
import type { Store } from '../../src/persistence/store.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { FAST_ENV, seedAgent, startHarness, type Harness } from '../helpers/harness.js';
import { sqliteFaults } from '../helpers/storage.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'office-events-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'office.db');
}

function openStore(path: string, publish: (events: DomainEvent[]) => void, now: () => number = () => Date.now()): Store {
  const store = createStore({ dbPath: path, sqliteSync: 'NORMAL' }, { now, publish });
  cleanups.push(() => store.close());
  return store;
}

/**
 * A second connection: what any other reader of the file sees. Its SQLite reads happen when called,
 * so a synchronous callback (publish, a subscriber) can take a reading and await it later.
 */
function reader(path: string): Inspector {
  const inspect = createInspector({ dbPath: path });
  cleanups.push(() => inspect.close());
  return inspect;
}

const count = (inspect: Inspector, table: string) => inspect.count(table);

function workspace(id: string): Workspace {
  return { id, name: id, timezone: 'UTC', recovery_lookback_hours: 24, default_executor: null, deleted_at: null, created_at: 1, updated_at: 1 };
}

describe('domain events leave only with a committed transaction', () => {
  it('a transaction that emits and then throws publishes nothing, runs no afterCommit and leaves the outbox empty', async () => {
    const path = tempDbPath();
    const publish = vi.fn();
    const store = openStore(path, publish);
    const afterCommit = vi.fn();

    await expect(store.transaction(async (tx) => {
      await tx.workspaces.insert(workspace('ws_rolled_back'));
      tx.emit('task.created', { task_id: 'tsk_1', workspace_id: 'ws_rolled_back' });
      tx.afterCommit(afterCommit);
      throw new Error('boom after emit');
    })).rejects.toThrow('boom after emit');

    expect(publish).not.toHaveBeenCalled();
    expect(afterCommit).not.toHaveBeenCalled();
    const db = reader(path);
    expect(await count(db, 'event_outbox')).toBe(0);
    expect(await count(db, 'workspaces')).toBe(0);
  });

  it('a transaction that fails on a constraint after emitting publishes nothing', async () => {
    const path = tempDbPath();
    const publish = vi.fn();
    const store = openStore(path, publish);
    await store.transaction(async (tx) => tx.workspaces.insert(workspace('ws_dup')));
    publish.mockClear();

    await expect(store.transaction(async (tx) => {
      tx.emit('task.created', { task_id: 'tsk_1', workspace_id: 'ws_dup' });
      await tx.workspaces.insert(workspace('ws_dup')); // primary key violation
    })).rejects.toThrow(/UNIQUE|PRIMARY KEY/i);

    expect(publish).not.toHaveBeenCalled();
    expect(await count(reader(path), 'event_outbox')).toBe(0);
  });

  it('a committed transaction publishes its events exactly once, after the commit is visible to other connections', async () => {
    const path = tempDbPath();
    let db!: Inspector;
    const seenAtPublish: Promise<{ workspaceRows: number; outboxIds: number[] }>[] = [];
    const publish = vi.fn((events: DomainEvent[]) => {
      const workspaceRows = db.count('workspaces', { id: 'ws_committed' });
      const outboxIds = db.rows<{ id: number }>('event_outbox', {}, { columns: ['id'], orderBy: 'id' });
      seenAtPublish.push(Promise.all([workspaceRows, outboxIds]).then(([n, rows]) => ({ workspaceRows: n, outboxIds: rows.map((r) => r.id) })));
      return events;
    });
    const store = openStore(path, publish, () => 5_000);
    db = reader(path);
    let visibleInsideTransaction = -1;

    await store.transaction(async (tx) => {
      await tx.workspaces.insert(workspace('ws_committed'));
      tx.emit('task.created', { task_id: 'tsk_a', workspace_id: 'ws_committed' });
      tx.emit('task.assigned', { task_id: 'tsk_a', workspace_id: 'ws_committed', agent_id: 'agt_1', previous_agent_id: null });
      // Before COMMIT another connection must not see the write: the check below is meaningful.
      visibleInsideTransaction = await count(db, 'workspaces');
      expect(publish).not.toHaveBeenCalled();
    });

    expect(visibleInsideTransaction).toBe(0);
    expect(publish).toHaveBeenCalledTimes(1);
    const events = publish.mock.calls[0]![0];
    expect(events.map((e) => e.type)).toEqual(['task.created', 'task.assigned']);
    expect(events[0]).toMatchObject({ type: 'task.created', payload: { task_id: 'tsk_a', workspace_id: 'ws_committed' }, at: 5_000 });
    // At the moment of publishing, the write and the outbox rows (the events' ids) are committed.
    expect(await Promise.all(seenAtPublish)).toEqual([{ workspaceRows: 1, outboxIds: events.map((e) => e.id) }]);

    // Further work on the store does not publish the same events again.
    await store.transaction(async (tx) => tx.workspaces.get('ws_committed'));
    expect(publish).toHaveBeenCalledTimes(1);
  });

  it('emit inside a read is refused, so no event can leave without a write', async () => {
    const store = openStore(tempDbPath(), vi.fn());
    await expect(store.read(async (tx) => tx.emit('agent.updated', { agent_id: 'agt_1' }))).rejects.toThrow(/inside a read/);
  });
});

describe('the wired scheduler delivers committed events to subscribers and clears the outbox', () => {
  let scheduler: Scheduler;

  it('a subscriber runs once per created task, sees the committed row from another connection, and the outbox row is removed after acknowledgement', async () => {
    const path = tempDbPath();
    scheduler = await createScheduler({ config: loadConfig({ ...FAST_ENV, OFFICE_DB: path }) });
    cleanups.push(() => scheduler.stop());
    await scheduler.start({ listen: false });
    const db = reader(path);
    const seen: Promise<{ taskId: string; rowVisible: boolean }>[] = [];
    scheduler.events.on('task.created', (event) => {
      const rows = db.rows('tasks', { id: event.payload.task_id }, { columns: ['id'] });
      seen.push(rows.then((found) => ({ taskId: event.payload.task_id, rowVisible: found.length === 1 })));
    });

    const ws = await scheduler.services.org.createWorkspace({ name: 'Events' });
    const task = await scheduler.services.tasks.createTask({ workspace_id: ws.id, title: 'Observe me' });
    await scheduler.events.idle();

    expect(await Promise.all(seen)).toEqual([{ taskId: task.id, rowVisible: true }]);
    await vi.waitFor(async () => expect(await count(db, 'event_outbox')).toBe(0));
  });

  it('a service call that fails validation publishes nothing', async () => {
    const path = tempDbPath();
    scheduler = await createScheduler({ config: loadConfig({ ...FAST_ENV, OFFICE_DB: path }) });
    cleanups.push(() => scheduler.stop());
    await scheduler.start({ listen: false });
    const subscriber = vi.fn();
    scheduler.events.on('task.created', subscriber);
    const ws = await scheduler.services.org.createWorkspace({ name: 'Events' });

    await expect(scheduler.services.tasks.createTask({ workspace_id: ws.id, title: 'Bad', parent_id: 'tsk_missing' })).rejects.toThrow(/not found/);
    await scheduler.events.idle();
    expect(subscriber).not.toHaveBeenCalled();
    expect(await count(reader(path), 'event_outbox')).toBe(0);
    expect(await count(reader(path), 'tasks')).toBe(0);
  });
});

describe('an event left in the outbox by a crash is replayed at boot', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  const TERMINAL = ['finished', 'failed', 'skipped', 'cancelled', 'coalesced'];

  async function taskAssignedWakeups(agentId: string, taskId: string) {
    const res = await h.api('GET', `/api/office/wakeups?agent_id=${agentId}&source=task_assigned`);
    expect(res.status).toBe(200);
    return (res.body as any[]).filter((w) => w.payload?.task_id === taskId);
  }

  it('a committed-but-undelivered task.assigned produces exactly one task_assigned wakeup, and replaying the same event again still yields one', async () => {
    h = await startHarness();
    const { workspaceId, agentId } = await seedAgent(h);
    const created = await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Assigned before the crash' });
    expect(created.status).toBe(201);
    const taskId = created.body.id as string;
    await h.scheduler.events.idle();

    // The "crashed" process: it commits the assignment with its event, and dies before delivering it.
    const assignedAt = Date.now();
    const crashed = createStore({ dbPath: h.dbPath, sqliteSync: 'NORMAL' }, { now: () => assignedAt, publish: () => undefined });
    await crashed.transaction(async (tx) => {
      sqliteFaults(crashed).run('UPDATE tasks SET assignee_agent_instance_id = ?, updated_at = ? WHERE id = ?', agentId, assignedAt, taskId);
      tx.emit('task.assigned', { task_id: taskId, workspace_id: workspaceId, agent_id: agentId, previous_agent_id: null });
    });
    // Older than the recovery lookback, so the boot recovery sweep cannot be what wakes the agent.
    sqliteFaults(crashed).run('UPDATE tasks SET created_at = ? WHERE id = ?', assignedAt - 48 * 3_600_000, taskId);
    const outboxRow = await h.inspect.rows<{ id: number; type: string; payload: string; created_at: number }>('event_outbox');
    await crashed.close();
    expect(outboxRow).toHaveLength(1);
    expect(await taskAssignedWakeups(agentId, taskId)).toEqual([]);

    await h.restart();
    const [wakeup] = await h.waitFor(async () => {
      const list = await taskAssignedWakeups(agentId, taskId);
      return list.length > 0 ? list : null;
    }, 'the replayed task_assigned wakeup');
    expect(wakeup.idempotency_key).toBe(`task_assigned:${taskId}:${assignedAt}:${outboxRow[0]!.id}`);
    const db = reader(h.dbPath);
    await h.waitFor(async () => (await count(db, 'event_outbox')) === 0, 'the replayed event to be acknowledged');
    await h.waitFor(async () => {
      const w = await h.api('GET', `/api/office/wakeups/${wakeup.id}`);
      return TERMINAL.includes(w.body.status);
    }, 'the replayed wakeup to end');
    expect(await taskAssignedWakeups(agentId, taskId)).toHaveLength(1);

    // Crash after handling but before the acknowledgement: the very same event is in the outbox again.
    const writer = sqliteFaults(h.dbPath);
    const row = outboxRow[0]!;
    writer.run('INSERT INTO event_outbox (id, type, payload, created_at) VALUES (?, ?, ?, ?)', row.id, row.type, row.payload, row.created_at);
    writer.close();

    await h.restart();
    await h.waitFor(async () => (await count(db, 'event_outbox')) === 0, 'the second replay to be acknowledged');
    await h.scheduler.events.idle();
    const after = await taskAssignedWakeups(agentId, taskId);
    expect(after).toHaveLength(1);
    expect(after[0].id).toBe(wakeup.id);
  });
});
