/**
 * Work that must reach someone after commit: the event outbox and the routine result deliveries
 * (the port's rules: persistence/store.ts).
 *
 * Isolation: takes are one UPDATE … RETURNING over the due rows that no live claim holds (SKIP LOCKED
 * on PostgreSQL), so two takers never get the same row; a delivery is retried or finished only
 * while its taker still holds the claim, and answers false when the claim was lost.
 */
import type { DomainEvent } from '../../domain/events.js';
import type { Routine } from '../../domain/routines.js';
import type { PendingDelivery } from '../../domain/delivery.js';

/** A take of due deliveries (DeliveryRepo.take). */
export interface DeliveryTake {
  /** At most this many, the longest due first. */
  limit: number;
  now: number;
  /** The claim lasts until then: a taker that dies leaves it to whoever takes after it expires. */
  claimUntil: number;
  /** Also take deliveries another owner claimed, whatever their claim says: every other owner is dead (SQLite's boot). */
  takeOver: boolean;
}

/**
 * Routine result deliveries still to make (routine_deliveries; API.md: routine run `delivery_status`),
 * taken with expiring claims like the outbox: each lives until it is delivered or gives up, whatever
 * happens to the process that took it. Each operation is one statement, or two in its transaction.
 */
export interface DeliveryRepo {
  /**
   * Records a delivery to make (first attempt at `next_attempt_at`) and marks its routine run's
   * delivery_status `pending`. False, with nothing written, when the run has one already.
   */
  schedule(delivery: Pick<PendingDelivery, 'routine_run_id' | 'url' | 'body' | 'next_attempt_at' | 'created_at'>): Promise<boolean>;
  /** Claims for `owner` the deliveries due at `now` that no live claim holds, in one UPDATE … RETURNING: two takers never get the same one. */
  take(owner: string, batch: DeliveryTake): Promise<PendingDelivery[]>;
  /** A failed attempt, while `owner` holds the claim: counts it, lets the claim go and sets the next attempt. False when the claim was lost. */
  retryLater(routineRunId: string, owner: string, attempt: { attempts: number; next_attempt_at: number; last_error: string }): Promise<boolean>;
  /**
   * Ends a delivery `owner` holds: its row goes and its routine run's delivery_status becomes `status`,
   * in this transaction. False, with nothing written, when the claim was lost (another took it).
   */
  finish(routineRunId: string, owner: string, status: 'delivered' | 'failed'): Promise<boolean>;
  /** When the next delivery is due, or a claim on one expires; null when none waits. */
  nextDue(): Promise<number | null>;
  get(routineRunId: string): Promise<PendingDelivery | undefined>;
}

export interface OutboxTake {
  /** At most this many events, oldest first. */
  limit: number;
  now: number;
  /** The taken claim lasts until then; null: as long as its owner (SQLite). */
  claimUntil: number | null;
  /**
   * Also take events another owner claimed, whatever their claim says: every other owner is dead
   * (SQLite's boot, where the database lock proves it; the counterpart of `leases.takeAll`).
   */
  takeOver: boolean;
}

export interface OutboxRepo {
  /**
   * Takes a batch of undelivered events for `owner`, oldest first: unclaimed ones, ones whose claim
   * expired at `now` (or, with `takeOver`, claimed by another owner). One UPDATE … RETURNING, so two
   * concurrent takes never return the same event. Parked events are never taken. The events a
   * process writes are claimed by it from the start (see the store's `owner` option): it delivers
   * them itself after commit.
   */
  take(owner: string, batch: OutboxTake): Promise<DomainEvent[]>;
  /**
   * Extends `owner`'s claim on these events (those it still holds) to `until`: a replica renews the
   * events it is still delivering, so that they are taken by another only once it died. One statement.
   */
  renew(owner: string, ids: readonly number[], until: number): Promise<void>;
  /**
   * When the first claim on an undelivered event expires, whoever holds it (a replica restarted under
   * the same id holds none of its earlier boot's claims); null when no claim expires.
   */
  nextClaimExpiry(): Promise<number | null>;
  remove(ids: number[]): Promise<void>;
  /** Keeps a poisoned event for inspection and out of every later replay. */
  park(id: number, error: string, at: number): Promise<void>;
}
