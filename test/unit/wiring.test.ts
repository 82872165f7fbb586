import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DomainEvent } from '../../src/domain/events.js';
import { AnnouncingLauncher } from '../../src/events/announcingLauncher.js';
import { createLiveFeed, type FeedItem } from '../../src/events/liveFeed.js';
import { LiveNotifier } from '../../src/events/liveNotifier.js';
import { OutboxAcknowledger } from '../../src/events/outboxAcknowledger.js';
import type { LaunchRequest, LaunchResult } from '../../src/executors/types.js';
import { createInspector, createStore } from '../../src/persistence/createStore.js';
import type { Store } from '../../src/persistence/store.js';

const dirs: string[] = [];
const dbPaths = new Map<Store, string>();
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }); });

function openStore(published: DomainEvent[]): Store {
  const dir = mkdtempSync(join(tmpdir(), 'office-wiring-'));
  dirs.push(dir);
  const store = createStore({ dbPath: join(dir, 'office.db'), sqliteSync: 'NORMAL' }, { now: () => 1_000, publish: (events) => published.push(...events) });
  dbPaths.set(store, join(dir, 'office.db'));
  return store;
}

function feedItems(feed: ReturnType<typeof createLiveFeed>): FeedItem[] {
  const items: FeedItem[] = [];
  feed.on('changed', ({ item }) => items.push(item));
  return items;
}

const flushTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How many events are still in the outbox, as another connection sees them. */
async function outboxRows(store: Store): Promise<number> {
  const inspect = createInspector({ dbPath: dbPaths.get(store)! });
  try {
    return await inspect.count('event_outbox');
  } finally {
    await inspect.close();
  }
}

describe('OutboxAcknowledger', () => {
  it('deletes the outbox rows of every event acknowledged in one turn with one transaction', async () => {
    const published: DomainEvent[] = [];
    const store = openStore(published);
    for (const id of ['tsk_1', 'tsk_2', 'tsk_3']) {
      await store.transaction(async (tx) => tx.emit('task.created', { task_id: id, workspace_id: 'ws_1' }));
    }
    const transaction = vi.spyOn(store, 'transaction');
    const acknowledger = new OutboxAcknowledger(store, { warn: vi.fn() });

    for (const event of published) acknowledger.acknowledge([event.id]);
    await flushTurn();
    await vi.waitFor(async () => expect(await outboxRows(store)).toBe(0));
    expect(transaction).toHaveBeenCalledTimes(1);
    await store.close();
  });

  it('deletes what is still acknowledged when flushed at stop, before the store closes', async () => {
    const published: DomainEvent[] = [];
    const store = openStore(published);
    await store.transaction(async (tx) => tx.emit('task.created', { task_id: 'tsk_1', workspace_id: 'ws_1' }));
    const acknowledger = new OutboxAcknowledger(store, { warn: vi.fn() });

    acknowledger.acknowledge(published.map((event) => event.id));
    await acknowledger.flush();
    expect(await outboxRows(store)).toBe(0);
    await store.close();
  });
});

describe('LiveNotifier', () => {
  it('tells the agent actor of a queued wakeup and shows it on the live feed', () => {
    const feed = createLiveFeed();
    const items = feedItems(feed);
    const actors = { wakeupQueued: vi.fn(), wakeupWithdrawn: vi.fn(), agentChanged: vi.fn(async () => undefined) };
    const notifier = new LiveNotifier(actors, feed, { error: vi.fn() });

    notifier.wakeupQueued('agt_1', 'wk_1', 5_000);
    expect(actors.wakeupQueued).toHaveBeenCalledWith('agt_1', 'wk_1', 5_000);
    expect(items).toEqual([{ kind: 'wakeup', wakeup_id: 'wk_1', agent_id: 'agt_1', status: 'queued' }]);
  });

  it('logs an agent actor update that fails after commit, naming the agent', async () => {
    const error = new Error('actor gone');
    const actors = { wakeupQueued: vi.fn(), wakeupWithdrawn: vi.fn(), agentChanged: vi.fn(async () => { throw error; }) };
    const log = { error: vi.fn() };
    new LiveNotifier(actors, createLiveFeed(), log).agentChanged('agt_1');
    await vi.waitFor(() => expect(log.error).toHaveBeenCalledWith({ err: error, agent_id: 'agt_1' }, 'agent actor update failed'));
  });
});

describe('AnnouncingLauncher', () => {
  it('shows a run as running while its executor runs, then as ended', async () => {
    const feed = createLiveFeed();
    const items = feedItems(feed);
    let finish!: (result: LaunchResult) => void;
    const executors = { launch: vi.fn(() => new Promise<LaunchResult>((resolve) => { finish = resolve; })) };
    const request = { runId: 'run_1', agentId: 'agt_1' } as LaunchRequest;

    const launched = new AnnouncingLauncher(executors, feed).launch({ kind: 'function', name: 'noop' }, request);
    expect(items).toEqual([{ kind: 'run', run_id: 'run_1', agent_id: 'agt_1', status: 'running' }]);
    finish({ exitCode: 0 } as unknown as LaunchResult);
    await launched;
    expect(items.map((item) => (item as { status: string }).status)).toEqual(['running', 'ended']);
  });
});
