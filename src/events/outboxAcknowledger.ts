import type { Logger } from 'pino';
import type { Store } from '../persistence/store.js';

/**
 * Deletes the outbox rows of events that every subscriber has handled. Ids acknowledged during one
 * turn of the event loop are deleted together, in one transaction after that turn, so a burst of
 * events costs one write instead of one per event. A failed delete leaves rows that the next boot
 * delivers again, so it is logged, not raised.
 */
export class OutboxAcknowledger {
  private readonly ids: number[] = [];

  constructor(private readonly store: Store, private readonly log: Pick<Logger, 'warn'>) {}

  /** The bus's acknowledge callback (an arrow, so it can be passed as it is). */
  readonly acknowledge = (eventIds: number[]): void => {
    this.ids.push(...eventIds);
    if (this.ids.length === eventIds.length) setImmediate(() => void this.flush());
  };

  /** Deletes every row acknowledged so far; also called at stop, before the store closes. */
  async flush(): Promise<void> {
    const ids = this.ids.splice(0);
    if (ids.length === 0) return;
    await this.store.transaction((tx) => tx.outbox.remove(ids)).catch((error) => this.log.warn({ err: error }, 'outbox cleanup failed'));
  }
}
