import type { Logger } from 'pino';
import type { DomainEvent, EventOf, EventType } from './types.js';

export type Subscriber<K extends EventType> = (event: EventOf<K>) => Promise<void> | void;

/**
 * The in-process bus for committed domain events. Events are handled one at a time, in commit
 * order, so subscribers see the world in the order it changed. Once every subscriber has handled
 * an event it is acknowledged, and its outbox row can go; a crash before that replays it at boot.
 */
export class EventBus {
  private readonly subscribers = new Map<EventType, Subscriber<EventType>[]>();
  private chain: Promise<void> = Promise.resolve();
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

  /** Called by the store after a commit; never before. */
  publish(events: DomainEvent[]): void {
    for (const event of events) {
      this.pending++;
      this.chain = this.chain.then(() => this.deliver(event));
    }
  }

  /** Resolves once every published event has been handled. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async deliver(event: DomainEvent): Promise<void> {
    for (const subscriber of this.subscribers.get(event.type) ?? []) {
      try {
        await subscriber(event);
      } catch (error) {
        // One subscriber's bug must not starve the others or wedge the bus; it is logged loudly.
        this.log.error({ err: error, event_type: event.type, event_id: event.id }, 'event subscriber failed');
      }
    }
    this.acknowledge([event.id]);
    this.pending--;
    if (this.pending === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}
