/**
 * The trigger actor on simulated time: XState's SimulatedClock drives `sleepUntil`, and a fake
 * `fireDue` stands in for the database claim, answering whatever each test scripts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock, type Actor } from 'xstate';
import { sleepUntil } from '../../src/machines/sleepUntil.js';
import { triggerMachine, type FireDueInput, type FireDueOutput, type TriggerMachine } from '../../src/machines/trigger.js';

type Answer = FireDueOutput | ((input: FireDueInput) => FireDueOutput);

/** A fake fireDue that records every call and answers from a script (the last answer repeats). */
function fakeFireDue(answers: Answer[]) {
  const calls: { input: FireDueInput; at: number }[] = [];
  let clockRef: SimulatedClock | null = null;
  const logic = fromPromise<FireDueOutput, FireDueInput>(async ({ input }) => {
    calls.push({ input, at: clockRef!.now() });
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return typeof answer === 'function' ? answer(input) : answer;
  });
  return { calls, logic, bind: (clock: SimulatedClock) => { clockRef = clock; } };
}

function machineWith(clock: SimulatedClock, fire: ReturnType<typeof fakeFireDue>) {
  fire.bind(clock);
  return triggerMachine.provide({ actors: { sleepUntil: sleepUntil(clock), fireDue: fire.logic } });
}

