/**
 * Caps that compose, at the one place a wakeup becomes queued other than its enqueue: a request
 * folded into another wakeup goes back to the queue on its own when that wakeup ends without a run.
 * Unattended follow-on work then needs its own routine-run slot, and at a cap is refused and logged.
 * The WakeupService on a real SQLite store.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { WakeupService, type EnqueueRequest } from '../../src/services/wakeups.js';
import { WakeupTracing } from '../../src/telemetry/tracing.js';
import { disposedAfterEach, sqliteStoreFactory } from '../store/factory.js';
import { seedAgent, wakeupRow } from '../store/rows.js';
import { sqliteFaults } from '../helpers/storage.js';
import type { Store } from '../../src/persistence/store.js';

const freshStore = disposedAfterEach(sqliteStoreFactory);

const NOW = 1_000_000;
const UNATTENDED = { unattended: true, on_behalf_of: 'tok_alice' };

async function setUp() {
  const { store } = await freshStore({ now: () => NOW });
  const config = loadConfig({ OFFICE_COALESCE_WINDOW_MS: '5000', OFFICE_MAX_CONCURRENT_ROUTINE_RUNS: '100' });
  const queued: string[] = [];
  const wakeups = new WakeupService(config, pino({ level: 'silent' }), {
    wakeupQueued: (_agent, id) => queued.push(id), wakeupWithdrawn: () => undefined,
  }, { recordOutcome: async () => undefined }, new WakeupTracing('test'));
  const { agent, workspace } = await store.transaction((tx) => seedAgent(tx, NOW, { max_concurrent_routine_runs: 1 }));
  const self = (reason: string, provenance?: typeof UNATTENDED): EnqueueRequest =>
    ({ agent_id: agent.id, source: 'self', reason, payload: { reason }, ...(provenance ? { provenance } : {}) });
  // A person's wake, then an unattended run's, folded into it by the coalescing window.
  const { target, folded } = await store.transaction(async (tx) => {
    const first = await wakeups.enqueue(tx, self('a person asked'), NOW);
    const second = await wakeups.enqueue(tx, self('the night run asked', UNATTENDED), NOW);
    return { target: first.wakeup, folded: second };
  });
  expect(folded).toMatchObject({ kind: 'coalesced', wakeup: { coalesced_into_id: target.id, ...UNATTENDED } });
  return { store, wakeups, agent, workspace, target, foldedId: folded.wakeup.id, queued };
}

/** The target ends as a dispatch that found its agent paused ends it, in the caller's transaction. */
function endWithoutRun(store: Store, id: string) {
  sqliteFaults(store).run("UPDATE agent_wakeup_requests SET status = 'finished', finished_at = ?, skip_reason = 'agent_paused' WHERE id = ?", NOW, id);
}

describe('an unattended request folded into a wakeup that ends without a run', () => {
  it('goes back to the queue holding its own routine-run slot when the caps have room', async () => {
    const { store, wakeups, agent, target, foldedId, queued } = await setUp();
    await store.transaction(async (tx) => {
      endWithoutRun(store, target.id);
      await wakeups.requeueFolded(tx, { ...target, status: 'finished' }, NOW);
    });
    expect(await store.read((tx) => tx.wakeups.get(foldedId))).toMatchObject({ status: 'queued', ...UNATTENDED });
    expect(await store.read((tx) => tx.routines.countActiveRuns({ agent_id: agent.id }))).toBe(1);
    expect(queued).toContain(foldedId);
  });

  it('is refused at its agent\'s cap: stored skipped cap_reached with an unattended wakeup_cap_reached entry, and nobody is told to run it', async () => {
    const { store, wakeups, agent, workspace, target, foldedId, queued } = await setUp();
    // Another unattended wakeup of the agent holds its one slot.
    await store.transaction(async (tx) => {
      const holder = wakeupRow(agent, NOW, { workspace_id: workspace.id, ...UNATTENDED });
      await tx.wakeups.insert(holder);
      expect(await tx.routines.takeWakeupSlot(holder.id, agent.id, { deployment: 100, agent: 1 })).toBe(true);
    });
    await store.transaction(async (tx) => {
      endWithoutRun(store, target.id);
      await wakeups.requeueFolded(tx, { ...target, status: 'finished' }, NOW);
    });
    expect(await store.read((tx) => tx.wakeups.get(foldedId))).toMatchObject({ status: 'skipped', skip_reason: 'cap_reached', finished_at: NOW });
    expect(queued).not.toContain(foldedId);
    const [entry] = await store.query((tx) => tx.activity.list({ wakeup_id: foldedId }));
    expect(entry).toMatchObject({ code: 'wakeup_cap_reached', ...UNATTENDED, details: { reason: 'cap_reached', caps: { deployment: 100, agent: 1 } } });
    expect(await store.read((tx) => tx.routines.countActiveRuns({ agent_id: agent.id }))).toBe(1);
  });
});
