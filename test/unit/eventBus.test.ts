import type { Logger } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { EventBus } from '../../src/events/bus.js';
import type { DomainEvent } from '../../src/domain/events.js';

function quietLog() {
  return { error: vi.fn(), warn: vi.fn(), info: vi.fn(), debug: vi.fn() };
}

const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000];

function newBus() {
  const log = quietLog();
  const acknowledge = vi.fn<(ids: number[]) => void>();
  const park = vi.fn<(event: DomainEvent, error: unknown) => Promise<void>>(async () => undefined);
  const clock = new SimulatedClock();
  clock.set(1_000_000);
  const bus = new EventBus(log as unknown as Logger, acknowledge, { clock, park, retryDelaysMs: RETRY_DELAYS_MS });
  return { bus, log, acknowledge, park, clock };
}

/** Timers still armed on the simulated clock. */
const armedTimers = (clock: SimulatedClock) => (clock as unknown as { timeouts: Map<unknown, unknown> }).timeouts.size;

function created(id: number, taskId = `tsk_${id}`): DomainEvent {
  return { id, type: 'task.created', payload: { task_id: taskId, workspace_id: 'ws_1' }, at: 1_000 + id };
}

/** Lets every pending promise callback run (no timer, no waiting for wall-clock time). */
const flushMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

