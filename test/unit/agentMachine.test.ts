import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor } from 'xstate';
import { agentMachine, describeAgentActor, restorableSnapshot, type AgentContext, type AgentSettings } from '../../src/machines/agent.js';
import { sleepUntil } from '../../src/machines/sleepUntil.js';

const T0 = Date.UTC(2026, 0, 15, 10, 0, 0);
const settings = (overrides: Partial<AgentSettings> = {}): AgentSettings => ({
  mode: 'active',
  maxConcurrent: 1,
  cooldownMs: 10_000,
  ...overrides,
});

function startAgent(options: { settings?: Partial<AgentSettings>; snapshot?: unknown; clock?: SimulatedClock } = {}) {
  const clock = options.clock ?? new SimulatedClock();
  if (!options.clock) clock.set(T0);
  const dispatched: string[] = [];
  const machine = agentMachine.provide({
    actions: { dispatch: (_, params) => dispatched.push(params.wakeupId) },
    actors: { sleepUntil: sleepUntil(clock) },
  });
  const actor = createActor(machine, {
    clock,
    input: { agentId: 'a1', settings: settings(options.settings), now: clock.now() },
    ...(options.snapshot ? { snapshot: restorableSnapshot(options.snapshot) as never } : {}),
  });
  actor.start();
  const queue = (wakeupId: string, availableAt = clock.now()) =>
    actor.send({ type: 'WAKEUP_QUEUED', entry: { wakeupId, availableAt }, at: clock.now() });
  const end = (wakeupId: string, ranSession = true, retryAt: number | null = null) =>
    actor.send({ type: 'DISPATCH_ENDED', wakeupId, ranSession, retryAt, at: clock.now() });
  const view = () => describeAgentActor(actor.getSnapshot());
  return { actor, clock, dispatched, queue, end, view };
}