/** Lets the fireDue promise settle and XState process its done event. */
async function settle() {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

const ok = (nextRunAt: number | null): FireDueOutput => ({ nextRunAt, notBefore: null, failed: false });

let actors: Actor<TriggerMachine>[] = [];
afterEach(() => {
  for (const actor of actors) actor.stop();
  actors = [];
});

function start(clock: SimulatedClock, fire: ReturnType<typeof fakeFireDue>, input: { nextRunAt: number | null; jitterMs?: number }, snapshot?: unknown) {
  const options = { input: { triggerId: 'trg_1', nextRunAt: input.nextRunAt, jitterMs: input.jitterMs ?? 0 } };
  const actor = createActor(machineWith(clock, fire), snapshot ? { ...options, snapshot: snapshot as never } : options);
  actors.push(actor);
  actor.start();
  return actor;
}

describe('triggerMachine on a SimulatedClock', () => {
  it('waits until nextRunAt + jitter, fires with the expected tick, then adopts the returned nextRunAt and fires again', async () => {
    const clock = new SimulatedClock();
    clock.set(1_000);
    const fire = fakeFireDue([ok(20_000), ok(30_000)]);
    const actor = start(clock, fire, { nextRunAt: 10_000, jitterMs: 500 });
    expect(actor.getSnapshot().value).toBe('waiting');

    clock.set(10_000);
    clock.set(10_499);
    await settle();
    expect(fire.calls).toHaveLength(0);

    clock.set(10_500);
    await settle();
    expect(fire.calls).toHaveLength(1);
    expect(fire.calls[0]).toEqual({ input: { triggerId: 'trg_1', expectedNextRunAt: 10_000, failures: 0 }, at: 10_500 });
    expect(actor.getSnapshot().value).toBe('waiting');
    expect(actor.getSnapshot().context).toMatchObject({ nextRunAt: 20_000, jitterMs: 500, notBefore: null, failures: 0 });

    // The second fire happens on the adopted deadline (20_000 + jitter), not the first one.
    clock.set(20_499);
    await settle();
    expect(fire.calls).toHaveLength(1);
    clock.set(20_500);
    await settle();
    expect(fire.calls).toHaveLength(2);
    expect(fire.calls[1]!.input.expectedNextRunAt).toBe(20_000);
    expect(actor.getSnapshot().context.nextRunAt).toBe(30_000);
  });

  it('fires at once (on the next timer flush) when the deadline is already in the past', async () => {
    const clock = new SimulatedClock();
    clock.set(50_000);
    const fire = fakeFireDue([ok(60_000)]);
    start(clock, fire, { nextRunAt: 10_000 });
    expect(fire.calls).toHaveLength(0); // never synchronously from inside the transition
    clock.increment(0);
    await settle();
    expect(fire.calls).toHaveLength(1);
    expect(fire.calls[0]!.input.expectedNextRunAt).toBe(10_000);
  });

  it('RESCHEDULE moves the deadline earlier and later', async () => {
    const clock = new SimulatedClock();
    const fire = fakeFireDue([ok(100_000)]);
    const actor = start(clock, fire, { nextRunAt: 10_000 });

    actor.send({ type: 'RESCHEDULE', nextRunAt: 30_000, jitterMs: 0 });
    clock.set(10_000);
    await settle();
    expect(fire.calls).toHaveLength(0); // the old deadline's timer is gone
    expect(actor.getSnapshot().context.nextRunAt).toBe(30_000);

    actor.send({ type: 'RESCHEDULE', nextRunAt: 15_000, jitterMs: 0 });
    clock.set(14_999);
    await settle();
    expect(fire.calls).toHaveLength(0);
    clock.set(15_000);
    await settle();
    expect(fire.calls.map((c) => c.input.expectedNextRunAt)).toEqual([15_000]);

    // Nothing is left armed at the abandoned 30_000 deadline.
    clock.set(30_000);
    await settle();
    expect(fire.calls).toHaveLength(1);
  });

  it('is dormant with a null nextRunAt, and a RESCHEDULE with a time wakes it', async () => {
    const clock = new SimulatedClock();
    const fire = fakeFireDue([ok(null)]);
    const actor = start(clock, fire, { nextRunAt: null });
    expect(actor.getSnapshot().value).toBe('dormant');
    clock.set(10_000_000);
    await settle();
    expect(fire.calls).toHaveLength(0);

    actor.send({ type: 'RESCHEDULE', nextRunAt: 10_000_500, jitterMs: 0 });
    expect(actor.getSnapshot().value).toBe('waiting');
    clock.set(10_000_500);
    await settle();
    expect(fire.calls).toHaveLength(1);
    // The fire answered null (a cron that never fires again): dormant, nothing armed.
    expect(actor.getSnapshot().value).toBe('dormant');
    clock.set(99_000_000);
    await settle();
    expect(fire.calls).toHaveLength(1);
  });

  it('after a failed attempt waits until notBefore, retries the same tick with failures counted, and resets on success', async () => {
    const clock = new SimulatedClock();
    const fire = fakeFireDue([
      (input) => ({ nextRunAt: input.expectedNextRunAt, notBefore: 15_000, failed: true }),
      (input) => ({ nextRunAt: input.expectedNextRunAt, notBefore: 25_000, failed: true }),
      ok(40_000),
    ]);
    const actor = start(clock, fire, { nextRunAt: 10_000 });

    clock.set(10_000);
    await settle();
    expect(fire.calls).toHaveLength(1);
    expect(actor.getSnapshot().context).toMatchObject({ nextRunAt: 10_000, notBefore: 15_000, failures: 1 });

    clock.set(14_999);
    await settle();
    expect(fire.calls).toHaveLength(1);
    clock.set(15_000);
    await settle();
    expect(fire.calls[1]).toEqual({ input: { triggerId: 'trg_1', expectedNextRunAt: 10_000, failures: 1 }, at: 15_000 });

    clock.set(24_999);
    await settle();
    expect(fire.calls).toHaveLength(2);
    clock.set(25_000);
    await settle();
    expect(fire.calls[2]!.input).toEqual({ triggerId: 'trg_1', expectedNextRunAt: 10_000, failures: 2 });
    expect(actor.getSnapshot().context).toMatchObject({ nextRunAt: 40_000, notBefore: null, failures: 0 });
  });

  it('restored from a persisted snapshot mid-wait, fires at the original deadline (not a fresh full wait)', async () => {
    const clock = new SimulatedClock();
    const fire = fakeFireDue([ok(70_000)]);
    const first = start(clock, fire, { nextRunAt: 60_000, jitterMs: 250 });
    clock.set(20_000);
    await settle();
    const persisted = JSON.parse(JSON.stringify(first.getPersistedSnapshot()));
    first.stop();
    expect(fire.calls).toHaveLength(0);

    // "Restart": a new actor from the stored snapshot, 30 s later on the clock.
    clock.set(50_000);
    const restored = start(clock, fire, { nextRunAt: null }, persisted);
    expect(restored.getSnapshot().value).toBe('waiting');
    expect(restored.getSnapshot().context).toMatchObject({ nextRunAt: 60_000, jitterMs: 250 });

    clock.set(60_249);
    await settle();
    expect(fire.calls).toHaveLength(0);
    clock.set(60_250);
    await settle();
    expect(fire.calls).toEqual([{ input: { triggerId: 'trg_1', expectedNextRunAt: 60_000, failures: 0 }, at: 60_250 }]);
    expect(restored.getSnapshot().context.nextRunAt).toBe(70_000);
  });
});
