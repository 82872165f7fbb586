/**
 * Decision log lines leave only with a commit: a rolled-back unit of work must not leave log lines
 * for skips, cancels or coalesces that never happened. Real SQLite store, a pino logger whose lines
 * are captured.
 */
import { describe, expect, it } from 'vitest';
import type { ActivityCode } from '../../src/domain/activityCodes.js';
import type { Store } from '../../src/persistence/store.js';
import { recordDecision } from '../../src/services/activity.js';
import { capturingLogger } from '../helpers/logs.js';
import { disposedAfterEach, sqliteStoreFactory } from '../store/factory.js';

const freshStore = disposedAfterEach(sqliteStoreFactory);
const openStore = async (): Promise<Store> => (await freshStore({ now: () => 1_000 })).store;

/** Lets pino's stream write what it was given. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

const decision = (code: ActivityCode) => ({ workspace_id: 'ws_1', code, agent_id: 'agt_1', message: `${code} happened` });

describe('decision log lines', () => {
  it('a rolled-back transaction emits no decision log line, and its activity entry is gone with it', async () => {
    const store = await openStore();
    const { log, lines } = capturingLogger();
    await expect(store.transaction(async (tx) => {
      await recordDecision(tx, log, decision('wakeup_idle_skipped'), 1_000);
      throw new Error('the unit fails after its decision');
    })).rejects.toThrow('the unit fails after its decision');
    await flush();
    expect(lines.filter((line) => line.code === 'wakeup_idle_skipped')).toEqual([]);
    expect(await store.query((tx) => tx.activity.list({ workspace_id: 'ws_1' }))).toEqual([]);
  });

  it('a committed transaction logs its decision once, after the commit', async () => {
    const store = await openStore();
    const { log, lines } = capturingLogger();
    let loggedBeforeCommit = -1;
    await store.transaction(async (tx) => {
      await recordDecision(tx, log, decision('wakeup_coalesced'), 1_000, 'warn');
      await flush();
      loggedBeforeCommit = lines.length;
    });
    await flush();
    expect(loggedBeforeCommit).toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ code: 'wakeup_coalesced', agent_id: 'agt_1', msg: 'wakeup_coalesced happened', level: 40 });
  });

  it('every decision log line carries unattended and on_behalf_of, as its entry does: the routine owner for unattended work, false and null for attended', async () => {
    const store = await openStore();
    const { log, lines } = capturingLogger();
    await store.transaction(async (tx) => {
      await recordDecision(tx, log, { ...decision('wakeup_retry_scheduled'), unattended: true, on_behalf_of: 'tok_alice' }, 1_000);
      await recordDecision(tx, log, decision('wakeup_idle_skipped'), 1_000);
    });
    await flush();
    expect(lines.map((line) => [line.code, line.unattended, line.on_behalf_of])).toEqual([
      ['wakeup_retry_scheduled', true, 'tok_alice'],
      ['wakeup_idle_skipped', false, null],
    ]);
    const entries = await store.query((tx) => tx.activity.list({ workspace_id: 'ws_1' }));
    expect(entries.map((entry) => [entry.code, entry.unattended, entry.on_behalf_of])).toEqual([
      ['wakeup_idle_skipped', false, null],
      ['wakeup_retry_scheduled', true, 'tok_alice'],
    ]);
  });
});