describe('agent machine', () => {
  it('claims a wakeup at once when a slot is free', () => {
    const agent = startAgent();
    agent.queue('w1');
    expect(agent.dispatched).toEqual(['w1']);
    expect(agent.view()).toMatchObject({ state: 'active.working', running: 1, queued: 0 });
  });

  it('at capacity, a second wakeup stays queued until the running session ends, then waits out the cooldown', () => {
    const agent = startAgent();
    agent.queue('w1');
    agent.queue('w2');
    expect(agent.dispatched).toEqual(['w1']);
    expect(agent.view().state).toBe('active.atCapacity');

    agent.clock.increment(3_000);
    agent.end('w1');
    expect(agent.view()).toMatchObject({ state: 'active.coolingDown', queued: 1 });
    expect(agent.view().cooldown_until).toBe(new Date(T0 + 13_000).toISOString());

    agent.clock.increment(9_999);
    expect(agent.dispatched).toEqual(['w1']);
    agent.clock.increment(1);
    expect(agent.dispatched).toEqual(['w1', 'w2']);
  });

  it('max_concurrent_sessions=2 runs two at once and never three', () => {
    const agent = startAgent({ settings: { maxConcurrent: 2, cooldownMs: 0 } });
    for (const id of ['w1', 'w2', 'w3', 'w4']) agent.queue(id);
    expect(agent.dispatched).toEqual(['w1', 'w2']);
    agent.end('w2');
    expect(agent.dispatched).toEqual(['w1', 'w2', 'w3']);
    expect(agent.view().running).toBe(2);
    agent.end('w1');
    agent.end('w3');
    expect(agent.dispatched).toEqual(['w1', 'w2', 'w3', 'w4']);
    expect(agent.view().running).toBe(1);
  });

  it('a skipped dispatch (no session ran) starts no cooldown', () => {
    const agent = startAgent();
    agent.queue('w1');
    agent.queue('w2');
    agent.end('w1', false);
    expect(agent.dispatched).toEqual(['w1', 'w2']);
  });

  it('holds a wakeup until its availableAt (coalescing window) and claims it then', () => {
    const agent = startAgent();
    agent.queue('w1', T0 + 5_000);
    expect(agent.view().state).toBe('active.waiting');
    agent.clock.increment(4_999);
    expect(agent.dispatched).toEqual([]);
    agent.clock.increment(1);
    expect(agent.dispatched).toEqual(['w1']);
  });

  it('claims entries oldest first, skipping ones not yet available', () => {
    const agent = startAgent({ settings: { cooldownMs: 0 } });
    agent.queue('retry', T0 + 60_000);
    agent.queue('fresh');
    expect(agent.dispatched).toEqual(['fresh']);
    agent.end('fresh');
    expect(agent.view().state).toBe('active.waiting');
    agent.clock.increment(60_000);
    expect(agent.dispatched).toEqual(['fresh', 'retry']);
  });

  it('requeues a wakeup whose dispatch ended with a scheduled retry', () => {
    const agent = startAgent({ settings: { cooldownMs: 0 } });
    agent.queue('w1');
    agent.end('w1', true, T0 + 120_000);
    expect(agent.view()).toMatchObject({ state: 'active.waiting', queued: 1 });
    agent.clock.increment(120_000);
    expect(agent.dispatched).toEqual(['w1', 'w1']);
  });

  it('a paused agent claims every available wakeup at once, ignoring slots, so each can end with no run', () => {
    const agent = startAgent({ settings: { mode: 'paused' } });
    agent.queue('w1');
    agent.queue('w2');
    expect(agent.dispatched).toEqual(['w1', 'w2']);
    expect(agent.view().state).toBe('paused.idle');
  });

  it('another replica describes the actor from its stored snapshot as the live actor shows it', () => {
    const agent = startAgent({ settings: { maxConcurrent: 1, cooldownMs: 0 } });
    agent.queue('w1');
    agent.queue('w2');
    agent.queue('w3', T0 + 60_000);
    const stored = JSON.parse(JSON.stringify(agent.actor.getPersistedSnapshot()));
    expect(describeAgentActor(stored)).toEqual(agent.view());
    expect(agent.view()).toMatchObject({ running: 1, queued: 2, next_available_at: new Date(T0).toISOString() });
  });

  it('withdrawing a queued wakeup removes it from the inbox', () => {
    const agent = startAgent();
    agent.queue('w1');
    agent.queue('w2');
    agent.actor.send({ type: 'WAKEUP_WITHDRAWN', wakeupId: 'w2', at: agent.clock.now() });
    agent.end('w1', false);
    expect(agent.dispatched).toEqual(['w1']);
    expect(agent.view().state).toBe('active.idle');
  });

  it('restored from a snapshot in the middle of a cooldown and reconciled with the rows, it waits only for the time that is left', () => {
    const first = startAgent();
    first.queue('w1');
    first.queue('w2');
    first.clock.increment(1_000);
    first.end('w1');
    first.clock.increment(4_000);
    const persisted = first.actor.getPersistedSnapshot();
    first.actor.stop();

    const clock = new SimulatedClock();
    clock.set(T0 + 5_000);
    const restored = startAgent({ snapshot: JSON.parse(JSON.stringify(persisted)), clock });
    // The snapshot keeps the inbox's size only; the supervisor offers the rows at once, as here.
    expect((persisted as unknown as { context: AgentContext }).context.inbox.size).toBe(1);
    restored.actor.send({ type: 'RECONCILE', settings: settings(), inbox: [{ wakeupId: 'w2', availableAt: T0 }], cooldownUntil: T0 + 11_000, at: clock.now() });
    expect(restored.view()).toMatchObject({ state: 'active.coolingDown', queued: 1 });
    clock.increment(5_999);
    expect(restored.dispatched).toEqual([]);
    clock.increment(1);
    expect(restored.dispatched).toEqual(['w2']);
  });

  it('reconcile adopts the rows: the inbox and cooldown come from the database', () => {
    const agent = startAgent();
    agent.queue('ghost', T0 + 1_000_000);
    agent.actor.send({
      type: 'RECONCILE',
      settings: settings({ maxConcurrent: 2 }),
      inbox: [{ wakeupId: 'w9', availableAt: T0 }],
      cooldownUntil: T0 + 2_000,
      at: T0,
    });
    expect(agent.view()).toMatchObject({ state: 'active.coolingDown', queued: 1, max_concurrent_sessions: 2 });
    agent.clock.increment(2_000);
    expect(agent.dispatched).toEqual(['w9']);
  });
});

