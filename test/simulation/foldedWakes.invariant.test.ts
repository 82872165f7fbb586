/**
 * The simulation's invariant "no folded wakeup is lost", on the scripted scenario that used to break
 * it: a user wake merged into a routine wakeup waiting to retry, whose retry is then idle-skipped.
 * Real store, services, pipeline and actors on XState's SimulatedClock; in-process agents.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { loadConfig } from '../../src/config.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { sqliteFaults } from '../helpers/storage.js';
import { checkInvariants } from './invariants.js';

/** Lets every pending store unit, event delivery and actor step run out. */
async function settle(scheduler: Scheduler): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  await scheduler.events.idle();
}

describe('simulation invariant: folded wakeups', () => {
  it('a user wake folded into a routine retry that is then idle-skipped is not lost: it runs on its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'office-folded-'));
    const clock = new SimulatedClock();
    clock.set(Date.UTC(2025, 2, 3, 9));
    let calls = 0;
    const scheduler = await createScheduler({
      config: loadConfig({
        OFFICE_DB: join(dir, 'office.db'), OFFICE_LOG_LEVEL: 'silent', OFFICE_RECOVERY_SWEEP_SEC: '0',
        OFFICE_COALESCE_WINDOW_MS: '0', OFFICE_BACKOFF: '1s,1s,1s,1s', OFFICE_BACKOFF_JITTER: '0',
      }),
      clock,
      // The first session fails (so the routine wakeup waits to retry); the others succeed.
      functions: new Map([['agent', async () => {
        calls++;
        if (calls === 1) throw new Error('connection reset by peer');
        return { summary: 'done' };
      }]]),
    });
    try {
      await scheduler.start({ listen: false });
      const { org, routines } = scheduler.services;
      const ws = await org.createWorkspace({ name: 'w' });
      const agent = await org.createAgent({
        workspace_id: ws.id, name: 'a', role: 'worker', executor: { kind: 'function', name: 'agent' }, cooldown_sec: 0, skip_idle_wakeups: false,
      });
      const { routine } = await routines.catalogue.create({ workspace_id: ws.id, name: 'digest', assignee_agent_instance_id: agent.id, triggers: [{ kind: 'manual' }] });
      await routines.firing.fireManually(routine.id, {});
      await settle(scheduler);
      const [tick] = await scheduler.store.query((tx) => tx.wakeups.list({ agent_id: agent.id, source: 'routine' }));
      expect(tick!.status).toBe('scheduled_retry');

      const woken = await org.wake(agent.id, { reason: 'look now' });
      expect(woken.kind).toBe('merged_into_run');
      await org.updateAgent(agent.id, { skip_idle_wakeups: true });
      clock.increment(1_000);
      await settle(scheduler);
      clock.increment(1);
      await settle(scheduler);

      const db = sqliteFaults(scheduler.store);
      const report = checkInvariants(db);
      expect(report.violations.filter((v) => v.startsWith('folded wakeup lost'))).toEqual([]);
      expect(report.violations).toEqual([]);
      expect(calls).toBe(2);
    } finally {
      await scheduler.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
