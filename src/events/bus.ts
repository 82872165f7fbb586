import type { Logger } from 'pino';
import type { DomainEvent, EventOf, EventType } from './types.js';

export type Subscriber<K extends EventType> = (event: EventOf<K>) => Promise<void> | void;

/**
 * The in-process bus for committed domain events. Once every subscriber has handled an event it is
 * acknowledged, and its outbox row can go; a crash before that replays it at boot.
 */
export class EventBus {
  private readonly subscribers = new Map<EventType, Subscriber<EventType>[]>();
  private pending = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly log: Logger,
    private readonly acknowledge: (eventIds: number[]) => void,
  ) {}

  on<K extends EventType>(type: K, subscriber: Subscriber<K>): () => void {
    const list = this.subscribers.get(type) ?? [];
    list.push(subscriber as Subscriber<EventType>);
    this.subscribers.set(type, list);
    return () => {
      const index = list.indexOf(subscriber as Subscriber<EventType>);
      if (index >= 0) list.splice(index, 1);
    };
  }

  /**
   * Called by the store after a commit; never before. Subscribers of every event are started in
   * commit order, without waiting for the previous event's subscribers to finish: each opens its
   * transaction before it awaits anything, and the store runs transactions in the order they are
   * opened, so their writes land in event order while the store can group them into one commit.
   */
  publish(events: DomainEvent[]): void {
    for (const event of events) {
      this.pending++;
      void this.deliver(event);
    }
  }

  /** Resolves once every published event has been handled. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async deliver(event: DomainEvent): Promise<void> {
    const handled = (this.subscribers.get(event.type) ?? []).map((subscriber) => this.run(subscriber, event));
    const succeeded = (await Promise.all(handled)).every(Boolean);
    // A failed subscriber leaves the outbox row, so the event is delivered again at the next boot.
    if (succeeded) this.acknowledge([event.id]);
    this.pending--;
    if (this.pending === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private async run(subscriber: Subscriber<EventType>, event: DomainEvent): Promise<boolean> {
    try {
      await subscriber(event);
      return true;
    } catch (error) {
      // One subscriber's failure must not starve the others or wedge the bus; it is logged loudly.
      this.log.error({ err: error, event_type: event.type, event_id: event.id }, 'event subscriber failed; the event stays in the outbox');
      return false;
    }
  }
}