describe('agent machine: wakeups parked behind a checkout (pinned: checkout conflicts wait)', () => {
  it('a dispatch that ends parked (no run, no retry) leaves the inbox: the actor does not claim it again or arm a timer until the release offers it', () => {
    const agent = startAgent({ settings: { maxConcurrent: 2, cooldownMs: 0 } });
    agent.queue('holder');
    agent.queue('waiter');
    expect(agent.dispatched).toEqual(['holder', 'waiter']);
    agent.end('waiter', false);
    expect(agent.view()).toMatchObject({ state: 'active.working', running: 1, queued: 0, next_available_at: null });
    agent.clock.increment(3_600_000);
    expect(agent.dispatched).toEqual(['holder', 'waiter']);

    // The holder's run ends and releases the task: the waiter is offered again and claimed at once.
    agent.end('holder');
    agent.queue('waiter', T0);
    expect(agent.dispatched).toEqual(['holder', 'waiter', 'waiter']);
    expect(agent.view()).toMatchObject({ state: 'active.working', running: 1, queued: 0 });
  });

  it('a release that offers the waiter before its own dispatch has ended does not hand it to the pipeline twice, and does not spin', () => {
    const agent = startAgent({ settings: { maxConcurrent: 3, cooldownMs: 0 } });
    agent.queue('holder');
    agent.queue('waiter');
    expect(agent.dispatched).toEqual(['holder', 'waiter']);
    // The holder's release commits (and offers the waiter) before the waiter's parked outcome arrives.
    agent.end('holder');
    agent.queue('waiter', T0);
    expect(agent.dispatched).toEqual(['holder', 'waiter']);
    expect(agent.view()).toMatchObject({ state: 'active.working', running: 1, queued: 0 });
    agent.clock.increment(60_000);
    expect(agent.dispatched).toEqual(['holder', 'waiter']);

    agent.end('waiter', false);
    expect(agent.dispatched).toEqual(['holder', 'waiter', 'waiter']);
    expect(agent.view()).toMatchObject({ running: 1, queued: 0 });
  });

  it('a snapshot taken while a wakeup is parked restores without it; reconcile offers it again from the rows', () => {
    const first = startAgent({ settings: { maxConcurrent: 2, cooldownMs: 0 } });
    first.queue('holder');
    first.queue('waiter');
    first.end('waiter', false);
    const persisted = first.actor.getPersistedSnapshot();
    first.actor.stop();

    const clock = new SimulatedClock();
    clock.set(T0 + 1_000);
    const restored = startAgent({ snapshot: JSON.parse(JSON.stringify(persisted)), clock, settings: { maxConcurrent: 2, cooldownMs: 0 } });
    expect(restored.view()).toMatchObject({ running: 1, queued: 0 });
    expect(restored.dispatched).toEqual([]);
    // After a restart the holder's session is gone: the rows say the waiter is queued.
    restored.actor.send({ type: 'RECONCILE', settings: settings({ maxConcurrent: 2, cooldownMs: 0 }), inbox: [{ wakeupId: 'waiter', availableAt: T0 }], cooldownUntil: null, at: clock.now() });
    expect(restored.dispatched).toEqual(['waiter']);
    expect(restored.view()).toMatchObject({ state: 'active.working', running: 1, queued: 0 });
  });
});

