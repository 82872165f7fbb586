/**
 * At boot the bus takes what earlier owners left in the outbox, a batch at a time, and delivers it
 * oldest first; events this process writes meanwhile are its own, so no batch returns them again.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import type { DomainEvent } from '../../src/domain/events.js';
import { EventBus } from '../../src/events/bus.js';
import { sqliteStoreFactory, type StoreUnderTest } from '../store/factory.js';

let sut: StoreUnderTest | null = null;
afterEach(async () => {
  await sut?.dispose();
  sut = null;
});

describe('EventBus.replayUndelivered', () => {
  it('takes the events a dead owner left in batches, delivers each once oldest first, and never takes back what this owner writes while delivering', async () => {
    sut = await sqliteStoreFactory({ owner: 'own_dead' });
    for (let i = 0; i < 5; i++) await sut.store.transaction(async (tx) => tx.emit('task.created', { task_id: `tsk_${i}`, workspace_id: 'ws_1' }));
    const left = sut.published.map((event) => event.id);
    sut = await sut.reopen({ owner: 'own_boot' });
    const { store } = sut;

    const delivered: number[] = [];
    const takes: number[] = [];
    const clock = new SimulatedClock();
    const bus = new EventBus(pino({ level: 'silent' }), () => undefined, {
      clock, park: async () => undefined,
      transaction: (work) => {
        takes.push(1);
        return store.transaction(work);
      },
    });
    // Each delivery writes a new event, as a subscriber that emits would: this owner's own, delivered by it.
    bus.on('task.created', async (event: DomainEvent) => {
      delivered.push(event.id);
      await store.transaction(async (tx) => tx.emit('agent.updated', { agent_id: 'agt_1' }));
    });

    expect(await bus.replayUndelivered('own_boot', { batchSize: 2, takeOver: true })).toBe(5);
    await bus.idle();
    expect(takes).toHaveLength(3);
    expect(delivered).toEqual(left);
    // The events written during the replay are own_boot's: another take-over by it finds nothing.
    expect(await store.transaction((tx) => tx.outbox.take('own_boot', { limit: 100, now: 0, claimUntil: null, takeOver: true }))).toEqual([]);
  });
});
