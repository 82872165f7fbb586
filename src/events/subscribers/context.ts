import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.js';
import type { Store, Tx } from '../../persistence/store.js';
import type { EnqueueRequest, WakeupService } from '../../services/wakeups.js';

/** What a subscriber may use: it turns a committed event into wakeups, in its own transaction. */
export interface SubscriberDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  wakeups: WakeupService;
}

/** One event's wakeups: a request for an agent that was deleted is skipped, never fails the others. */
export async function enqueueAll(deps: SubscriberDeps, tx: Tx, requests: EnqueueRequest[]): Promise<void> {
  const now = deps.clock.now();
  for (const request of requests) await deps.wakeups.enqueueForEvent(tx, request, now);
}
