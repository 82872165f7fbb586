/**
 * Found by the deterministic simulation and pinned here as a regression test. With the spec's bare
 * `task_assigned:<task_id>:<timestamp>` key, two assignment events of one task in the same
 * millisecond (created for A, reassigned to B) shared the key, so B's wakeup was dropped as a
 * duplicate of A's, which then ended cancelled (assignee changed): B was never woken. The key now
 * carries the event id too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createScheduler } from '../../src/scheduler.js';

describe('known issues', () => {
  it('a reassignment in the same millisecond as the assignment still wakes the new assignee', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'office-known-'));
    const clock = new SimulatedClock();
    clock.set(Date.UTC(2025, 2, 3, 9));
    const scheduler = await createScheduler({
      config: loadConfig({ OFFICE_DB: join(dir, 'office.db'), OFFICE_LOG_LEVEL: 'silent', OFFICE_RECOVERY_SWEEP_SEC: '0' }),
      clock, functions: new Map([['noop', async () => ({})]]),
    });
    try {
      await scheduler.start({ listen: false });
      const { org, tasks } = scheduler.services;
      const ws = await org.createWorkspace({ name: 'w' });
      const [a, b] = await Promise.all(['a', 'b'].map((name) => org.createAgent({
        workspace_id: ws.id, name, role: 'worker', executor: { kind: 'function', name: 'noop' }, cooldown_sec: 0,
      })));
      const task = await tasks.createTask({ workspace_id: ws.id, title: 't', assignee_agent_instance_id: a!.id });
      await tasks.updateTask(task.id, { assignee_agent_instance_id: b!.id });
      await scheduler.events.idle();
      const forB = await scheduler.store.query((tx) => tx.wakeups.list({ agent_id: b!.id, task_id: task.id }));
      expect(forB.filter((w) => w.source === 'task_assigned')).toHaveLength(1);
    } finally {
      await scheduler.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
