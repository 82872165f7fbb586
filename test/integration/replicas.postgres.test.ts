/**
 * Several replicas on one PostgreSQL database (API.md, "Several replicas on PostgreSQL"), in this
 * process: each replica is a scheduler with its own real HTTP server and its own injected clock, so
 * lease time moves by hand. A replica that "dies" is one whose clock (and so its heartbeat) stops
 * while the others' move on; its sessions keep running in this process, which is what a replica cut
 * off from the database looks like, and the fence must hold against it.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { rendezvousOwner } from '../../src/actors/replicas.js';
import { loadConfig } from '../../src/config.js';
import type { AgentFunction } from '../../src/executors/types.js';
import { createScheduler } from '../../src/scheduler.js';
import { FAST_ENV, waitFor } from '../helpers/harness.js';
import { advance, beat, createAgent, holderAndOther, holderOf, replicasPerTest, seedWorkspace, untilQuiet, type InProcessReplica } from '../helpers/replicas.js';
import { wakeupRow } from '../store/rows.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const LEASE_SEC = 15;
const LEASE_MS = LEASE_SEC * 1000;

type Replica = InProcessReplica;

const cluster = replicasPerTest();

function startReplica(id: string, functions = new Map<string, AgentFunction>(), at = T0): Promise<Replica> {
  return cluster.start(id, { functions, at, env: { OFFICE_LEASE_SEC: String(LEASE_SEC) } });
}

const quick: AgentFunction = () => ({ ok: true });

describe('replicas on one PostgreSQL', () => {
  it('agents spread over the live replicas by rendezvous hashing; GET /replicas lists each with the agents it holds, and an agent says which replica runs its actor', async () => {
    const functions = new Map([['quick', quick]]);
    const r1 = await startReplica('r1', functions);
    const ws = await seedWorkspace(r1);
    const agents: string[] = [];
    for (let i = 0; i < 24; i++) agents.push(await createAgent(r1, ws, { name: `Worker ${i}` }));
    expect((await r1.api('GET', '/api/office/replicas')).body).toEqual([
      { id: 'r1', started_at: new Date(T0).toISOString(), heartbeat_at: new Date(T0).toISOString(), expires_at: new Date(T0 + LEASE_MS).toISOString(), agents_owned: 24 }]);

    const r2 = await startReplica('r2', functions);
    // r1 sees r2 join and hands over the agents r2 wins; r2 takes them at its next heartbeat.
    await beat(r1, LEASE_MS / 3);
    await beat(r2, LEASE_MS / 3);
    const expected = agents.map((agent) => rendezvousOwner(agent, ['r1', 'r2']));
    expect(await Promise.all(agents.map((agent) => holderOf(r2, agent)))).toEqual(expected);
    const onR2 = expected.filter((owner) => owner === 'r2').length;
    expect(onR2).toBeGreaterThan(0);
    expect(onR2).toBeLessThan(24);
    expect(r1.scheduler.supervisor.size).toBe(24 - onR2);
    expect(r2.scheduler.supervisor.size).toBe(onR2);

    const listed = (await r2.api('GET', '/api/office/replicas')).body;
    expect(listed.map((r: any) => [r.id, r.agents_owned])).toEqual([['r1', 24 - onR2], ['r2', onR2]]);
    expect(listed[1].heartbeat_at).toBe(new Date(T0 + LEASE_MS / 3).toISOString());
    // What the dashboard tells a late heartbeat by: the lease it renewed runs out a lease after it.
    expect(listed[1].expires_at).toBe(new Date(T0 + LEASE_MS / 3 + LEASE_MS).toISOString());

    // Either replica answers for any agent, naming the replica that runs its actor.
    const onTheOther = agents[expected.indexOf('r2')]!;
    expect((await r1.api('GET', `/api/office/agents/${onTheOther}`)).body.actor).toMatchObject({ replica: 'r2', state: 'active.idle', queued: 0, running: 0 });
    const listedAgents = (await r1.api('GET', `/api/office/agents?workspace_id=${ws}`)).body;
    expect(listedAgents.map((a: any) => [a.id, a.actor?.replica])).toEqual(agents.map((agent, i) => [agent, expected[i]]));

    // A wakeup sent to the replica that holds the agent runs there.
    const woke = await r2.api('POST', `/api/office/agents/${onTheOther}/wake`, { reason: 'hello' });
    expect(woke.status).toBeLessThan(300);
    await waitFor(async () => (await r2.api('GET', `/api/office/wakeups/${woke.body.wakeup.id}`)).body.status === 'finished', 'the wakeup to finish on r2');
  });

  it('a replica that stops heartbeating loses its agents to a survivor after the lease: its started run ends interrupted and is retried there, its never-started claim runs again, and its late result is kept but never recorded, though its spend counts once', async () => {
    let releaseFirst!: () => void;
    const firstSessionEnds = new Promise<void>((resolve) => { releaseFirst = resolve; });
    let slowCalls = 0;
    const slow: AgentFunction = async () => {
      const call = ++slowCalls;
      if (call === 1) await firstSessionEnds;
      return { ok: true, attempt: call, cost_usd: 2.5 };
    };
    const functions = new Map<string, AgentFunction>([['quick', quick], ['slow', slow]]);
    const dead = await startReplica('r-dead', functions);
    const ws = await seedWorkspace(dead);
    const busy = await createAgent(dead, ws, { name: 'Busy', executor: { kind: 'function', name: 'slow' } });
    const claimedOnly = await createAgent(dead, ws, { name: 'Claimed' });

    const woke = await dead.api('POST', `/api/office/agents/${busy}/wake`, { reason: 'long job' });
    const busyWakeup = woke.body.wakeup.id;
    const [firstRun] = await waitFor(async () => {
      const runs = (await dead.api('GET', `/api/office/runs?wakeup_id=${busyWakeup}`)).body;
      return runs.length === 1 && runs[0].status === 'running' ? runs : null;
    }, 'the first session to start on the dying replica');
    // The dying replica claimed a wakeup for the other agent and never launched it.
    const neverStarted = wakeupRow({ id: claimedOnly, workspace_id: ws }, T0, { status: 'claimed', claimed_at: T0 });
    await dead.scheduler.store.transaction((tx) => tx.wakeups.insert(neverStarted));

    const survivor = await startReplica('r-survivor', functions);
    expect(survivor.scheduler.supervisor.size).toBe(0);
    // The dying replica's clock stops here: no heartbeat from it any more.
    await beat(survivor, LEASE_MS / 3);
    expect(await holderOf(survivor, busy)).toBe('r-dead');

    await beat(survivor, LEASE_MS);
    expect(await holderOf(survivor, busy)).toBe('r-survivor');
    expect(await holderOf(survivor, claimedOnly)).toBe('r-survivor');
    expect((await survivor.scheduler.store.read((tx) => tx.leases.leaseOf(busy)))!.epoch).toBe(2);
    expect(survivor.scheduler.supervisor.size).toBe(2);
    expect((await survivor.api('GET', '/api/office/replicas')).body.map((r: any) => r.id)).toEqual(['r-survivor']);

    // Started and lost: interrupted, through failure handling (a retry), and run again by the survivor.
    expect((await survivor.api('GET', `/api/office/runs/${firstRun.id}`)).body).toMatchObject({ status: 'interrupted' });
    expect((await survivor.api('GET', `/api/office/wakeups/${busyWakeup}`)).body).toMatchObject({ status: 'scheduled_retry', retry_count: 1 });
    // Never started: queued again and dispatched by the survivor, once.
    await waitFor(async () => (await survivor.api('GET', `/api/office/wakeups/${neverStarted.id}`)).body.status === 'finished', 'the never-started claim to run again');
    expect((await survivor.api('GET', `/api/office/runs?wakeup_id=${neverStarted.id}`)).body.map((r: any) => r.status)).toEqual(['succeeded']);

    survivor.clock.increment(1_000);
    await waitFor(async () => (await survivor.api('GET', `/api/office/wakeups/${busyWakeup}`)).body.status === 'finished', 'the retry to succeed on the survivor');

    // The dying replica's session ends now: its finish is fenced out and kept for inspection only.
    releaseFirst();
    await waitFor(async () => (await survivor.api('GET', `/api/office/runs/${firstRun.id}`)).body.late_result_json, 'the late result to be kept');
    const runs = (await survivor.api('GET', `/api/office/runs?wakeup_id=${busyWakeup}`)).body;
    expect(runs.map((r: any) => r.status).sort()).toEqual(['interrupted', 'succeeded']);
    expect(runs.find((r: any) => r.id === firstRun.id)).toMatchObject({
      status: 'interrupted', late_result_json: { status: 'succeeded', owner_id: 'r-dead', epoch: 1, result_json: { ok: true, attempt: 1 } },
    });
    expect((await survivor.api('GET', `/api/office/wakeups/${busyWakeup}`)).body).toMatchObject({ status: 'finished' });
    expect(slowCalls).toBe(2);
    // Spend counts however a run ends: the fenced-out session's $2.50 is its run's cost, counted once, beside the retry's.
    expect(runs.find((r: any) => r.id === firstRun.id).cost_usd).toBe(2.5);
    expect(await survivor.scheduler.store.read((tx) => tx.runs.costSince(busy, 0))).toBe(5);
  });

  it('a replica cut off past its lease that comes back stops the actors and sessions of the agents it lost, and its interrupted session changes nothing the new owner recorded', async () => {
    let sessions = 0;
    const hang: AgentFunction = () => {
      sessions++;
      return new Promise(() => undefined);
    };
    const functions = new Map<string, AgentFunction>([['quick', quick], ['hang', hang]]);
    const cutOff = await startReplica('r-cut-off', functions);
    const ws = await seedWorkspace(cutOff);
    const agent = await createAgent(cutOff, ws, { executor: { kind: 'function', name: 'hang' } });
    const woke = await cutOff.api('POST', `/api/office/agents/${agent}/wake`, { reason: 'never ends' });
    const wakeupId = woke.body.wakeup.id;
    const [run] = await waitFor(async () => {
      const runs = (await cutOff.api('GET', `/api/office/runs?wakeup_id=${wakeupId}`)).body;
      return runs.length === 1 && runs[0].status === 'running' ? runs : null;
    }, 'the session to start');
    expect(cutOff.scheduler.supervisor.view(agent)).toMatchObject({ running: 1 });

    const other = await startReplica('r-other', functions);
    await advance([other], LEASE_MS + 1);
    expect(await holderOf(other, agent)).toBe('r-other');
    expect((await other.api('GET', `/api/office/runs/${run.id}`)).body.status).toBe('interrupted');
    // The retry (after its 200 ms backoff) hangs on the new owner too; what matters here is the old one.
    other.clock.increment(1_000);
    await waitFor(() => sessions === 2, 'the retry to start on the new owner');

    // Back in touch: its first heartbeat finds the lease gone.
    cutOff.clock.set(other.clock.now());
    await beat(cutOff);
    expect(cutOff.scheduler.supervisor.size).toBe(0);
    expect(cutOff.scheduler.supervisor.view(agent)).toBeNull();
    await waitFor(async () => (await other.api('GET', `/api/office/runs/${run.id}`)).body.late_result_json, 'the stopped session to report late');
    expect((await other.api('GET', `/api/office/runs/${run.id}`)).body).toMatchObject({
      status: 'interrupted', late_result_json: { status: 'interrupted', owner_id: 'r-cut-off', epoch: 1 },
    });
    const runs = (await other.api('GET', `/api/office/runs?wakeup_id=${wakeupId}`)).body;
    expect(runs.map((r: any) => r.status).sort()).toEqual(['interrupted', 'running']);
    expect(sessions).toBe(2);
  });

  it('a claim that commits while its agent is handed over launches no session: the new owner settles the run and runs the wakeup once', async () => {
    let sessions = 0;
    const counted: AgentFunction = () => {
      sessions++;
      return { ok: true };
    };
    const functions = new Map<string, AgentFunction>([['quick', quick], ['counted', counted]]);
    const first = await startReplica('r-first', functions);
    const ws = await seedWorkspace(first);
    const agent = await createAgent(first, ws, { executor: { kind: 'function', name: 'counted' } });
    const second = await startReplica('r-second', functions);

    // The hand-over lands right after the claim's transaction commits, before its session launches.
    const store = first.scheduler.store;
    const transaction = store.transaction.bind(store);
    let handedOver: Promise<void> | null = null;
    store.transaction = (async (work: Parameters<typeof transaction>[0]) => {
      const value = await transaction(work);
      if (!handedOver && (value as { kind?: string } | undefined)?.kind === 'launch') {
        handedOver = first.scheduler.replicas.handOverIdle();
        await handedOver;
      }
      return value;
    }) as typeof store.transaction;
    const woke = await first.api('POST', `/api/office/agents/${agent}/wake`, { reason: 'claimed as it moves' });
    const wakeupId = woke.body.wakeup.id;
    await waitFor(() => handedOver !== null, 'the claim to commit and the agent to be handed over');
    await handedOver;

    await beat(second);
    expect(await holderOf(second, agent)).toBe('r-second');
    second.clock.increment(1_000);
    await waitFor(async () => (await second.api('GET', `/api/office/wakeups/${wakeupId}`)).body.status === 'finished', 'the wakeup to run on the new owner');
    const runs = (await second.api('GET', `/api/office/runs?wakeup_id=${wakeupId}`)).body;
    expect(runs.map((r: any) => r.status).sort()).toEqual(['interrupted', 'succeeded']);
    expect(sessions).toBe(1);
  });

  it('a replica that cannot renew its leases lets its agents go by itself before they expire, so before another replica may take them', async () => {
    const r1 = await startReplica('r1', new Map([['quick', quick]]));
    const ws = await seedWorkspace(r1);
    await createAgent(r1, ws);
    await createAgent(r1, ws);
    await waitFor(() => r1.scheduler.supervisor.size === 2, 'both actors to start');
    const store = r1.scheduler.store;
    store.autocommit = async () => { throw new Error('connection refused'); };
    await advance([r1], LEASE_MS / 3);
    expect(r1.scheduler.supervisor.size).toBe(2);
    // The next heartbeat would come only after the leases expire.
    await advance([r1], LEASE_MS / 3);
    expect(r1.scheduler.supervisor.size).toBe(0);
    expect(r1.scheduler.replicas.agentsOwned).toBe(0);
    const leases = await store.read((tx) => tx.leases.held('r1'));
    expect(leases.every((lease) => lease.expires_at! > r1.clock.now())).toBe(true);
  });

  it('an agent created while a heartbeat runs is kept by its replica: a lease the heartbeat did not see is not a lost one', async () => {
    const r1 = await startReplica('r1', new Map([['quick', quick]]));
    const ws = await seedWorkspace(r1);
    const store = r1.scheduler.store;
    const heartbeat = store.autocommit!.bind(store);
    let created: string | null = null;
    store.autocommit = (async (work: Parameters<typeof heartbeat>[0]) => {
      const answer = await heartbeat(work);
      created ??= await createAgent(r1, ws);
      return answer;
    }) as typeof heartbeat;
    await advance([r1], LEASE_MS / 3);
    expect(created).not.toBeNull();
    expect(r1.scheduler.replicas.agentsOwned).toBe(1);
    await waitFor(() => r1.scheduler.supervisor.view(created!) !== null, 'the new agent\'s actor to run');
    await advance([r1], LEASE_MS / 3);
    expect(await holderOf(r1, created!)).toBe('r1');
    expect(r1.scheduler.supervisor.size).toBe(1);
  });

  it('an idle replica runs one statement per heartbeat, which renews every lease it holds; /metrics counts its agents and renewals', async () => {
    const r1 = await startReplica('r1', new Map([['quick', quick]]));
    const ws = await seedWorkspace(r1);
    for (let i = 0; i < 3; i++) await createAgent(r1, ws);
    await advance([r1], LEASE_MS / 3);
    // What creating the agents set off after its responses (event delivery, outbox acknowledgements,
    // snapshots) ends before counting: with the clock still, no heartbeat can come in between.
    await untilQuiet(r1);
    const before = r1.scheduler.store.statementsExecuted();
    await advance([r1], LEASE_MS);
    expect(r1.scheduler.store.statementsExecuted() - before).toBe(3);
    const leases = await r1.scheduler.store.read((tx) => tx.leases.held('r1'));
    expect(leases.map((lease) => lease.expires_at)).toEqual([1, 2, 3].map(() => r1.clock.now() + LEASE_MS));
    const metrics = await fetch(`${r1.url}/metrics`).then((response) => response.text());
    expect(metrics).toMatch(/^office_agents_owned 3$/m);
    // One at join, then one per third of a lease.
    expect(metrics).toMatch(/^office_lease_renewals_total 5$/m);
  });

  it('a replica renews the leases it took while it is still booting: a boot that outlasts a lease keeps its agents', async () => {
    const r1 = await startReplica('r1', new Map([['quick', quick]]));
    const ws = await seedWorkspace(r1);
    await createAgent(r1, ws);
    await cluster.stop(r1);
    const clock = new SimulatedClock();
    clock.set(T0);
    const config = loadConfig({ ...FAST_ENV, OFFICE_DATABASE_URL: cluster.databaseUrl, OFFICE_REPLICA_ID: 'r2', OFFICE_LEASE_SEC: String(LEASE_SEC) });
    const booting = await createScheduler({ config, clock, functions: new Map([['quick', quick]]) });
    try {
      await booting.replicas.join();
      expect(booting.replicas.agentsOwned).toBe(1);
      // A boot that takes longer than a lease: the heartbeat timer keeps the taken lease alive.
      for (let step = 0; step < 4; step++) {
        clock.increment(LEASE_MS / 3);
        await waitFor(() => booting.replicas.leaseRenewals === step + 2, 'a heartbeat during boot');
      }
      const lease = await booting.store.read((tx) => tx.leases.held('r2'));
      expect(lease.map((held) => held.expires_at)).toEqual([clock.now() + LEASE_MS]);
    } finally {
      await booting.stop();
    }
  });

  it('a replica that shuts down hands its agents over at once: the survivor takes them at its next heartbeat, with no lease to wait out', async () => {
    const functions = new Map([['quick', quick]]);
    const leaving = await startReplica('r-leaving', functions);
    const ws = await seedWorkspace(leaving);
    const agents = [await createAgent(leaving, ws), await createAgent(leaving, ws)];
    const survivor = await startReplica('r-survivor', functions);

    await cluster.stop(leaving);
    // No time passes: the released leases are free at once.
    await beat(survivor);
    for (const agent of agents) expect(await holderOf(survivor, agent)).toBe('r-survivor');
    expect(survivor.scheduler.supervisor.size).toBe(2);
    expect((await survivor.api('GET', '/api/office/replicas')).body).toEqual([
      { id: 'r-survivor', started_at: new Date(T0).toISOString(), heartbeat_at: new Date(T0).toISOString(), expires_at: new Date(T0 + LEASE_MS).toISOString(), agents_owned: 2 }]);
  });

  it('a lease this replica kept renewing without running the agent (its release failed) is released, and the agent is taken again and runs its wakeup', async () => {
    const r1 = await startReplica('r1', new Map([['quick', quick]]));
    const ws = await seedWorkspace(r1);
    const agent = await createAgent(r1, ws);
    await beat(r1);
    expect(await holderOf(r1, agent)).toBe('r1');
    // What a release whose transaction failed leaves: the agent let go here, its lease still r1's.
    const membership = r1.scheduler.replicas as unknown as { deps: { ownership: { forget(ids: string[]): void }; letGo(ids: Set<string>): void } };
    membership.deps.ownership.forget([agent]);
    membership.deps.letGo(new Set([agent]));
    const woke = await r1.api('POST', `/api/office/agents/${agent}/wake`, { reason: 'ping' });
    expect(woke.status).toBe(202);

    for (let i = 0; i < 3; i++) await beat(r1, LEASE_MS / 3);
    await waitFor(async () => (await r1.api('GET', `/api/office/wakeups/${woke.body.wakeup.id}`)).body.status === 'finished', 'the wakeup to run once the agent is taken again');
    expect(await holderOf(r1, agent)).toBe('r1');
  });

  it("a routine created and paused through a replica that does not hold its assignee starts and stops its trigger actor on the replica that does", async () => {
    const r1 = await startReplica('r1', new Map([['quick', quick]]));
    const r2 = await startReplica('r2', new Map([['quick', quick]]));
    const ws = await seedWorkspace(r1);
    const agent = await createAgent(r1, ws);
    const { owner, elsewhere: other } = await holderAndOther(r1, r2, agent);

    const routine = await other.api('POST', '/api/office/routines', {
      workspace_id: ws, name: 'Every minute', assignee_agent_instance_id: agent, concurrency_policy: 'always_enqueue',
    });
    expect(routine.status).toBe(201);
    expect((await other.api('POST', `/api/office/routines/${routine.body.id}/triggers`, { kind: 'schedule', cron_expression: '* * * * *' })).status).toBe(201);
    await waitFor(() => owner.scheduler.triggers.size === 1, 'the trigger actor to start on the replica holding the assignee');
    expect(other.scheduler.triggers.size).toBe(0);
    await advance([r1, r2], 60_000);
    await waitFor(async () => (await owner.scheduler.store.query((tx) => tx.routines.runsOf(routine.body.id, 10))).length === 1, 'the first fire');

    expect((await other.api('PATCH', `/api/office/routines/${routine.body.id}`, { status: 'paused' })).status).toBe(200);
    await waitFor(() => owner.scheduler.triggers.size === 0, 'the trigger actor to stop on the replica holding the assignee');
  });

  it('a scheduled retry cancelled through another replica (the task was reassigned) leaves the inbox of the actor on the replica holding its agent at once', async () => {
    const functions = new Map<string, AgentFunction>([['quick', quick], ['boom', () => { throw new Error('boom'); }]]);
    const r1 = await startReplica('r1', functions);
    const r2 = await startReplica('r2', functions);
    const ws = await seedWorkspace(r1);
    const failing = await createAgent(r1, ws, { executor: { kind: 'function', name: 'boom' } });
    const other = await createAgent(r1, ws);
    const { owner, elsewhere } = await holderAndOther(r1, r2, failing);

    const task = await elsewhere.api('POST', '/api/office/tasks', { workspace_id: ws, title: 'Fix it', assignee_agent_instance_id: failing });
    expect(task.body).toMatchObject({ title: 'Fix it' });
    // The clocks stand still: the retry stays scheduled, and the actor holds it in its inbox.
    const retry = await waitFor(async () => (await owner.api('GET', `/api/office/wakeups?agent_id=${failing}&status=scheduled_retry`)).body[0], 'the failed run to schedule its retry');
    await waitFor(async () => (await owner.api('GET', `/api/office/agents/${failing}`)).body.actor.queued === 1, 'the retry in the actor inbox');

    expect((await elsewhere.api('PATCH', `/api/office/tasks/${task.body.id}`, { assignee_agent_instance_id: other })).status).toBe(200);
    expect((await owner.api('GET', `/api/office/wakeups/${retry.id}`)).body).toMatchObject({ status: 'cancelled', cancel_reason: 'retry_stale_assignee' });
    await waitFor(async () => (await owner.api('GET', `/api/office/agents/${failing}`)).body.actor.queued === 0, 'the withdrawn retry to leave the actor inbox on its replica');
  });

  it('an agent resumed through a replica that does not hold it has its open tasks dispatched at once, and run on the replica that does', async () => {
    const r1 = await startReplica('r1', new Map([['quick', quick]]));
    const r2 = await startReplica('r2', new Map([['quick', quick]]));
    const ws = await seedWorkspace(r1);
    const agent = await createAgent(r1, ws);
    const { owner, elsewhere } = await holderAndOther(r1, r2, agent);

    expect((await elsewhere.api('PATCH', `/api/office/agents/${agent}`, { status: 'paused' })).status).toBe(200);
    const task = await elsewhere.api('POST', '/api/office/tasks', { workspace_id: ws, title: 'While paused', assignee_agent_instance_id: agent });
    // Pinned: claimed for a paused agent, the assignment ends finished with no run, and is not replayed.
    await waitFor(async () => (await owner.api('GET', `/api/office/wakeups?agent_id=${agent}&status=finished`)).body.length === 1, 'the paused claim to end');
    expect((await owner.api('GET', `/api/office/runs?task_id=${task.body.id}`)).body).toEqual([]);

    expect((await elsewhere.api('PATCH', `/api/office/agents/${agent}`, { status: 'idle' })).status).toBe(200);
    const runs = await waitFor(async () => {
      const listed = (await owner.api('GET', `/api/office/runs?task_id=${task.body.id}`)).body;
      return listed.length === 1 && listed[0].status === 'succeeded' ? listed : null;
    }, 'the resumed agent to run its open task');
    const wakeup = (await owner.api('GET', `/api/office/wakeups/${runs[0].wakeup_id}`)).body;
    expect(wakeup.reason).toMatch(/recover/i);
  });

  it("a schedule trigger's actor runs only on the replica holding its routine's assignee, moves with it, and each cron tick fires once across replicas", async () => {
    const functions = new Map([['quick', quick]]);
    const r1 = await startReplica('r1', functions);
    const r2 = await startReplica('r2', functions);
    const r3 = await startReplica('r3', functions);
    const all = [r1, r2, r3];
    const ws = await seedWorkspace(r1);
    const agent = await createAgent(r1, ws);
    // Settle the agent on its rendezvous owner.
    for (const r of all) await beat(r, LEASE_MS / 3);
    for (const r of all) await beat(r);
    const owner = all.find((r) => r.id === rendezvousOwner(agent, ['r1', 'r2', 'r3']))!;
    expect(await holderOf(r1, agent)).toBe(owner.id);

    const routine = await owner.api('POST', '/api/office/routines', {
      workspace_id: ws, name: 'Every minute', assignee_agent_instance_id: agent, concurrency_policy: 'always_enqueue',
    });
    expect(routine.status).toBe(201);
    const trigger = await owner.api('POST', `/api/office/routines/${routine.body.id}/triggers`, { kind: 'schedule', cron_expression: '* * * * *' });
    expect(trigger.status).toBe(201);
    await waitFor(() => owner.scheduler.triggers.size === 1, 'the trigger actor to start on the owner');
    expect(all.map((r) => r.scheduler.triggers.size)).toEqual(all.map((r) => (r === owner ? 1 : 0)));
    const runsOf = async () => (await owner.scheduler.store.query((tx) => tx.routines.runsOf(routine.body.id, 100)));

    for (let minute = 1; minute <= 2; minute++) {
      await advance(all, 60_000);
      await waitFor(async () => (await runsOf()).length === minute, `the fire of minute ${minute}`);
    }

    // The owner dies; a survivor takes the assignee and its trigger, and the next ticks fire once each.
    const survivors = all.filter((r) => r !== owner);
    await advance(survivors, LEASE_MS + 1);
    for (const r of survivors) await beat(r);
    const heir = survivors.find((r) => r.id === rendezvousOwner(agent, survivors.map((s) => s.id)))!;
    expect(await holderOf(heir, agent)).toBe(heir.id);
    expect(survivors.map((r) => r.scheduler.triggers.size)).toEqual(survivors.map((r) => (r === heir ? 1 : 0)));
    await advance(survivors, 60_000);
    await waitFor(async () => (await runsOf()).length >= 3, 'a fire by the heir');

    // The old owner comes back (a partition heals): its trigger actor may fire the ticks it missed
    // before its heartbeat tells it the agent is gone; the compare-and-set lets none fire twice.
    owner.clock.set(heir.clock.now());
    await beat(owner);
    expect(owner.scheduler.triggers.size).toBe(0);
    expect(owner.scheduler.supervisor.size).toBe(0);
    await advance(all, 60_000);
    await waitFor(async () => (await runsOf()).length >= 4, 'the next fire');
    const ticks = (await runsOf()).map((run) => run.scheduled_for);
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(ticks.every((tick) => tick !== null && tick % 60_000 === 0)).toBe(true);
  });
});
