/**
 * With SQLite nothing about replicas changes behaviour (API.md, "Several replicas on PostgreSQL"):
 * the one process is the one replica, owns every agent under leases that never expire, and runs no
 * heartbeat, so an idle process still runs no SQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { seedAgent, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('replicas with SQLite', () => {
  it('the one process is the one live replica: it owns every agent under a lease that never expires, names itself on their actors, and runs no heartbeat while idle', async () => {
    const clock = new SimulatedClock();
    clock.set(Date.UTC(2026, 0, 5, 9, 0, 0));
    h = await startHarness({ OFFICE_LEASE_SEC: '1' }, undefined, clock);
    const { agentId } = await seedAgent(h);
    const [replica, ...others] = (await h.api('GET', '/api/office/replicas')).body;
    expect(others).toEqual([]);
    expect(replica).toMatchObject({ agents_owned: 1, started_at: new Date(clock.now()).toISOString(), expires_at: null });
    expect((await h.api('GET', `/api/office/agents/${agentId}`)).body.actor).toMatchObject({ replica: replica.id, state: 'active.idle' });
    expect(await h.scheduler.store.read((tx) => tx.leases.leaseOf(agentId))).toMatchObject({ owner_id: replica.id, expires_at: null });

    const before = h.scheduler.store.statementsExecuted();
    for (let i = 0; i < 10; i++) clock.increment(1_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.scheduler.store.statementsExecuted()).toBe(before);

    // A restart is a new boot: a new owner, the only replica listed, holding the agent at a higher epoch.
    await h.restart();
    const [after, ...rest] = (await h.api('GET', '/api/office/replicas')).body;
    expect(rest).toEqual([]);
    expect(after.id).not.toBe(replica.id);
    expect(await h.scheduler.store.read((tx) => tx.leases.leaseOf(agentId))).toMatchObject({ owner_id: after.id, epoch: 2, expires_at: null });
  });
});
