/**
 * Outbox claims between replicas on PostgreSQL: a replica's claim on the events it writes expires
 * unless renewed, so that another delivers them if it dies; while it is still delivering one (a
 * subscriber waiting for its retry), it renews the claim, so no other replica takes it meanwhile.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../src/events/bus.js';
import { OutboxAcknowledger } from '../../src/events/outboxAcknowledger.js';
import { wallClock } from '../../src/domain/clock.js';
import { waitFor } from '../helpers/harness.js';
import { postgresStoreFactory } from '../store/postgresFactory.js';
import type { StoreUnderTest } from '../store/factory.js';

const CLAIM_MS = 1_500;
/** The subscriber's retry waits this long: well past the first claim's expiry. */
const RETRY_MS = 4_000;

let sut: StoreUnderTest | undefined;
let bus: EventBus | undefined;

afterEach(async () => {
  bus?.stop();
  await bus?.idle();
  await sut?.dispose();
  sut = undefined;
  bus = undefined;
});

describe('outbox claims of a replica (PostgreSQL)', () => {
  it('an event whose subscriber waits for a retry stays claimed by its writer, renewed, and is delivered once, by it', async () => {
    const log = pino({ level: 'silent' });
    sut = await postgresStoreFactory({
      owner: 'replica-1', outboxClaimMs: CLAIM_MS, now: () => Date.now(), durable: () => true,
      publish: (events) => bus!.publish(events),
    });
    const { store, inspect } = sut;
    const outbox = new OutboxAcknowledger(store, log);
    bus = new EventBus(log, outbox.acknowledge, {
      clock: wallClock, park: async () => undefined, transaction: (work) => store.transaction(work),
      retryDelaysMs: [RETRY_MS], claims: { owner: 'replica-1', durationMs: CLAIM_MS },
    });
    const deliveries: number[] = [];
    bus.on('comment.created', async () => {
      deliveries.push(Date.now());
      if (deliveries.length === 1) throw new Error('a passing failure: retried later');
    });

    const writtenAt = Date.now();
    await store.transaction(async (tx) => {
      tx.emit('comment.created', { comment_id: 'cmt_1', task_id: 'tsk_1', author_type: 'user', author_id: 'u-alice' });
    });
    const [row] = await inspect.rows<{ id: number; claimed_by: string; claimed_until: number }>('event_outbox');
    expect(row).toMatchObject({ claimed_by: 'replica-1' });
    expect(row!.claimed_until).toBeGreaterThanOrEqual(writtenAt + CLAIM_MS);

    // Past the first claim, while the retry still waits: the claim was renewed, and another replica gets nothing.
    await waitFor(async () => {
      const [current] = await inspect.rows<{ claimed_until: number }>('event_outbox');
      return current !== undefined && Date.now() > row!.claimed_until && current.claimed_until > Date.now();
    }, 'the first claim to pass, renewed', RETRY_MS);
    expect(deliveries).toHaveLength(1);
    const takenByAnother = await store.transaction((tx) => tx.outbox.take('replica-2', { limit: 10, now: Date.now(), claimUntil: Date.now() + CLAIM_MS, takeOver: false }));
    expect(takenByAnother).toEqual([]);

    await waitFor(() => deliveries.length === 2, 'the retry', RETRY_MS + 10_000);
    await bus.idle();
    await waitFor(async () => (await inspect.count('event_outbox')) === 0, 'the delivered event to leave the outbox');
    expect(deliveries).toHaveLength(2);
  });
});