describe('EventBus', () => {
  it('starts the subscribers of an event in the order they subscribed', async () => {
    const { bus } = newBus();
    const order: string[] = [];
    bus.on('task.created', async () => { order.push('first'); await Promise.resolve(); });
    bus.on('task.created', () => { order.push('second'); });
    bus.on('task.created', () => { order.push('third'); });
    bus.publish([created(1)]);
    await bus.idle();
    expect(order).toEqual(['first', 'second', 'third']);
  });

  it('starts every event in publish order without waiting for the previous one to finish (the store keeps their writes in order)', async () => {
    const { bus, acknowledge } = newBus();
    const gate = deferred();
    const seen: string[] = [];
    bus.on('task.created', async (event) => {
      seen.push(`start ${event.payload.task_id}`);
      if (event.id === 1) await gate.promise;
      seen.push(`end ${event.payload.task_id}`);
    });
    bus.publish([created(1)]);
    bus.publish([created(2)]);
    await flushMicrotasks();
    expect(seen).toEqual(['start tsk_1', 'start tsk_2', 'end tsk_2']);
    // Event 1 is not acknowledged while its subscriber is still working.
    expect(acknowledge.mock.calls).toEqual([[[2]]]);
    gate.resolve();
    await bus.idle();
    expect(seen).toEqual(['start tsk_1', 'start tsk_2', 'end tsk_2', 'end tsk_1']);
    expect(acknowledge.mock.calls).toEqual([[[2]], [[1]]]);
  });

  it('keeps delivering to the other subscribers when one throws, and logs the failure', async () => {
    const { bus, log, acknowledge } = newBus();
    const calls: string[] = [];
    bus.on('task.created', () => { calls.push('before'); });
    bus.on('task.created', () => { throw new Error('subscriber bug'); });
    bus.on('task.created', async () => { throw new Error('async subscriber bug'); });
    bus.on('task.created', () => { calls.push('after'); });
    bus.publish([created(7), created(8)]);
    await flushMicrotasks();
    expect(calls).toEqual(['before', 'after', 'before', 'after']);
    expect(log.error).toHaveBeenCalledTimes(4);
    expect(log.error.mock.calls[0]![0]).toMatchObject({ event_type: 'task.created', event_id: 7 });
    // A failed subscriber keeps the event in the outbox (no acknowledgement) while it waits for its retry.
    expect(acknowledge).not.toHaveBeenCalled();
    bus.stop();
    await bus.idle();
    expect(acknowledge).not.toHaveBeenCalled();
  });

  it('acknowledges each event exactly once, after every subscriber handled it', async () => {
    const { bus, acknowledge } = newBus();
    const gate = deferred();
    bus.on('task.created', async () => { await gate.promise; });
    bus.on('task.created', () => undefined);
    bus.publish([created(1), created(2), created(3)]);
    await flushMicrotasks();
    expect(acknowledge).not.toHaveBeenCalled();
    gate.resolve();
    await bus.idle();
    expect(acknowledge.mock.calls).toEqual([[[1]], [[2]], [[3]]]);
  });

  it('acknowledges an event that has no subscriber, so its outbox row does not linger', async () => {
    const { bus, acknowledge } = newBus();
    bus.publish([{ id: 42, type: 'agent.updated', payload: { agent_id: 'agt_1' }, at: 1 }]);
    await bus.idle();
    expect(acknowledge.mock.calls).toEqual([[[42]]]);
  });

  it('only calls the subscribers of the event type', async () => {
    const { bus } = newBus();
    const created_ = vi.fn();
    const assigned = vi.fn();
    bus.on('task.created', created_);
    bus.on('task.assigned', assigned);
    bus.publish([created(1)]);
    await bus.idle();
    expect(created_).toHaveBeenCalledTimes(1);
    expect(assigned).not.toHaveBeenCalled();
  });

  it('stops calling a subscriber once it unsubscribes', async () => {
    const { bus } = newBus();
    const subscriber = vi.fn();
    const off = bus.on('task.created', subscriber);
    bus.publish([created(1)]);
    await bus.idle();
    off();
    bus.publish([created(2)]);
    await bus.idle();
    expect(subscriber).toHaveBeenCalledTimes(1);
  });

  it('idle() resolves at once with nothing pending, and only after the last pending event otherwise', async () => {
    const { bus } = newBus();
    await expect(bus.idle()).resolves.toBeUndefined();

    const gate = deferred();
    const handled: number[] = [];
    bus.on('task.created', async (event) => {
      if (event.id === 2) await gate.promise;
      handled.push(event.id);
    });
    bus.publish([created(1), created(2)]);
    let idle = false;
    const waiting = bus.idle().then(() => { idle = true; });
    await flushMicrotasks();
    expect(handled).toEqual([1]);
    expect(idle).toBe(false);
    gate.resolve();
    await waiting;
    expect(handled).toEqual([1, 2]);
    expect(idle).toBe(true);
  });

  describe('a failing subscriber is retried with backoff while the process runs, then parked', () => {
    it('retries only the failed subscriber at each backoff step of the clock, and acknowledges the event once it succeeds', async () => {
      const { bus, acknowledge, park, clock } = newBus();
      let healthy = 0;
      let flaky = 0;
      bus.on('task.created', () => { healthy++; });
      bus.on('task.created', () => {
        flaky++;
        if (flaky <= 2) throw new Error(`database is busy (${flaky})`);
      });
      bus.publish([created(1)]);
      await flushMicrotasks();
      expect([healthy, flaky]).toEqual([1, 1]);

      clock.increment(RETRY_DELAYS_MS[0]! - 1);
      await flushMicrotasks();
      expect(flaky).toBe(1);
      clock.increment(1);
      await flushMicrotasks();
      expect([healthy, flaky]).toEqual([1, 2]);
      expect(acknowledge).not.toHaveBeenCalled();

      clock.increment(RETRY_DELAYS_MS[1]!);
      await flushMicrotasks();
      expect([healthy, flaky]).toEqual([1, 3]);
      await bus.idle();
      expect(acknowledge.mock.calls).toEqual([[[1]]]);
      expect(park).not.toHaveBeenCalled();
      expect(armedTimers(clock)).toBe(0);
    });

    it('parks an event whose subscriber fails every try: park gets the event and the last error, it is never acknowledged, and it blocks nothing after it', async () => {
      const { bus, acknowledge, park, clock } = newBus();
      let tries = 0;
      bus.on('task.created', (event) => {
        if (event.id !== 1) return;
        tries++;
        throw new Error(`agent 'agt_gone' was not found (try ${tries})`);
      });
      bus.publish([created(1), created(2)]);
      await flushMicrotasks();
      // The healthy event behind the poisoned one is not held up by it.
      expect(acknowledge.mock.calls).toEqual([[[2]]]);
      for (const delay of RETRY_DELAYS_MS) {
        clock.increment(delay);
        await flushMicrotasks();
      }
      await bus.idle();
      expect(tries).toBe(RETRY_DELAYS_MS.length + 1);
      expect(park).toHaveBeenCalledTimes(1);
      expect(park.mock.calls[0]![0]).toMatchObject({ id: 1, type: 'task.created' });
      expect((park.mock.calls[0]![1] as Error).message).toBe(`agent 'agt_gone' was not found (try ${tries})`);
      expect(acknowledge.mock.calls).toEqual([[[2]]]);
      expect(armedTimers(clock)).toBe(0);
    });

    it('stop() clears the retry timers: the waiting event is neither acknowledged nor parked (the next boot delivers it) and idle() resolves', async () => {
      const { bus, acknowledge, park, clock } = newBus();
      let tries = 0;
      bus.on('task.created', () => {
        tries++;
        throw new Error('disk full');
      });
      bus.publish([created(1)]);
      await flushMicrotasks();
      expect(armedTimers(clock)).toBe(1);
      bus.stop();
      await bus.idle();
      expect(armedTimers(clock)).toBe(0);
      clock.increment(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0));
      await flushMicrotasks();
      expect(tries).toBe(1);
      expect(acknowledge).not.toHaveBeenCalled();
      expect(park).not.toHaveBeenCalled();
    });
  });
});
