/**
 * A replica that joins while its peers are running (README, "Several replicas: leases and
 * failover"): the peers hand over the agents it wins as soon as their heartbeats see it, and it takes
 * them as soon as it can run their actors, not once its whole boot (the HTTP server, the boot
 * recovery sweep, result deliveries) has finished. Replicas in this process on one database, each
 * with its own injected clock; the booting one is held at points of its boot by the test.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { rendezvousOwner } from '../../src/actors/replicas.js';
import { loadConfig } from '../../src/config.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { FAST_ENV, waitFor } from '../helpers/harness.js';
import { beat, createAgent, replicasPerTest, seedWorkspace } from '../helpers/replicas.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const AGENTS = 12;

const cluster = replicasPerTest();
const functions = () => new Map([['quick', () => ({ ok: true })]]);

/** A gate a step of the boot waits at: `reached` once it got there, `open()` to let it through. */
function gate() {
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => { arrived = resolve; });
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { reached, open, wait: async () => { arrived(); await opened; } };
}

/** `step` of the scheduler waits at `at` before it runs. */
function holdBefore<T extends object, K extends keyof T>(target: T, step: K, at: ReturnType<typeof gate>): void {
  const original = (target[step] as (...args: unknown[]) => Promise<unknown>).bind(target);
  target[step] = (async (...args: unknown[]) => {
    await at.wait();
    return original(...args);
  }) as T[K];
}

/** r1 running AGENTS agents, one of those r2 wins with an hourly routine; r2 created, not started, on its own clock. */
async function peerWithAgentsAndAJoiner() {
  const r1 = await cluster.start('r1', { at: T0, functions: functions() });
  const ws = await seedWorkspace(r1);
  const agents: string[] = [];
  for (let i = 0; i < AGENTS; i++) agents.push(await createAgent(r1, ws, { name: `Worker ${i}` }));
  const theirs = agents.filter((agent) => rendezvousOwner(agent, ['r1', 'r2']) === 'r2');
  expect(theirs.length).toBeGreaterThan(0);
  const routine = await r1.api('POST', '/api/office/routines', {
    workspace_id: ws, name: 'Hourly', assignee_agent_instance_id: theirs[0], triggers: [{ kind: 'schedule', cron_expression: '0 * * * *' }],
  });
  expect(routine.status).toBe(201);
  await waitFor(() => r1.scheduler.triggers.size === 1, 'the trigger actor on r1, which holds its assignee');
  const clock = new SimulatedClock();
  clock.set(T0);
  const joiner: Scheduler = await createScheduler({
    config: loadConfig({ ...FAST_ENV, OFFICE_DATABASE_URL: cluster.databaseUrl, OFFICE_REPLICA_ID: 'r2' }), clock, functions: functions(),
  });
  return { r1, theirs, joiner };
}

/** Whether r2 holds exactly `theirs`, with their actors and the routine's trigger actor running. */
async function runsItsShare(joiner: Scheduler, theirs: string[]): Promise<void> {
  await waitFor(() => joiner.supervisor.size === theirs.length, 'r2 running the actors of the agents handed over to it');
  expect(joiner.replicas.agentsOwned).toBe(theirs.length);
  const leases = await joiner.store.read((tx) => Promise.all(theirs.map((agent) => tx.leases.leaseOf(agent))));
  expect(leases.map((lease) => lease?.owner_id)).toEqual(theirs.map(() => 'r2'));
  await waitFor(() => joiner.triggers.size === 1, "the routine's trigger actor beside its assignee on r2");
}

/** Lets every gate through and stops the joiner, whatever the test left. */
async function stopJoiner(joiner: Scheduler, started: Promise<unknown>, gates: ReturnType<typeof gate>[]): Promise<void> {
  for (const at of gates) at.open();
  await started.catch(() => undefined);
  await joiner.stop();
}

// No clock moves in these tests: a lease r1 releases is free at once on r2's clock, and r2 heartbeats only when a test runs its tick.
describe('a replica joining running peers', () => {
  it('takes the agents its peers handed over while it restored its own actors, with their actors and triggers, as soon as those are up and before its boot has finished', async () => {
    const { r1, theirs, joiner } = await peerWithAgentsAndAJoiner();
    const restoring = gate();
    const sweeping = gate();
    holdBefore(joiner.supervisor, 'boot', restoring);
    holdBefore(joiner.recovery, 'start', sweeping);
    const started = joiner.start();
    try {
      // r2 has joined and waits before restoring its actors: r1's heartbeat sees it and hands over.
      await restoring.reached;
      await beat(r1);
      expect(r1.scheduler.supervisor.size).toBe(AGENTS - theirs.length);
      expect(r1.scheduler.triggers.size).toBe(0);
      expect(joiner.supervisor.size).toBe(0);

      // Its actors up, r2 takes its share at once, with no heartbeat in between, while the rest of its boot still waits.
      restoring.open();
      await sweeping.reached;
      await runsItsShare(joiner, theirs);
      sweeping.open();
      await started;
    } finally {
      await stopJoiner(joiner, started, [restoring, sweeping]);
    }
  });

  it('takes the agents its peers hand over during the rest of its boot at its next heartbeat, before its boot has finished', async () => {
    const { r1, theirs, joiner } = await peerWithAgentsAndAJoiner();
    const sweeping = gate();
    holdBefore(joiner.recovery, 'start', sweeping);
    const started = joiner.start();
    try {
      await sweeping.reached;
      await beat(r1);
      expect(r1.scheduler.supervisor.size).toBe(AGENTS - theirs.length);
      await joiner.replicas.tick();
      await runsItsShare(joiner, theirs);
      sweeping.open();
      await started;
    } finally {
      await stopJoiner(joiner, started, [sweeping]);
    }
  });
});