describe('agent machine: settings changes (pause, resume, stop, capacity)', () => {
  const change = (agent: ReturnType<typeof startAgent>, overrides: Partial<AgentSettings>) =>
    agent.actor.send({ type: 'SETTINGS_CHANGED', settings: settings(overrides), at: agent.clock.now() });

  it('pausing a busy agent claims its queued wakeups at once; after resuming, slots hold again even above the limit', () => {
    const agent = startAgent({ settings: { cooldownMs: 0 } });
    agent.queue('w1');
    agent.queue('w2');
    expect(agent.dispatched).toEqual(['w1']);

    change(agent, { mode: 'paused', cooldownMs: 0 });
    expect(agent.dispatched).toEqual(['w1', 'w2']);
    expect(agent.view()).toMatchObject({ state: 'paused.idle', running: 2, queued: 0 });

    change(agent, { mode: 'active', cooldownMs: 0 });
    expect(agent.view()).toMatchObject({ state: 'active.working', running: 2 });
    agent.queue('w3');
    expect(agent.view().state).toBe('active.atCapacity');
    agent.end('w1');
    // One still runs and the limit is one: nothing more is claimed yet.
    expect(agent.dispatched).toEqual(['w1', 'w2']);
    agent.end('w2');
    expect(agent.dispatched).toEqual(['w1', 'w2', 'w3']);
  });

  it('a paused agent waits for a held wakeup to become available, then claims it', () => {
    const agent = startAgent({ settings: { mode: 'paused' } });
    agent.queue('held', T0 + 5_000);
    expect(agent.dispatched).toEqual([]);
    expect(agent.view()).toMatchObject({ state: 'paused.draining', queued: 1 });
    agent.clock.increment(4_999);
    expect(agent.dispatched).toEqual([]);
    agent.clock.increment(1);
    expect(agent.dispatched).toEqual(['held']);
    expect(agent.view().state).toBe('paused.idle');
  });

  it('stopping an agent in its cooldown claims the waiting wakeup at once; a retry requeued while stopped is claimed at its time', () => {
    const agent = startAgent();
    agent.queue('w1');
    agent.end('w1');
    agent.queue('w2');
    expect(agent.view().state).toBe('active.coolingDown');
    expect(agent.dispatched).toEqual(['w1']);

    change(agent, { mode: 'stopped' });
    expect(agent.dispatched).toEqual(['w1', 'w2']);
    expect(agent.view().state).toBe('stopped.idle');

    agent.end('w2', true, T0 + 30_000);
    expect(agent.view()).toMatchObject({ state: 'stopped.draining', queued: 1 });
    agent.clock.increment(29_999);
    expect(agent.dispatched).toEqual(['w1', 'w2']);
    agent.clock.increment(1);
    expect(agent.dispatched).toEqual(['w1', 'w2', 'w2']);
  });

  it('resuming an agent keeps a cooldown that is still running', () => {
    const agent = startAgent();
    agent.queue('w1');
    agent.end('w1');
    change(agent, { mode: 'paused' });
    change(agent, { mode: 'active' });
    agent.queue('w2');
    expect(agent.view().state).toBe('active.coolingDown');
    agent.clock.increment(9_999);
    expect(agent.dispatched).toEqual(['w1']);
    agent.clock.increment(1);
    expect(agent.dispatched).toEqual(['w1', 'w2']);
  });

  it('raising max_concurrent_sessions claims more at once', () => {
    const agent = startAgent({ settings: { cooldownMs: 0 } });
    for (const id of ['w1', 'w2', 'w3', 'w4']) agent.queue(id);
    expect(agent.dispatched).toEqual(['w1']);
    change(agent, { maxConcurrent: 3, cooldownMs: 0 });
    expect(agent.dispatched).toEqual(['w1', 'w2', 'w3']);
    expect(agent.view()).toMatchObject({ state: 'active.atCapacity', running: 3, queued: 1, max_concurrent_sessions: 3 });
  });
});
