/**
 * Durable result delivery: a routine's optional `delivery` webhook hears each run's outcome, once it
 * is delivered or gives up (API.md: routine run `delivery_status`). Rules only; the store keeps the
 * rows (routine_deliveries) and services/delivery.ts makes the attempts.
 */
import { MAX_RETRY_COUNT, backoffDelayMs } from './backoff.js';

export const DELIVERY_STATUSES = ['none', 'pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A delivery still to make: delivery_status `pending` until it is delivered or gives up. */
export interface PendingDelivery {
  routine_run_id: string;
  url: string;
  /** What is posted, as JSON. */
  body: Record<string, unknown>;
  /** Attempts made so far. */
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
}

/** What the delivery webhook receives about a routine run's end. */
export function deliveryBody(routineId: string, routineRunId: string, outcome: string): Record<string, unknown> {
  return { routine_id: routineId, routine_run_id: routineRunId, outcome };
}

export type DeliveryPlan = { kind: 'retry'; at: number } | { kind: 'give_up' };

/**
 * After a failed attempt: the next one after the backoff step for this retry (the run retries' steps,
 * OFFICE_BACKOFF), up to MAX_RETRY_COUNT retries; then the delivery gives up, `failed`.
 */
export function planDeliveryRetry(failedAttempts: number, now: number, backoff: { steps: number[]; jitter: number; random: () => number }): DeliveryPlan {
  const retryIndex = failedAttempts - 1;
  if (retryIndex >= MAX_RETRY_COUNT) return { kind: 'give_up' };
  return { kind: 'retry', at: now + backoffDelayMs(retryIndex, backoff.steps, backoff.jitter, backoff.random) };
}
